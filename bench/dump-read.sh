#!/bin/sh
# SPDX-License-Identifier: MIT
# Benchmark of the dump reader: jeprof-raw --check on a synthetic dump of
# 100k distinct stacks of depth 5-60 (bench/gen-dump, about 57 MB), and a
# full read + write. Goal: read and validated in <= 0.5 s with peak RSS
# <= 2x the file size. Prints medians of RUNS runs (wall, CPU, peak RSS).
# Usage: B=DIR bench/dump-read.sh [RUNS] [STACKS]   (defaults 7 and 100000)
set -eu
. "$(dirname "$0")/lib.sh"
bench_init
runs=${1:-7}
nstacks=${2:-100000}

bench/gen-dump --stacks "$nstacks" >"$tmp/synth.prof"
size=$(wc -c <"$tmp/synth.prof")
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "input: $nstacks stacks, $size bytes"
measure check "'$B/jeprof-raw' --check '$tmp/synth.prof'"
measure rewrite "'$B/jeprof-raw' -o '$tmp/out.prof' '$tmp/synth.prof'"
printf '%-34s %8s %8s %10s %8s\n' command "wall s" "cpu s" "peak KB" "RSS/file"
for m in check rewrite; do
	rss=$(median $m 2)
	printf '%-34s %8s %8s %10s %8s\n' "jeprof-raw $( [ $m = check ] && echo --check || echo '-o OUT')" \
		"$(median $m 1)" "$(median $m 3)" "$rss" \
		"$(awk -v r="$rss" -v s="$size" 'BEGIN { printf "%.2f", r * 1024 / s }')"
done
echo "runs: $runs each"
