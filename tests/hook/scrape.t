#!/bin/sh
# SPDX-License-Identifier: MIT
# The hook as a continuous-profiling target: the rules Parca, Grafana
# Alloy and Pyroscope apply to what they scrape, replayed on the live hook
# under the fixture host. /debug/pprof/allocs and /heap with Go's four
# sample types, decoded by go tool pprof, npm pprof-format and our own
# wire reader (pprofcheck.py); alloc values cumulative, a ?seconds= window
# with duration_nanos whose alloc values are what was allocated in it and
# whose in-use values are not subtracted; ?max_samples= and
# FLAMEKIT_MAX_SAMPLES within totals; /allocs without prof_accum.
. "$(dirname "$0")/hooklib.sh"
export PPROF_TMPDIR=$T HOME=$T
HERE=$(dirname "$0")
NODE_SUMMARY=$HERE/../encode/pprof-summary.mjs

# fetch NAME PATH: GET PATH into $T/NAME (headers in $T/NAME.h); the
# status into $T/status.
fetch() {
	curl -s -D "$T/$1.h" -o "$T/$1" -w '%{http_code}' --max-time 60 "$U$2" >"$T/status" 2>/dev/null
}
# pc NAME KEY: a field of pprofcheck.py's summary of $T/NAME.
pc() { jfield "$(python3 "$HERE/pprofcheck.py" "$T/$1")" "$2"; }
total() { python3 "$HERE/pprofcheck.py" "$T/$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["totals"].get(sys.argv[1], "none"))' "$2"; }
# scraper_rules NAME WHAT: what Alloy and Pyroscope refuse, on $T/NAME.
scraper_rules() {
	is "$2: 200" "$(code)" 200
	check "$2: Content-Type application/octet-stream (Alloy)" \
		grep -qi '^Content-Type: application/octet-stream' "$T/$1.h"
	check "$2: not empty" [ -s "$T/$1" ]
	first=$(head -c 1 "$T/$1" | od -An -c | tr -d ' ')
	check "$2: neither HTML nor JSON ('$first')" sh -c '[ "$1" != "<" ] && [ "$1" != "{" ]' - "$first"
	check "$2: gzip" gzip -t "$T/$1"
	is "$2: Pyroscope's ingest rules (UTF-8, ids, 16 000 samples, 4 MiB)" "$(pc "$1" pyroscope_ok)" true
	is "$2: string 0 is empty" "$(pc "$1" string0_empty)" true
}
GO_TYPES='alloc_objects/count alloc_space/bytes inuse_objects/count inuse_space/bytes'
# within VALUE LO HI: LO <= VALUE <= HI (integers).
within() { [ "$1" -ge "$2" ] 2>/dev/null && [ "$1" -le "$3" ]; }
PY_TYPES="['alloc_objects/count', 'alloc_space/bytes', 'inuse_objects/count', 'inuse_space/bytes']"

port=$(free_port)
U=http://127.0.0.1:$port
# MALLOC_CONF sets only the starting lg (the hook's malloc_conf gives the
# rest): a thread's first sample comes after a wait drawn at it, and at the
# default 19 the 50 blocks below went unsampled in about 1 run in 500.
start_host 127.0.0.1:$port MALLOC_CONF=lg_prof_sample:12
check "host started" wait_http "$U/internal/heap/settings"
s=$(cu "$U/internal/heap/settings")
is "settings: prof_accum from the hook's default malloc_conf" "$(jfield "$s" prof_accum)" true
is "settings: the default sample limit is Pyroscope's" "$(jfield "$s" max_samples)" 16000
cu -X POST -H 'X-Flamekit: 1' "$U/internal/heap/settings?enabled=true&lg_sample=12" >/dev/null
is "sampling on at lg 12" "$(code)" 200
check "host keeps 50 blocks" host_cmd "grow 50" '^grown 50$'

fetch a1 /debug/pprof/allocs
scraper_rules a1 "/allocs"
is "/allocs: Go's four sample types" "$(pc a1 sample_types)" "$PY_TYPES"
is "/allocs: default alloc_space, as Go's allocs profile" "$(pc a1 default)" alloc_space
is "/allocs: period type space/bytes" "$(pc a1 period_type)" space/bytes
is "/allocs: a snapshot has duration_nanos 0 (Parca: not a delta)" "$(pc a1 duration_nanos)" 0
check "/allocs: time_nanos set" [ "$(pc a1 time_nanos)" -gt 1700000000000000000 ]
go tool pprof -raw "$T/a1" >"$T/raw1" 2>&1
is "go tool pprof -raw decodes /allocs with the four types, alloc_space the default" \
	"$(grep -m1 '^alloc_objects/count' "$T/raw1")" "alloc_objects/count alloc_space/bytes[dflt] inuse_objects/count inuse_space/bytes"
check "go tool pprof -raw: PeriodType space bytes" grep -q '^PeriodType: space bytes' "$T/raw1"
go tool pprof -top "$T/a1" >"$T/top1" 2>&1
check "go tool pprof shows alloc_space by default" grep -q '^Type: alloc_space' "$T/top1"
n=$(node "$NODE_SUMMARY" "$T/a1")
like "pprof-format decodes /allocs with the four types" "$n" "\"sampleTypes\":\\[\"alloc_objects/count\",\"alloc_space/bytes\",\"inuse_objects/count\",\"inuse_space/bytes\"\\]"
like "pprof-format: default alloc_space" "$n" '"defaultSampleType":"alloc_space"'
like "pprof-format: no dangling id" "$n" '"dangling":0'

fetch h1 /debug/pprof/heap
scraper_rules h1 "/heap"
is "/heap: the same four types" "$(pc h1 sample_types)" "$PY_TYPES"
is "/heap: default inuse_space, as Go's heap profile" "$(pc h1 default)" inuse_space
like "pprof-format: /heap default inuse_space" "$(node "$NODE_SUMMARY" "$T/h1")" '"defaultSampleType":"inuse_space"'

# Cumulative: alloc values never go down, also when memory is freed.
a1=$(total a1 alloc_space/bytes)
check "host keeps 20 more" host_cmd "grow 20" '^grown 70$'
fetch a2 /debug/pprof/allocs
a2=$(total a2 alloc_space/bytes); i2=$(total a2 inuse_space/bytes)
check "host frees them all" host_cmd "free" '^freed$'
check "and keeps 20 again" host_cmd "grow 20" '^grown 20$'
fetch a3 /debug/pprof/allocs
a3=$(total a3 alloc_space/bytes); i3=$(total a3 inuse_space/bytes)
check "alloc_space grows across three scrapes ($a1 < $a2 < $a3)" within "$a2" $((a1 + 1)) $((a3 - 1))
check "alloc_space grew by the 20 blocks allocated ($((a2 - a1)) of 1310720 bytes)" \
	within $((a2 - a1)) 1200000 1450000
check "in-use space fell when the blocks were freed ($i2 > $i3)" [ "$i3" -lt "$i2" ]

# A window: 100 blocks (6.5 MB) allocated while it is open.
curl -s -D "$T/w.h" -o "$T/w" -w '%{http_code}' --max-time 60 "$U/debug/pprof/allocs?seconds=4" >"$T/w.code" &
WPID=$!
i=0
while [ "$(jfield "$(cu "$U/internal/heap/settings")" windows_open)" != 1 ] && [ $i -lt 300 ]; do
	sleep 0.1; i=$((i + 1))
done
is "settings: the window is open" "$(jfield "$(cu "$U/internal/heap/settings")" windows_open)" 1
check "host keeps 100 blocks inside the window" host_cmd "grow 100" '^grown 120$'
wait "$WPID"
is "/allocs?seconds=4: 200" "$(cat "$T/w.code")" 200
check "/allocs?seconds=4: octet-stream" grep -qi '^Content-Type: application/octet-stream' "$T/w.h"
is "window: Pyroscope's ingest rules" "$(pc w pyroscope_ok)" true
is "window: the four types" "$(pc w sample_types)" "$PY_TYPES"
d=$(pc w duration_nanos)
check "window: duration_nanos is the window (4 s <= $d ns < 60 s)" within "$d" 4000000000 60000000000
check "window: time_nanos set" [ "$(pc w time_nanos)" -gt 1700000000000000000 ]
wa=$(total w alloc_space/bytes); wi=$(total w inuse_space/bytes)
check "window: alloc_space is what was allocated in it ($wa of 6553600 bytes)" \
	within "$wa" 6200000 7000000
fetch h2 /debug/pprof/heap
hi=$(total h2 inuse_space/bytes)
check "window: in-use space is the whole heap at its end, not subtracted ($wi ~ $hi)" \
	within "$wi" $((hi * 95 / 100)) $((hi * 105 / 100))
check "window: so it exceeds what was allocated in it ($wi > $wa)" [ "$wi" -gt $((wa * 11 / 10)) ]
go tool pprof -sample_index=alloc_space -top "$T/w" >"$T/topw" 2>&1
is "window: hog_grow_cache on top of alloc_space" "$(awk '/flat%/ { getline; print $NF; exit }' "$T/topw")" hog_grow_cache
fetch hw "/debug/pprof/heap?seconds=1"
is "/heap?seconds=1: 200" "$(code)" 200
is "/heap?seconds=1: default inuse_space" "$(pc hw default)" inuse_space
check "/heap?seconds=1: duration_nanos set" [ "$(pc hw duration_nanos)" -ge 1000000000 ]
fetch bad "/debug/pprof/allocs?max_samples=x"
is "max_samples=x is 400" "$(code)" 400
stop_host

# Thousands of stacks: ?max_samples and FLAMEKIT_MAX_SAMPLES keep totals.
port=$(free_port)
U=http://127.0.0.1:$port
rm -f "$T/in"; mkfifo "$T/in"; HOST_OUT=$T/host.out; : >"$HOST_OUT"
env LD_PRELOAD="$HOOK $JE" FLAMEKIT_HTTP=127.0.0.1:$port FLAMEKIT_MAX_SAMPLES=1000 \
	MALLOC_CONF=prof:true,prof_active:true,prof_accum:true,lg_prof_sample:0 \
	"$B/hook-bench-prog" stacks 12 <"$T/in" >"$HOST_OUT" 2>"$T/host.err" &
HOST_PID=$!; PIDS="$PIDS $HOST_PID"
exec 3>"$T/in"
check "a host with 4096 stacks started" wait_line '^ready'
check "it serves" wait_http "$U/internal/heap/settings"
fetch all "/debug/pprof/heap?max_samples=0"
is "max_samples=0: 200" "$(code)" 200
all=$(pc all samples)
check "a heap of thousands of stacks ($all samples)" [ "$all" -ge 4096 ]
fetch lim "/debug/pprof/heap?max_samples=100"
is "max_samples=100: 200" "$(code)" 200
lim=$(pc lim samples)
check "max_samples=100: at most 100 samples ($lim)" within "$lim" 1 100
like "the unlimited profile has totals" "$(pc all totals)" "'inuse_space/bytes': [1-9]"
is "max_samples=100: every total kept" "$(pc lim totals)" "$(pc all totals)"
like "max_samples=100: a comment says so" "$(pc lim comments)" 'max_samples 100: the [0-9]+ lightest stacks merged'
fetch env /debug/pprof/allocs
check "FLAMEKIT_MAX_SAMPLES=1000 is the default ($(pc env samples) samples)" [ "$(pc env samples)" -le 1000 ]
is "FLAMEKIT_MAX_SAMPLES: totals kept" "$(pc env totals)" "$(pc all totals)"
is "settings report it" "$(jfield "$(cu "$U/internal/heap/settings")" max_samples)" 1000
go tool pprof -top "$T/lim" >"$T/toplim" 2>&1
check "go tool pprof reads the merged profile" grep -q 'stack_leaf\|walk_' "$T/toplim"
exec 3>&-
i=0; while ! gone "$HOST_PID" && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done

# Without prof_accum: /allocs answers with what it has, and says why.
port=$(free_port)
U=http://127.0.0.1:$port
start_host 127.0.0.1:$port MALLOC_CONF=prof:true,prof_active:true,prof_accum:false,lg_prof_sample:12
check "host without prof_accum started" wait_http "$U/internal/heap/settings"
s=$(cu "$U/internal/heap/settings")
is "settings: prof_accum false" "$(jfield "$s" prof_accum)" false
like "settings: says what /allocs lacks and why" "$(jfield "$s" allocs)" 'without prof_accum'
check "host keeps 10 blocks" host_cmd "grow 10" '^grown 10$'
fetch na /debug/pprof/allocs
scraper_rules na "/allocs without prof_accum"
is "only the in-use types" "$(pc na sample_types)" "['inuse_objects/count', 'inuse_space/bytes']"
like "a comment says why" "$(pc na comments)" 'no alloc_\* values: jemalloc runs without prof_accum'
go tool pprof -top "$T/na" >"$T/topna" 2>&1
check "go tool pprof reads it ($(grep -c . "$T/topna") lines)" grep -q hog_grow_cache "$T/topna"
stop_host

echo "1..$tn"
