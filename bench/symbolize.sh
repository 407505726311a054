#!/bin/sh
# SPDX-License-Identifier: MIT
# Benchmark: `symbolize | to-folded` against `jeprof --collapsed` on the real
# gcc cc1 dump (fixtures/dumps/cc1.prof, about 11k stacks and 6k distinct
# addresses). Prints the median wall time and the median peak RSS (from
# /usr/bin/time -v; for a pipeline, the largest process) of several runs,
# and the median CPU time (user + system of all processes), which a busy
# machine inflates less than the wall time.
# Usage: bench/symbolize.sh [RUNS] [JEPROF_RUNS]   (defaults 9 and 3)
# Build first: make B=DIR, then B=DIR bench/symbolize.sh.
set -eu
. "$(dirname "$0")/lib.sh"
bench_init
runs=${1:-9}
jruns=${2:-3}
dump=fixtures/dumps/cc1.prof
prog=/usr/lib/gcc/x86_64-linux-gnu/12/cc1

for t in "$B/symbolize" "$B/to-folded" /usr/bin/time jeprof "$prog"; do
	command -v "$t" >/dev/null 2>&1 || { echo "bench: missing $t" >&2; exit 1; }
done

load=$(cut -d' ' -f1-3 /proc/loadavg)
# Warm the page cache (the files symbolize and jeprof read) once.
"$B/symbolize" "$dump" 2>/dev/null | "$B/to-folded" >/dev/null

measure sym "'$B/symbolize' '$dump' 2>/dev/null"
measure pipe "'$B/symbolize' '$dump' 2>/dev/null | '$B/to-folded'"
saved=$runs; runs=$jruns
measure jeprof "jeprof --collapsed '$prog' '$dump' 2>/dev/null"
runs=$saved

stacks=$(grep -c '^@' "$dump")
addrs=$(grep '^@' "$dump" | tr ' ' '\n' | grep -c '^0x' || true)
distinct=$(grep '^@' "$dump" | tr ' ' '\n' | grep '^0x' | sort -u | wc -l)
echo "input: $dump ($stacks stacks, $addrs frames, $distinct distinct addresses)"
echo "load average before: $load"
printf '%-24s %10s %10s %12s %6s\n' command "wall s" "cpu s" "peak KB" runs
for m in "sym symbolize $runs" "pipe symbolize|to-folded $runs" "jeprof jeprof--collapsed $jruns"; do
	set -- $m
	printf '%-24s %10s %10s %12s %6s\n' "$2" "$(median "$1" 1)" "$(median "$1" 3)" \
		"$(median "$1" 2)" "$3"
done
awk -v a="$(median jeprof 1)" -v b="$(median pipe 1)" -v c="$(median jeprof 3)" \
	-v d="$(median pipe 3)" \
	'BEGIN { if (b > 0 && d > 0) printf "speed-up: %.0fx wall, %.0fx cpu\n", a / b, c / d }'
