#!/bin/sh
# SPDX-License-Identifier: MIT
# FLAMEKIT_SNAPSHOT_MB covers what serving the timeline costs, not the ring
# alone (issue 22 item 4): the ring thins so that its bytes and the
# timeline's (24 bytes a stack a snapshot) stay within the budget, and the
# settings say both; the timeline of what is kept is served.
. "$(dirname "$0")/hooklib.sh"
start_sampled FLAMEKIT_SNAPSHOT_MB=4 "$B/hook-bench-prog" stacks 12
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
