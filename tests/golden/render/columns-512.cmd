# 512 value columns, the most FK_MAX_COLUMNS allows: a valid page.
awk 'BEGIN { printf "# columns:"; for (i = 0; i < 512; i++) printf " c%d", i; print ""; printf "main;f"; for (i = 0; i < 512; i++) printf " %d", i; print "" }' | render-flame >"$T/g.svg"
xmllint --noout "$T/g.svg"
