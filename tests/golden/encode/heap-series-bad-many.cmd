# 513 dumps: one past FK_MAX_COLUMNS, refused before any is read.
heap-series $(seq -f "$T/x.1.%g.i0.heap" 0 512)
