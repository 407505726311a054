#!/bin/sh
# SPDX-License-Identifier: MIT
# Times render-flame on the synthetic benchmark input (bench/render-gen:
# 200k lines, about 60 MB, depth 5-60, Zipf names, long C++ names), RUNS
# times; prints the median wall and CPU time, the peak RSS (/usr/bin/time -v),
# the SVG size and bytes per drawn frame, and the load average (the machine
# is shared; wall times are inflated when it is busy).
# Usage: B=DIR bench/render.sh [RUNS] [LINES]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
B=${B:-$top/build}
runs=${1:-7}
lines=${2:-200000}
work=${FK_BENCH_DIR:-/tmp/fk-bench-render}
mkdir -p "$work"
in=$work/stacks-$lines.folded
[ -s "$in" ] || "$top/bench/render-gen" "$lines" >"$in"
echo "input: $in, $(wc -l <"$in") lines, $(($(stat -c %s "$in") / 1000000)) MB"
: >"$work/times"
i=0
while [ "$i" -lt "$runs" ]; do
	/usr/bin/time -v "$B/render-flame" "$in" >"$work/out.svg" 2>"$work/time.txt"
	wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/time.txt" |
		awk -F: '{ print ($1 * 60) + $2 }')
	user=$(sed -n 's/.*User time (seconds): //p' "$work/time.txt")
	sys=$(sed -n 's/.*System time (seconds): //p' "$work/time.txt")
	rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time.txt")
	echo "$wall $(echo "$user $sys" | awk '{ print $1 + $2 }') $rss" >>"$work/times"
	i=$((i + 1))
done
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
frames=$(grep -c '^<g class=\|^<rect class=' "$work/out.svg")
size=$(stat -c %s "$work/out.svg")
echo "runs: $runs"
echo "wall s (median): $(cut -d' ' -f1 "$work/times" | median)"
echo "cpu s (median): $(cut -d' ' -f2 "$work/times" | median)"
echo "peak RSS MB (max): $(cut -d' ' -f3 "$work/times" | sort -n | tail -1 | awk '{ printf "%.1f", $1 / 1024 }')"
echo "svg: $size bytes, $frames frames, $((size / frames)) bytes/frame"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
