#!/bin/sh
# SPDX-License-Identifier: MIT
# Benchmark of to-pprof: a 100k-stack synthetic dump (bench/gen-dump) and
# the real gcc cc1 dump after symbolize. Prints, per input, the median wall
# time, CPU time (user + system, less inflated by a busy machine) and peak
# RSS (/usr/bin/time -v) of several runs, our file's size, and the size of
# the same profile re-encoded by `go tool pprof -proto` with the ratio
# (the goal: at most 1 s for 100k stacks, at most 1.1x Go's size).
# Usage: bench/pprof.sh [RUNS] [STACKS]   (defaults 7 and 100000)
# Build first: make B=DIR, then B=DIR bench/pprof.sh.
set -eu
. "$(dirname "$0")/lib.sh"
bench_init
runs=${1:-7}
nstacks=${2:-100000}

for t in "$B/to-pprof" "$B/symbolize" /usr/bin/time go bench/gen-dump; do
	command -v "$t" >/dev/null 2>&1 || { echo "bench: missing $t" >&2; exit 1; }
done

bench/gen-dump --stacks "$nstacks" >"$tmp/synth.prof"
"$B/symbolize" fixtures/dumps/cc1.prof >"$tmp/cc1.sym" 2>/dev/null

load=$(cut -d' ' -f1-3 /proc/loadavg)
echo "load average before: $load"
printf '%-28s %8s %8s %10s %10s %10s %6s\n' input "wall s" "cpu s" "peak KB" "ours B" "go B" ratio
for input in synth.prof cc1.sym; do
	"$B/to-pprof" -o "$tmp/$input.pb.gz" "$tmp/$input"
	measure "t-$input" "'$B/to-pprof' -o '$tmp/out.pb.gz' '$tmp/$input'"
	go tool pprof -proto -symbolize=none "$tmp/$input.pb.gz" >"$tmp/go.pb.gz" 2>/dev/null
	ours=$(wc -c <"$tmp/$input.pb.gz")
	theirs=$(wc -c <"$tmp/go.pb.gz")
	stacks=$(grep -c '^@' "$tmp/$input" || true)
	printf '%-28s %8s %8s %10s %10s %10s %6s\n' "$input ($stacks stacks)" \
		"$(median "t-$input" 1)" "$(median "t-$input" 3)" "$(median "t-$input" 2)" \
		"$ours" "$theirs" "$(awk -v a="$ours" -v b="$theirs" 'BEGIN { printf "%.3f", a / b }')"
done
echo "runs: $runs each"
