#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs series-prog under the hook and saves its timeline: the cache grows
# 1 MiB a step, a 6 MiB spike comes and goes, the cache grows again, with
# a snapshot requested after each step (each command is answered, so
# nothing here waits on time). Writes DIR/timeline.svg (the page),
# DIR/timeline.folded (the series), DIR/timeline.json, DIR/heap.svg (the
# live heap's page at the end) and DIR/pid (the program's).
# Usage: tests/hook/timeline-run.sh B DIR
set -eu
B=$1 dir=$2
JE=$(ldconfig -p | awk '/libjemalloc\.so\.2 .*x86-64/ { print $NF; exit }')
[ -n "$JE" ] || JE=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2
mkdir -p "$dir"
S=$dir/hook.sock
rm -f "$dir/in" "$S"; mkfifo "$dir/in"
env LD_PRELOAD="$B/libflamekit-hook.so $JE" FLAMEKIT_HTTP="unix:$S" FLAMEKIT_SNAPSHOT_S=0 \
	MALLOC_CONF=prof:true,prof_active:true,lg_prof_sample:12 \
	"$B/series-prog" <"$dir/in" >"$dir/answers" 2>"$dir/err" &
pid=$!
echo "$pid" >"$dir/pid"
trap 'kill -9 $pid 2>/dev/null' EXIT
exec 3>"$dir/in"
c() { curl -s --max-time 60 --unix-socket "$S" "$@"; }
i=0; while ! c -o /dev/null http://localhost/internal/heap/settings && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
n=0
for cmd in "grow 16" "grow 16" "grow 16" "spike 96" unspike "grow 16" "grow 16" "grow 16"; do
	n=$((n + 1))
	echo "$cmd" >&3
	i=0; while [ "$(grep -c '^ok$' "$dir/answers")" -lt $n ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	c -X POST -H 'X-Flamekit: 1' http://localhost/internal/heap/snapshot >/dev/null
done
# Sampling off: no snapshot comes between the three fetches (stop, then look).
c -X POST -H 'X-Flamekit: 1' "http://localhost/internal/heap/settings?enabled=false" >/dev/null
c -o "$dir/timeline.svg" http://localhost/internal/heap/timeline
c -o "$dir/timeline.folded" "http://localhost/internal/heap/timeline?format=folded"
c -o "$dir/timeline.json" "http://localhost/internal/heap/timeline?format=json"
c -o "$dir/heap.svg" "http://localhost/internal/heap?format=flame"
echo quit >&3
exec 3>&-
wait $pid
trap - EXIT
