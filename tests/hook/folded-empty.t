#!/bin/sh
# SPDX-License-Identifier: MIT
# Folded text without a line is never an empty 200 (DESIGN.md: what the
# hook cannot give it says in one sentence). An idle host with sampling
# on holds no sampled allocation in use: the live heap's folded text, a
# snapshot's, and the growth between two snapshots with nothing done in
# between have no line, and each is a 409 with a sentence saying why
# (nginx's master, and its workers between requests, answered an empty
# 200): nothing sampled yet, or all of it freed, each said as it is. The same requests with something to show stay 200.
. "$(dirname "$0")/hooklib.sh"
port=$(free_port)
U=http://127.0.0.1:$port
snap() { cu -X POST -H 'X-Flamekit: 1' "$U/internal/heap/snapshot" | python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])' 2>/dev/null; }

check "host started" start_host "127.0.0.1:$port" FLAMEKIT_SNAPSHOT_S=0 MALLOC_CONF=lg_prof_sample:12
pid=$HOST_PID
check "the hook serves" wait_http "$U/"
enable "$U"
is "sampling on" "$(code)" 200

b=$(cu "$U/internal/heap?format=folded")
is "idle, sampling on: the live heap's folded text is 409" "$(code)" 409
like "it says nothing has been sampled yet (not that it was freed)" "$b" \
	"^nothing has been sampled yet in process $pid since sampling was turned on"
cu "$U/debug/pprof/heap" >/dev/null
is "the pprof of the same heap stays 200 (its four sample types)" "$(code)" 200
cu "$U/internal/heap?format=flame" >"$T/idle.svg"
is "the flame page stays 200" "$(code)" 200
check "and says no stack has a value" grep -q 'no stack has a value' "$T/idle.svg"

s1=$(snap)
like "a snapshot of the idle heap" "$s1" '^[0-9]+$'
b=$(cu "$U/internal/heap?snapshot=$s1&format=folded")
is "that snapshot's folded text is 409" "$(code)" 409
like "it says no sampled allocation was in use then" "$b" "^no sampled allocation was in use at snapshot $s1"

check "64 blocks kept" host_cmd "grow 64" '^grown'
cu "$U/internal/heap?format=folded" >"$T/live.folded"
is "with blocks kept: the live folded text is 200" "$(code)" 200
check "with lines in hog_grow_cache" grep -q 'hog_grow_cache' "$T/live.folded"
s2=$(snap)
s3=$(snap)
cu "$U/internal/heap?base=$s1&snapshot=$s2&format=folded" >"$T/grew.folded"
is "the growth from $s1 to $s2 is 200" "$(code)" 200
check "with lines in hog_grow_cache" grep -q 'hog_grow_cache' "$T/grew.folded"
b=$(cu "$U/internal/heap?base=$s2&snapshot=$s3&format=folded")
is "nothing done between $s2 and $s3: their growth's folded text is 409" "$(code)" 409
like "it says no stack grew" "$b" "^no stack grew from snapshot $s2 to snapshot $s3"
b=$(cu "$U/internal/heap?base=$s3&format=folded")
is "nor since $s3: 409" "$(code)" 409
like "it says no stack grew to now" "$b" "^no stack grew from snapshot $s3 to now"
check "the blocks freed" host_cmd "free" '^freed'
b=$(cu "$U/internal/heap?format=folded")
is "all sampled blocks freed: the live heap's folded text is 409" "$(code)" 409
like "it says all that was sampled has been freed, where the allocations are counted" "$b" \
	"^no sampled allocation is in use in process $pid: .*all that was sampled has been freed.*/debug/pprof/allocs\\?pid=$pid"
stop_host
is "host exits 0" "$?" 0

# Sampling turned off before anything was allocated: the sentence says
# that it is off, and how to turn it on in that process.
check "a second host started" start_host "127.0.0.1:$port" FLAMEKIT_SNAPSHOT_S=0
pid=$HOST_PID
check "the hook serves" wait_http "$U/"
enable "$U"
cu -X POST -H 'X-Flamekit: 1' "$U/internal/heap/settings?enabled=false" >/dev/null
is "sampling off again" "$(code)" 200
b=$(cu "$U/internal/heap?format=folded")
is "its folded text is 409" "$(code)" 409
like "it says sampling is off in that process and how to turn it on" "$b" \
	"^no sampled allocation is in use in process $pid, and sampling is off in it: turn it on with POST /internal/heap/settings\\?enabled=true&pid=$pid"
stop_host
is "host exits 0" "$?" 0
echo "1..$tn"
