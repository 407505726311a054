#!/bin/sh
# SPDX-License-Identifier: MIT
# The frame table's extra columns cost memory in proportion to the data:
# render-flame on a 512-column file of 8 stacks (10 KB) peaks under 64 MB
# (it took 266 MB: a zero-filled row of 511 values for each of the 65536
# nodes the node array starts with; issue 22 item 4).
B=${B:-build}
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
awk 'BEGIN { srand(3); printf "# columns:"; for (c = 0; c < 512; c++) printf " c%d", c; print ""
	for (i = 0; i < 8; i++) { printf "main;f%d;g", i
		for (c = 0; c < 512; c++) printf " %d", (rand() < 0.5) ? int(rand() * 4) : 0; print "" } }' >"$t/in"
/usr/bin/time -f "%M" -o "$t/rss" "$B/render-flame" "$t/in" >"$t/svg"; st=$?
rss=$(cat "$t/rss" | tail -1)
if [ "$st" = 0 ] && [ "$rss" -lt 65536 ]; then
	echo "ok 1 - render-flame on 512 columns x 8 stacks: $rss KB peak RSS"
else
	echo "not ok 1 - render-flame on 512 columns x 8 stacks: status $st, $rss KB peak RSS"; exit 1
fi
