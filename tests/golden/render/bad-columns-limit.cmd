# 513 value columns: one past FK_MAX_COLUMNS (core/limits.h).
awk 'BEGIN { printf "# columns:"; for (i = 0; i < 513; i++) printf " c%d", i; print ""; printf "main"; for (i = 0; i < 513; i++) printf " 1"; print "" }' | render-flame
