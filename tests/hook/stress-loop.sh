#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs the hook's test scripts N times in a row under a two-core CPU load
# and reports every failure (issue 20: "hook tests pass 20 times in a row
# under a two-core CPU load"). The load is two busy loops (sh -c 'while :;
# do :; done'), one per core of the 2-core machines we run on, started
# before the first round and killed at the end; tests that add a load of
# their own (fork.t) add it on top.
# Usage: tests/hook/stress-loop.sh [-n ROUNDS] [-k] [-t SECONDS] [SCRIPT.t...]
#   -n ROUNDS   rounds (default 20)
#   -k          go on after a failing round (default: stop after it)
#   -t SECONDS  a script still running after SECONDS is a failure (600)
#   SCRIPT.t    the scripts to run (default: every tests/hook/*.t)
# Run from the top of the tree; B is the build folder (default build), as
# for every test. Prints "round R NAME ok|FAILED SECONDS" per script, keeps
# the output of each failure in $LOG (default /tmp/fk-hookstress.PID), and
# ends with "ROUNDS rounds, RUNS runs, FAILED failed"; exit 0 when none
# failed, 1 otherwise, 2 for bad usage.
set -u
rounds=20 keep=0 limit=600
usage() { echo "usage: tests/hook/stress-loop.sh [-n ROUNDS] [-k] [-t SECONDS] [SCRIPT.t...]" >&2; exit 2; }
while getopts n:kt:h o; do
	case $o in
	n) rounds=$OPTARG ;;
	k) keep=1 ;;
	t) limit=$OPTARG ;;
	h) echo "usage: tests/hook/stress-loop.sh [-n ROUNDS] [-k] [-t SECONDS] [SCRIPT.t...]"; exit 0 ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
case $rounds in '' | *[!0-9]*) usage ;; esac
case $limit in '' | *[!0-9]*) usage ;; esac
[ $# -gt 0 ] || set -- tests/hook/*.t
for s in "$@"; do [ -x "$s" ] || { echo "stress-loop: $s: not an executable test script" >&2; exit 2; }; done

B=${B:-build}
export B
LOG=${LOG:-/tmp/fk-hookstress.$$}
mkdir -p "$LOG" || exit 1
load=""
stop() { for p in $load; do kill "$p" 2>/dev/null; done; }
trap stop EXIT
trap 'exit 1' INT TERM
for _ in 1 2; do
	sh -c 'while :; do :; done' &
	load="$load $!"
done

runs=0 failed=0 r=1
while [ "$r" -le "$rounds" ]; do
	bad=0
	for s in "$@"; do
		name=$(basename "$s")
		out=$LOG/$r.$name.out
		start=$(date +%s.%N)
		timeout -k 10 "$limit" "$s" >"$out" 2>&1
		st=$?
		took=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
		runs=$((runs + 1))
		if [ "$st" = 0 ] && ! grep -q '^not ok' "$out"; then
			echo "round $r $name ok $took"
			rm -f "$out"
		else
			why="exit $st"
			[ "$st" = 124 ] && why="timed out after $limit s"
			echo "round $r $name FAILED $took ($why; $(grep -c '^not ok' "$out") not ok; $out)"
			grep '^not ok' "$out" | head -n 5 | sed 's/^/    /'
			failed=$((failed + 1)) bad=1
		fi
	done
	[ "$bad" = 1 ] && [ "$keep" = 0 ] && break
	r=$((r + 1))
done
[ "$r" -gt "$rounds" ] && r=$rounds
echo "$r rounds, $runs runs, $failed failed"
[ "$failed" = 0 ] && rmdir "$LOG" 2>/dev/null
[ "$failed" = 0 ]
