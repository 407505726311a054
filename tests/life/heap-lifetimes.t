#!/bin/sh
# SPDX-License-Identifier: MIT
# heap-lifetimes on a record taken from a live process (issue 24): the
# hook's format=raw of life-prog, whose memory is freed at once, after 2 s
# or never, read offline after the process is gone: each view names the
# right function on top, the median lifetimes are right (2 s within 25 %),
# and a cut or damaged record is refused with one line naming its offset.
# At lg 10 a 32 KiB block is sampled with probability 1 - e^-32: every
# block is in the record.
. "$(dirname "$0")/../hook/hooklib.sh"
# A sanitized hook cannot be preloaded into a program built without the
# sanitizers (.ci/run's sanitizer pass leaves the hook's tests out); the
# record's reader is checked there by the goldens of tests/golden/life.
if ldd "$HOOK" 2>/dev/null | grep -q libasan; then
	echo "ok 1 - a record from a live process # skip sanitized hook"
	echo "1..1"
	exit 0
fi
port=$(free_port)
start_prog "$B/life-prog" LD_PRELOAD="$HOOK $JE" FLAMEKIT_HTTP=127.0.0.1:$port \
	MALLOC_CONF=prof:true,prof_active:false,lg_prof_sample:10
H=http://127.0.0.1:$port
check "the host serves" wait_http "$H/internal/heap/settings"
enable "$H"
check "the program runs" host_cmd "run 200" '^ran 200'
check "the 2 s blocks are freed" wait_line '^released 200'
cu "$H/internal/heap/lifetimes?format=raw" >"$T/rec.life"
is "the record: 200" "$(code)" 200
stop_host

LT=$B/heap-lifetimes
# top ARGS...: the function on top of a folded view.
top() { "$LT" -f folded "$@" "$T/rec.life" | sort -t' ' -k2,2nr | head -1 | sed 's/ [0-9]*$//; s/.*;//'; }
is "sites: the temporary blocks weigh most" "$(top)" life_temporary
is "temporary: life_temporary" "$(top --view temporary --max-ms 100)" life_temporary
is "temporary within 3 s: still life_temporary (8 times the bytes)" "$(top --view temporary --max-ms 3000)" life_temporary
is "oldest: life_forever" "$(top --view oldest --min-s 1)" life_forever
is "freed: life_temporary" "$(top --view freed)" life_temporary
"$LT" "$T/rec.life" >"$T/sites.json"
fig() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
s = [x for x in d["sites"] if x["function"] == sys.argv[2]][0]
print(s["lifetime_ms"]["median"], s["records"], s["live"])' "$T/sites.json" "$1"
}
set -- $(fig life_two_seconds)
check "life_two_seconds: median 2 s within 25 % (got $1 ms)" awk -v m="$1" 'BEGIN { exit !(m >= 1500 && m <= 2500) }'
is "life_two_seconds: 200 records, none live" "$2 $3" "200 0"
set -- $(fig life_forever)
is "life_forever: live, 200 records, all live" "$1 $2 $3" "live 200 200"
set -- $(fig life_temporary)
check "life_temporary: median under 25 ms (got $1 ms)" awk -v m="$1" 'BEGIN { exit !(m >= 0 && m < 25) }'
"$LT" -f pprof -v oldest -n 1 -o "$T/o.pb.gz" "$T/rec.life"
is "pprof: life_forever on top" \
	"$("$B/from-pprof" "$T/o.pb.gz" | sort -t' ' -k2,2nr | head -1 | sed 's/ [0-9]*$//; s/.*;//')" life_forever

# Damaged records: one line naming the offset, nothing on stdout, exit 1.
refused() {
	out=$("$LT" "$T/bad.life" 2>"$T/err"); st=$?
	is "$1: exit 1" "$st" 1
	is "$1: nothing written" "$out" ""
	is "$1: one line" "$(wc -l <"$T/err")" 1
	like "$1: names the offset" "$(cat "$T/err")" "$2"
}
head -c 5000 "$T/rec.life" >"$T/bad.life"
refused "cut in the records" "^heap-lifetimes: $T/bad.life: offset [0-9]+: record [0-9]+: "
sed 's/"alloc_time":[0-9]*,//' "$T/rec.life" >"$T/bad.life"
refused "no alloc_time" "^heap-lifetimes: $T/bad.life: offset [0-9]+: record 1 has no alloc_time\$"
sed '/^MAPPED_LIBRARIES:/,$d' "$T/rec.life" >"$T/bad.life"
refused "no maps" "offset [0-9]+: want MAPPED_LIBRARIES: after the records\$"
echo "1..$tn"
