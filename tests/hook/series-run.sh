#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs series-prog under jemalloc with interval dumps into DIR: the cache
# grows 1 MiB a step for 3 steps, a 6 MiB spike comes and goes, the cache
# grows 3 steps more. jemalloc (lg_prof_interval:20) writes
# DIR/series.PID.SEQ.iN.heap each MiB allocated, every allocation sampled
# (lg_prof_sample:0). The program answers each command; the run ends when
# it exits, so nothing here waits on time.
# Usage: tests/hook/series-run.sh B DIR
set -eu
B=$1 dir=$2
JE=$(ldconfig -p | awk '/libjemalloc\.so\.2 .*x86-64/ { print $NF; exit }')
[ -n "$JE" ] || JE=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2
mkdir -p "$dir"
printf 'grow 16\ngrow 16\ngrow 16\nspike 96\nunspike\ngrow 16\ngrow 16\ngrow 16\nquit\n' |
	MALLOC_CONF="prof:true,prof_prefix:$dir/series,lg_prof_interval:20,lg_prof_sample:0" \
	LD_PRELOAD="$JE" "$B/series-prog" >"$dir/answers"
# Eight commands before quit, each answered "ok".
[ "$(grep -c '^ok$' "$dir/answers")" = 8 ]
