#!/bin/sh
# SPDX-License-Identifier: MIT
# lg_sample changes are rate-limited (issue 22 item 9): each is a
# prof.reset that leaves jemalloc's profiling metadata larger for good
# (host RSS 44 -> 177 MB over 3000 of them), so 16 may come at once and
# then one every 10 s; more are 429 with a sentence, and change nothing.
. "$(dirname "$0")/hooklib.sh"
port=$(free_port)
U=http://127.0.0.1:$port
start_host 127.0.0.1:$port
check "host started" wait_http "$U/internal/heap/settings"
check "sampling on" enable "$U"
ok_n=0; k=0
while [ $k -lt 16 ]; do
	cu -X POST -H 'X-Flamekit: 1' "$U/internal/heap/settings?lg_sample=$((12 + k % 2))" >/dev/null
	[ "$(code)" = 200 ] && ok_n=$((ok_n + 1))
	k=$((k + 1))
done
is "16 lg_sample changes at once: 200" "$ok_n" 16
b=$(cu -X POST -H 'X-Flamekit: 1' "$U/internal/heap/settings?lg_sample=15")
is "the 17th: 429" "$(code)" 429
like "with a sentence" "$b" '^too many lg_sample changes: each resets the profile \(prof.reset\) and leaves jemalloc.s metadata larger for good, so 16 may come at once and then one every 10 s; try again in [0-9]+ s'
like "and nothing changed" "$(cu "$U/internal/heap/settings")" '"lg_sample":13'
cu -X POST -H 'X-Flamekit: 1' "$U/internal/heap/settings?enabled=true" >/dev/null
is "turning sampling on or off is not limited" "$(code)" 200
check "host exits cleanly" stop_host
echo "1..$tn"
