#!/bin/sh
# SPDX-License-Identifier: MIT
# heap-check --budget on a long budget file and deep stacks (issue 32.6):
# bench/heapcheck-gen's STACKS stacks of DEPTH frames against budgets of
# LINES lines, one with 10 % glob lines (the rest literal names) and one of
# globs alone, the last line '*' in both. RUNS runs each: median wall and
# CPU time and peak RSS (bench/lib.sh), and the load average. To compare
# builds, run it with B=OLD_BUILD too (or bench/ab.sh on one input).
# Usage: B=DIR bench/heapcheck.sh [RUNS [STACKS [DEPTH [LINES]]]]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
B=${B:-$top/build}
runs=${1:-7}
stacks=${2:-2000}
depth=${3:-128}
lines=${4:-10000}
work=${FK_BENCH_DIR:-/tmp/fk-bench-heapcheck}
tmp=$work
. "$top/bench/lib.sh"
for globs in 10 100; do
	dir=$work/in-$stacks-$depth-$lines-$globs
	[ -s "$dir/budget" ] || python3 "$top/bench/heapcheck-gen" "$dir" "$stacks" "$depth" "$lines" "$globs"
	names=$(tr ';' '\n' <"$dir/profile.folded" | sed 's/ [0-9]*$//' | sort -u | wc -l)
	# Lines are over their budgets: heap-check exits 1, as it should.
	measure hc$globs "'$B/heap-check' --budget '$dir/budget' '$dir/profile.folded'; [ \$? = 1 ]"
	echo "$stacks stacks x $depth frames ($names distinct names), $lines lines, $globs % globs:" \
		"$(median hc$globs 1) s wall, $(median hc$globs 3) s CPU," \
		"$(($(median hc$globs 2) / 1024)) MB peak RSS"
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
