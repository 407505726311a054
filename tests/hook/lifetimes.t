#!/bin/sh
# SPDX-License-Identifier: MIT
# Allocation lifetimes (issue 24): life-prog's memory is freed at once
# (life_temporary), after 2 s (life_two_seconds) or never (life_forever);
# each view of GET /internal/heap/lifetimes names the right one on top,
# the per-site median lifetime is right within 25 %, the settings say what
# the record holds, and FLAMEKIT_RECENT is checked and obeyed.
. "$(dirname "$0")/hooklib.sh"
PROG=$B/life-prog
# At lg 10 a 32 KiB block is sampled with probability 1 - e^-32: each
# function's blocks are all in the record.
CONF=prof:true,prof_active:false,lg_prof_sample:10

# start_life [ENV=VALUE...]: life-prog preloaded, serving $H.
start_life() {
	port=$(free_port)
	H=http://127.0.0.1:$port
	start_prog "$PROG" LD_PRELOAD="$HOOK $JE" FLAMEKIT_HTTP=127.0.0.1:$port MALLOC_CONF=$CONF "$@"
}
# top URL: the function on top (the heaviest folded line's leaf).
top() { cu "$1" | sort -t' ' -k2,2nr | head -1 | sed 's/ [0-9]*$//; s/.*;//'; }
# site JSON FUNCTION FIELD: a figure of that function's site.
site() {
	printf '%s' "$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
s = [x for x in d["sites"] if x["function"] == sys.argv[1]]
v = s[0] if s else {}
for k in sys.argv[2].split("."):
    v = v.get(k, {}) if isinstance(v, dict) else {}
print("null" if v == {} or v is None else v)' "$2" "$3"
}
# within GOT WANT PCT: |GOT - WANT| <= PCT % of WANT.
within() { awk -v g="$1" -v w="$2" -v p="$3" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(g != "" && d <= w * p / 100) }'; }

start_life
check "the host serves" wait_http "$H/internal/heap/settings"
s=$(cu "$H/internal/heap/settings")
like "settings: the record's bound is the default" "$s" '"lifetimes":\{"max":65536,"records":0,'
r=$(cu "$H/internal/heap/lifetimes")
is "nothing recorded before sampling: 409" "$(code)" 409
like "with a sentence saying to turn sampling on" "$r" '^no allocation recorded yet: .*enabled=true'
enable "$H"
check "the program runs" host_cmd "run 100" '^ran 100'
check "the 2 s blocks are freed" wait_line '^released 100'

is "view=temporary: life_temporary on top" \
	"$(top "$H/internal/heap/lifetimes?view=temporary&max_ms=500&format=folded")" life_temporary
is "view=oldest: life_forever on top" \
	"$(top "$H/internal/heap/lifetimes?view=oldest&min_s=1&format=folded")" life_forever
is "view=freed: life_temporary's free on top" \
	"$(top "$H/internal/heap/lifetimes?view=freed&format=folded")" life_temporary
t=$(cu "$H/internal/heap/lifetimes?view=temporary&max_ms=500&format=folded")
check "the 2 s blocks are not temporary at 500 ms" sh -c "! printf '%s' '$t' | grep -q life_two_seconds"
t=$(cu "$H/internal/heap/lifetimes?view=freed&format=folded")
check "view=freed holds the 2 s blocks' free site" sh -c "printf '%s' '$t' | grep -q 'life_release_later '"

j=$(cu "$H/internal/heap/lifetimes")
is "json: 200" "$(code)" 200
m=$(site "$j" life_two_seconds lifetime_ms.median)
check "life_two_seconds' median lifetime is 2 s within 25 % (got $m ms)" within "$m" 2000 25
m=$(site "$j" life_temporary lifetime_ms.median)
check "life_temporary's median lifetime is under 100 ms (got $m ms)" within "$m" 0 100
is "life_forever's median is live" "$(site "$j" life_forever lifetime_ms.median)" live
is "life_forever: 100 records, all live" \
	"$(site "$j" life_forever records) $(site "$j" life_forever live)" "100 100"
c=$(site "$j" life_temporary count)
check "life_temporary's count is unbiased near 800 (got $c)" within "$c" 800 5

cu "$H/internal/heap/lifetimes?view=temporary&format=pprof" >"$T/t.pb.gz"
is "pprof: 200" "$(code)" 200
is "pprof: life_temporary on top (from-pprof)" \
	"$("$B/from-pprof" "$T/t.pb.gz" | sort -t' ' -k2,2nr | head -1 | sed 's/ [0-9]*$//; s/.*;//')" life_temporary
cu "$H/internal/heap/lifetimes?view=oldest&min_s=1&format=flame&title=old" >"$T/o.svg"
check "flame: valid XML" xmllint --noout "$T/o.svg"
check "flame: names life_forever" grep -q life_forever "$T/o.svg"
cu "$H/internal/heap/lifetimes?format=flame" >"$T/page.svg"
check "the lifetimes page: valid XML" xmllint --noout "$T/page.svg"
check "the lifetimes page: a column per lifetime" grep -q 'all/bytes under-1ms/bytes .* live/bytes' "$T/page.svg"
# Each page says what the record covers and the tick of its clock: the
# coarse monotonic clock (jemalloc's without prof_time_resolution:high;
# Linux's clock id 6, which python's time module does not name).
tick=$(python3 -c 'import time; print("%g" % (time.clock_getres(6) * 1000))')
for f in page o; do
	is "$f.svg: the program" "$(page_info program "$T/$f.svg")" "$(readlink "/proc/$HOST_PID/exe")"
	is "$f.svg: the pid" "$(page_info pid "$T/$f.svg")" "$HOST_PID"
	is "$f.svg: the sample period (lg 10)" "$(page_info sample_period "$T/$f.svg")" 1024
	check "$f.svg: the records, 1000 or more ($(page_info records "$T/$f.svg"))" \
		[ "$(page_info records "$T/$f.svg")" -ge 1000 ]
	check "$f.svg: the span, over 2 s ($(page_info span_s "$T/$f.svg"))" \
		awk -v s="$(page_info span_s "$T/$f.svg")" 'BEGIN { exit !(s > 2 && s < 600) }'
	is "$f.svg: the clock's tick" "$(page_info clock_ms "$T/$f.svg")" "$tick"
done
cu "$H/internal/heap/lifetimes?format=raw" >"$T/rec.life"
is "raw: the record's first line" "$(head -1 "$T/rec.life")" flamekit-lifetimes/1
is "raw: heap-lifetimes reads it to the same top" \
	"$("$B/heap-lifetimes" -v oldest -n 1 -f folded "$T/rec.life" | sort -t' ' -k2,2nr | head -1 | sed 's/ [0-9]*$//; s/.*;//')" life_forever

s=$(cu "$H/internal/heap/settings")
rec=$(printf '%s' "$s" | python3 -c 'import json,sys; l=json.load(sys.stdin)["lifetimes"]; print(l["records"], l["oldest_seconds"] > 2, l["dropped"])')
like "settings: 1000 records or more, the oldest over 2 s old, none dropped" "$rec" '^[0-9]{4,} True None$'

cu "$H/internal/heap/lifetimes?view=weekly" >/dev/null
is "an unknown view: 400" "$(code)" 400
r=$(cu "$H/internal/heap/lifetimes?view=oldest&max_ms=5")
is "max_ms with view=oldest: 400" "$(code)" 400
like "saying what it goes with" "$r" 'max_ms goes with view=temporary'
r=$(cu "$H/internal/heap/lifetimes?view=oldest&min_s=86400&format=folded")
is "nothing that old: 409" "$(code)" 409
like "with what is held" "$r" '^none of the [0-9]+ allocations recorded \(the last [0-9]+ s\) is live after 86400 s$'
stop_host

# prof_time_resolution:high: the records on the wall clock, said in the
# record, and the lifetimes still right.
CONF0=$CONF
CONF=$CONF,prof_time_resolution:high
start_life
check "prof_time_resolution:high: serves" wait_http "$H/internal/heap/settings"
enable "$H"
check "prof_time_resolution:high: the program runs" host_cmd "run 20" '^ran 20'
check "prof_time_resolution:high: the 2 s blocks are freed" wait_line '^released 20'
cu "$H/internal/heap/lifetimes?format=raw" >"$T/rt.life"
is "the record says its clock" "$(sed -n 3p "$T/rt.life")" "clock: realtime"
m=$(site "$(cu "$H/internal/heap/lifetimes")" life_two_seconds lifetime_ms.median)
check "on the wall clock the 2 s median is right within 25 % (got $m ms)" within "$m" 2000 25
stop_host
CONF=$CONF0

# FLAMEKIT_RECENT=0: no record, said.
start_life FLAMEKIT_RECENT=0
check "FLAMEKIT_RECENT=0: serves" wait_http "$H/internal/heap/settings"
like "settings: bound 0, the problem said" "$(cu "$H/internal/heap/settings")" \
	'"lifetimes":\{"max":0,"records":null,.*"problem":"recording is off \(FLAMEKIT_RECENT=0\)"'
r=$(cu "$H/internal/heap/lifetimes")
is "FLAMEKIT_RECENT=0: 503" "$(code)" 503
like "with the sentence" "$r" '^recording is off \(FLAMEKIT_RECENT=0\)$'
stop_host

# A small bound: the list is full and says so.
start_life FLAMEKIT_RECENT=10
check "FLAMEKIT_RECENT=10: serves" wait_http "$H/internal/heap/settings"
enable "$H"
check "FLAMEKIT_RECENT=10: the program runs" host_cmd "run 20" '^ran 20'
like "settings: 10 records, the oldest dropped" "$(cu "$H/internal/heap/settings")" \
	'"lifetimes":\{"max":10,"records":10,.*"dropped":"the list is full: it holds the last 10 sampled allocations'
stop_host

# MALLOC_CONF's own bound is kept when FLAMEKIT_RECENT is not given.
CONF=$CONF,prof_recent_alloc_max:77
start_life
check "prof_recent_alloc_max:77: serves" wait_http "$H/internal/heap/settings"
like "settings: MALLOC_CONF's bound kept" "$(cu "$H/internal/heap/settings")" '"lifetimes":\{"max":77,'
stop_host

# A bad FLAMEKIT_RECENT keeps the server from starting, with one line.
for bad in 10k -1 16777217; do
	start_life FLAMEKIT_RECENT=$bad
	check "FLAMEKIT_RECENT=$bad: the host runs" host_cmd "loop 0" '^loop '
	like "FLAMEKIT_RECENT=$bad: one line naming it" "$(cat "$T/host.err")" \
		"^flamekit-hook: .*bad FLAMEKIT_RECENT '$bad': want 0 \\(no lifetimes\\) to 16777216 records\$"
	curl -s -o /dev/null --max-time 5 "$H/internal/heap/settings"
	check "FLAMEKIT_RECENT=$bad: nothing serves" [ $? != 0 ]
	stop_host
done
echo "1..$tn"
