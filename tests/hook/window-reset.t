#!/bin/sh
# SPDX-License-Identifier: MIT
# A ?seconds=N window that a reset (a lg_sample change) cuts is never
# answered with negative counts (issue 22 item 2; it was: 200, every alloc
# value negative): a reset while sampling is on leaves the part after it,
# served 200 with a duration that says so and a comment; a reset at a time
# the hook cannot tell (sampling turned off first) is a 409 with a sentence.
. "$(dirname "$0")/hooklib.sh"
export PPROF_TMPDIR=$T HOME=$T
port=$(free_port)
U=http://127.0.0.1:$port
start_host 127.0.0.1:$port
check "host started" wait_http "$U/internal/heap/settings"
set_() { cu -X POST -H 'X-Flamekit: 1' "$U/internal/heap/settings?$1" >/dev/null; [ "$(code)" = 200 ]; }
# wait_window: until the settings count an open window (bounded).
wait_window() {
	i=0
	while [ $i -lt 300 ]; do
		cu "$U/internal/heap/settings" | grep -q '"windows_open":1,' && return 0
		sleep 0.1; i=$((i + 1))
	done
	return 1
}
# negatives FILE: the number of negative sample values of a pprof.
negatives() { go tool pprof -raw "$1" 2>/dev/null | awk '/^Samples:/ { s = 1; next } /^Locations/ { s = 0 } s && /^ *-?[0-9]/ { for (i = 1; i <= NF && $i ~ /^-?[0-9]+$/; i++) if ($i < 0) n++ } END { print n + 0 }'; }

check "sampling on at lg 14" set_ "enabled=true&lg_sample=14"
check "host allocates" host_cmd "grow 200" '^grown 200'
curl -s -o "$T/w1" -w '%{http_code}' --max-time 60 "$U/debug/pprof/allocs?seconds=4" >"$T/w1.code" &
wp=$!
check "the window is open" wait_window
check "reset at lg 12 inside the window" set_ "lg_sample=12"
check "host allocates after the reset" host_cmd "grow 20" '^grown 220'
wait $wp
is "a window cut by a reset: 200" "$(cat "$T/w1.code")" 200
is "no negative value" "$(negatives "$T/w1")" 0
go tool pprof -raw "$T/w1" >"$T/w1.raw" 2>&1
check "the comment says the window was cut by the reset" grep -q 'window cut by a reset' "$T/w1.raw"
dur=$(go tool pprof -raw "$T/w1" 2>/dev/null | sed -n 's/^Duration: *//p')
like "its duration is the part after the reset (under 4 s): $dur" "$dur" '^[0-3](\.[0-9]+)?s?$'
check "the part after the reset names hog_grow_cache" sh -c "go tool pprof -top -sample_index=alloc_space '$T/w1' 2>/dev/null | grep -q hog_grow_cache"

curl -s -o "$T/w2" -w '%{http_code}' --max-time 60 "$U/debug/pprof/allocs?seconds=4" >"$T/w2.code" &
wp=$!
check "a second window is open" wait_window
check "sampling off" set_ "enabled=false"
check "reset at lg 13 while off" set_ "lg_sample=13"
wait $wp
is "a window cut at a time not known: 409" "$(cat "$T/w2.code")" 409
like "with a sentence" "$(cat "$T/w2")" 'reset during this 4 s window'
exec 3>&-
echo "1..$tn"
