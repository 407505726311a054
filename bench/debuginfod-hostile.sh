#!/bin/bash
# SPDX-License-Identifier: MIT
# symbolize against hostile debuginfod servers on loopback
# (tests/symbolize/hostile_debuginfod.py MODE), the DEBUGINFOD_* variables
# unset but the URL and a fresh cache: per mode, the wall time, the cache
# folder's largest size (du, sampled every 0.25 s), the bytes symbolize
# wrote in all (the kernel's wchar, its output aside) and its stderr.
# Usage: bench/debuginfod-hostile.sh [B] [MODE...] (B defaults to build;
# modes: drip endless gzip gzip-mixed huge wrong). MAXSIZE=N sets
# DEBUGINFOD_MAXSIZE. Each run is killed at 120 s.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
B=${1:-build}; shift
case "$B" in /*) ;; *) B=$top/$B ;; esac
modes=${*:-drip endless gzip gzip-mixed huge wrong}
tmp=$(mktemp -d)
srv=""
trap '[ -n "$srv" ] && kill $srv 2>/dev/null; rm -rf "$tmp"' EXIT
unset DEBUGINFOD_URLS DEBUGINFOD_TIMEOUT DEBUGINFOD_MAXSIZE DEBUGINFOD_MAXTIME \
	DEBUGINFOD_PROGRESS DEBUGINFOD_VERBOSE DEBUGINFOD_CACHE_PATH
[ -n "${MAXSIZE:-}" ] && export DEBUGINFOD_MAXSIZE=$MAXSIZE

echo 'int main(void) { return 0; }' >"$tmp/other.c"
gcc -g -O1 -Wl,--build-id -o "$tmp/prog" tests/symbolize/debuginfod-prog.c -ljemalloc &&
	gcc -g -Wl,--build-id -o "$tmp/other" "$tmp/other.c" &&
	objcopy --strip-all "$tmp/prog" &&
	MALLOC_CONF="prof:true,prof_active:true,lg_prof_sample:0,prof_final:true,prof_prefix:$tmp/heap" \
		"$tmp/prog" >/dev/null || exit 1
dump=$(ls "$tmp"/heap.*.heap | head -1)

printf '%-11s %8s %14s %14s  %s\n' mode wall_s cache_peak_B wrote_B stderr
for mode in $modes; do
	python3 tests/symbolize/hostile_debuginfod.py "$mode" "$tmp/other" >"$tmp/port" 2>/dev/null </dev/null &
	srv=$!
	for _ in $(seq 300); do [ -s "$tmp/port" ] && break; sleep 0.1; done
	rm -rf "$tmp/cache"; mkdir "$tmp/cache"
	t0=$(date +%s%N)
	DEBUGINFOD_URLS="http://127.0.0.1:$(cat "$tmp/port")" DEBUGINFOD_CACHE_PATH="$tmp/cache" \
		python3 -c '
import subprocess, sys
def wchar():
    for line in open("/proc/self/io"):
        if line.startswith("wchar:"):
            return int(line.split()[1])
w = wchar()
rc = subprocess.call(sys.argv[2:])
open(sys.argv[1], "w").write("%d\n" % (wchar() - w))
sys.exit(rc if rc >= 0 else 128 - rc)' "$tmp/wrote" timeout 120 "$B/symbolize" "$dump" >"$tmp/out" 2>"$tmp/err" &
	run=$!
	peak=0
	while kill -0 $run 2>/dev/null; do
		s=$(du -sb "$tmp/cache" 2>/dev/null | cut -f1)
		[ "${s:-0}" -gt "$peak" ] && peak=$s
		sleep 0.25
	done
	wait $run
	t=$(( ($(date +%s%N) - t0) / 1000000 ))
	w=$(( $(cat "$tmp/wrote") - $(cat "$tmp/out" "$tmp/err" | wc -c) ))
	printf '%-11s %8.1f %14d %14d  %s; left in the cache: %s\n' "$mode" "$(echo "$t / 1000" | bc -l)" \
		"$peak" "$w" "$(head -1 "$tmp/err" | cut -c1-120)" \
		"$(find "$tmp/cache" -name debuginfo -size +0 | wc -l) debug files"
	kill $srv 2>/dev/null; wait $srv 2>/dev/null; srv=""
done
