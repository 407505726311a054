#!/bin/sh
# SPDX-License-Identifier: MIT
# The timeline's offline costs: heap-series on N dumps of one process of
# STACKS stacks each (bench/series-gen: gen-dump's stacks, values drifting
# between snapshots), then render-flame on the series, RUNS times each:
# median wall and CPU time and peak RSS (bench/lib.sh), the sizes, and the
# load average. The page's load time in Chromium: bench/timeline-browser.js.
# gen-dump names real libraries at made-up offsets, so nearly every
# address stays module+0xOFFSET: the figures are heap-series' own work
# (reading, folding, merging, writing), not libdw's.
# Usage: B=DIR bench/series.sh [RUNS [N [STACKS]]]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
B=${B:-$top/build}
runs=${1:-5}
n=${2:-100}
stacks=${3:-10000}
work=${FK_BENCH_DIR:-/tmp/fk-bench-series}
dir=$work/dumps-$n-$stacks
[ -s "$dir/bench.4242.$((n - 1)).i$((n - 1)).heap" ] || "$top/bench/series-gen" "$dir" "$n" "$stacks"
tmp=$work
. "$top/bench/lib.sh"
echo "input: $n dumps of $stacks stacks, $(du -sm "$dir" | cut -f1) MB"
measure hs "'$B/heap-series' '$dir'/*.heap 2>/dev/null"
"$B/heap-series" "$dir"/*.heap >"$work/series.folded" 2>/dev/null
measure rf "'$B/render-flame' '$work/series.folded' >'$work/series.svg'"
echo "heap-series:  $(median hs 1) s wall, $(median hs 3) s CPU, $(($(median hs 2) / 1024)) MB peak RSS; series $(($(stat -c %s "$work/series.folded") / 1000)) kB, $(($(wc -l <"$work/series.folded") - n - 1)) stacks"
echo "render-flame: $(median rf 1) s wall, $(median rf 3) s CPU, $(($(median rf 2) / 1024)) MB peak RSS; SVG $(($(stat -c %s "$work/series.svg") / 1000)) kB"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
