#!/bin/sh
# SPDX-License-Identifier: MIT
# The ring over its budget keeps the newest snapshot, and POST
# /internal/heap/snapshot answers the id of the snapshot it took (issue 22
# item 3): with FLAMEKIT_SNAPSHOT_MB=1 and a heap of 8k stacks, two
# snapshots pass the budget and the first is the peak; the ring dropped
# the new one and answered the old peak's id each time.
. "$(dirname "$0")/hooklib.sh"
start_sampled FLAMEKIT_SNAPSHOT_MB=1 "$B/hook-bench-prog" stacks 13
# The hook's thread may take a peak snapshot of its own between requests:
# each answer's id is later than the last one and is the ring's newest.
last=0
for k in 1 2 3 4; do
	r=$(cu -X POST -H 'X-Flamekit: 1' "$U/internal/heap/snapshot")
	is "snapshot $k: 200" "$(code)" 200
	id=$(jfield "$r" id)
	check "snapshot $k: a new id ($id after $last)" [ "${id:-0}" -gt "$last" ]
	newest=$(cu "$U/internal/heap/timeline?format=json" | python3 -c \
		'import json,sys; s=json.load(sys.stdin)["snapshots"]; print(s[-1]["id"] if s else 0)')
	is "snapshot $k: the one taken is the ring's newest" "$newest" "$id"
	last=${id:-0}
done
b=$(cu "$U/internal/heap/settings")
like "the ring is thinned to its budget" "$(jfield "$b" snapshots)" '^[12]$'
exec 3>&-
echo "1..$tn"
