# 65 origin lines: one past FK_MAX_INFO_LINES (core/limits.h).
awk 'BEGIN { for (i = 0; i < 65; i++) printf "# info: k%d=v\n", i; print "main;a 1" }' | render-flame
