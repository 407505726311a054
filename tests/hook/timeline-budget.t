#!/bin/sh
# SPDX-License-Identifier: MIT
# FLAMEKIT_SNAPSHOT_MB covers what serving the timeline costs, not the ring
# alone (issue 22 item 4): the ring thins so that its bytes and the
# timeline's (24 bytes a stack a snapshot) stay within the budget, and the
# settings say both; the timeline of what is kept is served.
. "$(dirname "$0")/hooklib.sh"
port=$(free_port)
U=http://127.0.0.1:$port
rm -f "$T/in"; mkfifo "$T/in"; HOST_OUT=$T/host.out; : >"$HOST_OUT"
env LD_PRELOAD="$HOOK $JE" FLAMEKIT_HTTP=127.0.0.1:$port FLAMEKIT_SNAPSHOT_S=0 FLAMEKIT_SNAPSHOT_MB=4 \
	MALLOC_CONF=prof:true,prof_active:true,lg_prof_sample:0 \
	"$B/hook-bench-prog" stacks 12 <"$T/in" >"$HOST_OUT" 2>"$T/host.err" &
HOST_PID=$!; PIDS="$PIDS $HOST_PID"
exec 3>"$T/in"
check "host ready" wait_line '^ready'
check "host serves" wait_http "$U/internal/heap/settings"
k=0; bad=0
while [ $k -lt 60 ]; do
	cu -X POST -H 'X-Flamekit: 1' "$U/internal/heap/snapshot" >/dev/null
	[ "$(code)" = 200 ] || bad=$((bad + 1))
	k=$((k + 1))
done
is "60 snapshots taken" "$bad" 0
s=$(cu "$U/internal/heap/settings")
n=$(jfield "$s" snapshots); rb=$(jfield "$s" snapshot_bytes); tb=$(jfield "$s" timeline_bytes)
check "the settings give the timeline's bytes ($tb)" [ "${tb:-0}" -gt 0 ]
check "ring ($rb) and timeline ($tb) within the 4 MiB budget, $n snapshots kept" \
	[ $(( ${rb:-0} + ${tb:-0} )) -le 4194304 ]
check "more than one snapshot kept ($n)" [ "${n:-0}" -gt 1 ]
check "fewer than all 60" [ "${n:-60}" -lt 60 ]
cu "$U/internal/heap/timeline?format=folded" >"$T/tl"
is "the timeline is served" "$(code)" 200
cols=$(head -1 "$T/tl" | wc -w)
is "with a column per snapshot kept" "$((cols - 2))" "$n"
exec 3>&-
echo "1..$tn"
