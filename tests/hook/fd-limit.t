#!/bin/sh
# SPDX-License-Identifier: MIT
# A host at its descriptor limit: the hook's own table is not the host's,
# so snapshots go on; below the limit the hook's table needs, the failed
# snapshots say the real cause (Too many open files) once, then a count,
# instead of a line every poll blaming /proc ("prof.dump ... failed: Bad
# address (is /proc mounted?)", 49 lines in 10 s; issue 22 item 8).
. "$(dirname "$0")/hooklib.sh"
ulimit -n 256
port=$(free_port)
U=http://127.0.0.1:$port
start_host 127.0.0.1:$port FLAMEKIT_SNAPSHOT_S=0.5 MALLOC_CONF=lg_prof_sample:12
check "host started" wait_http "$U/internal/heap/settings"
check "sampling on" enable "$U"
check "host allocates" host_cmd "grow 10" '^grown 10'
check "a first snapshot works" sh -c "sleep 1; curl -s '$U/internal/heap/timeline?format=json' | grep -q '\"id\":'"
# The hook's thread keeps its descriptors in a table of its own: a host
# that takes every descriptor of its own table leaves the hook working.
check "the host takes every descriptor of its table" host_cmd "fill 0" '^filled'
n0=$(curl -s "$U/internal/heap/timeline?format=json" | grep -o '"id":' | wc -l)
sleep 2
n1=$(curl -s "$U/internal/heap/timeline?format=json" | grep -o '"id":' | wc -l)
check "snapshots go on while the host is at its limit ($n0 -> $n1)" [ "$n1" -gt "$n0" ]
check "and nothing is said" [ ! -s "$T/host.err" ]
check "the host gives its descriptors back" host_cmd "unfill" '^unfilled'
# The limit itself applies to every table: below what the hook's own holds,
# its snapshots fail.
check "the host lowers RLIMIT_NOFILE below the hook's table" host_cmd "nofile 6" '^nofile 6'
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
	"^flamekit-hook: snapshot: (memfd_create|prof.dump failed: jemalloc cannot open /proc/thread-self/fd/[0-9]+): Too many open files \\(the hook's descriptor table holds all 6 descriptors RLIMIT_NOFILE allows\\)\$"
check "the host gives the limit back" host_cmd "nofile 256" '^nofile 256'
check "the count is told when snapshots work again" lines 2
like "as one line" "$(sed -n 2p "$T/host.err")" '^flamekit-hook: snapshot: failed [0-9]+ more times: (memfd_create|prof.dump failed)'
n=$(sed -n 's/.*failed \([0-9]*\) more times.*/\1/p' "$T/host.err")
check "counting the repeats ($n)" [ "${n:-0}" -ge 4 ]
check "host exits cleanly" stop_host
echo "1..$tn"
