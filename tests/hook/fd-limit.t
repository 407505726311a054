#!/bin/sh
# SPDX-License-Identifier: MIT
# A host at its descriptor limit: the failed snapshots say the real cause
# (jemalloc cannot open its dump file: Too many open files) once, then a
# count, instead of a line every poll blaming /proc ("prof.dump ... failed:
# Bad address (is /proc mounted?)", 49 lines in 10 s; issue 22 item 8).
. "$(dirname "$0")/hooklib.sh"
ulimit -n 256
port=$(free_port)
U=http://127.0.0.1:$port
start_host 127.0.0.1:$port FLAMEKIT_SNAPSHOT_S=0.5 MALLOC_CONF=lg_prof_sample:12
check "host started" wait_http "$U/internal/heap/settings"
check "sampling on" enable "$U"
check "host allocates" host_cmd "grow 10" '^grown 10'
check "a first snapshot works" sh -c "sleep 1; curl -s '$U/internal/heap/timeline?format=json' | grep -q '\"id\":'"
check "the host takes every descriptor but one" host_cmd "fill 1" '^filled'
# lines N: waits (30 s at most) until the host's stderr has N lines.
lines() {
	i=0
	while [ "$(wc -l <"$T/host.err")" -lt "$1" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	[ "$(wc -l <"$T/host.err")" -ge "$1" ]
}
check "a failed snapshot is told" lines 1
# Six more polls' worth of failures (a snapshot is due every 0.5 s).
sleep 3
is "and told once" "$(wc -l <"$T/host.err")" 1
like "with the real cause" "$(head -1 "$T/host.err")" \
	"^flamekit-hook: snapshot: prof.dump failed: jemalloc cannot open /proc/self/fd/[0-9]+: Too many open files \\(the process holds all 256 descriptors RLIMIT_NOFILE allows\\)\$"
check "the host gives its descriptors back" host_cmd "unfill" '^unfilled'
check "the count is told when snapshots work again" lines 2
like "as one line" "$(sed -n 2p "$T/host.err")" '^flamekit-hook: snapshot: failed [0-9]+ more times: prof.dump failed: jemalloc cannot open'
n=$(sed -n 's/.*failed \([0-9]*\) more times.*/\1/p' "$T/host.err")
check "counting the repeats ($n)" [ "${n:-0}" -ge 4 ]
check "host exits cleanly" stop_host
echo "1..$tn"
