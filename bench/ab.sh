#!/bin/sh
# SPDX-License-Identifier: MIT
# Side by side: the same command with two builds, runs interleaved (A, B,
# A, B, ...) so that a busy machine slows both alike. Prints, per build,
# the median wall time, CPU time (user + system) and peak RSS, and B's
# change against A. Used to check that a change keeps speed (HACKING.md).
# Usage: bench/ab.sh A_BUILD B_BUILD RUNS 'COMMAND with $B for the build'
#   bench/ab.sh /tmp/old build 15 '$B/symbolize fixtures/dumps/cc1.prof | $B/to-folded'
set -eu
[ $# -eq 4 ] || { echo "usage: bench/ab.sh A_BUILD B_BUILD RUNS COMMAND" >&2; exit 2; }
A=$1 Bb=$2 total=$3 cmd=$4
. "$(dirname "$0")/lib.sh"
bench_init
# Warm the page cache once with each.
B=$A sh -c "$cmd" >/dev/null 2>&1 || true
B=$Bb sh -c "$cmd" >/dev/null 2>&1 || true
measure_pair all_a "B=$A; $cmd" all_b "B=$Bb; $cmd" "$total"
wa=$(median all_a 1) ca=$(median all_a 3) ra=$(median all_a 2)
wb=$(median all_b 1) cb=$(median all_b 3) rb=$(median all_b 2)
echo "runs: $total each, interleaved; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "A $A: wall ${wa} s, cpu ${ca} s, peak RSS $((ra / 1024)) MB"
echo "B $Bb: wall ${wb} s, cpu ${cb} s, peak RSS $((rb / 1024)) MB"
awk -v a="$wa" -v b="$wb" -v ca="$ca" -v cb="$cb" 'BEGIN {
	printf "B against A: wall %+.1f %%, cpu %+.1f %%\n", (b / a - 1) * 100, (cb / ca - 1) * 100 }'
