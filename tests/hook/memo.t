#!/bin/sh
# SPDX-License-Identifier: MIT
# What the hook keeps from one scrape for the next (capture/serve_memo.c):
# the same heap asked the same way gets the answer made last time, a pprof
# stamped with the new request's time; a changed heap gets a new answer
# with its new figures (its stacks' addresses taken from the stack memo);
# the flame page and folded text kept the same way, a page stamped with
# the new request's time as a pprof is; everything given back
# when sampling goes off; nothing kept with FLAMEKIT_CACHE_MB=0, and the
# answers the same.
. "$(dirname "$0")/hooklib.sh"
export PPROF_TMPDIR=$T HOME=$T
HERE=$(dirname "$0")

port=$(free_port)
U=http://127.0.0.1:$port
# memo KEY: a memo_ field of the settings.
memo() { jfield "$(cu "$U/internal/heap/settings")" "memo_$1"; }
# get NAME PATH: GET into $T/NAME; the status into $T/status.
get() { curl -s -o "$T/$1" -w '%{http_code}' --max-time 60 "$U$2" >"$T/status" 2>/dev/null; }
# raw NAME: go tool pprof -raw of $T/NAME less its Time line.
raw() { go tool pprof -raw "$T/$1" 2>/dev/null | grep -v '^Time:'; }
pc() { jfield "$(python3 "$HERE/pprofcheck.py" "$T/$1")" "$2"; }
inuse() { python3 "$HERE/pprofcheck.py" "$T/$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["totals"]["inuse_space/bytes"])'; }
# hit_pair NAME PATH: fetches PATH until one answer is given back from the
# memo (the first conversions load modules and map files, which changes
# the dump's maps: at most 5 tries); the answer before it in NAME.a, the
# one given back in NAME.b. Fails when none is.
hit_pair() {
	get "$1.b" "$2" || return 1
	k=0
	while [ $k -lt 5 ]; do
		mv "$T/$1.b" "$T/$1.a"
		h0=$(memo hits)
		get "$1.b" "$2" || return 1
		[ "$(memo hits)" -gt "$h0" ] && return 0
		k=$((k + 1))
	done
	return 1
}

start_host 127.0.0.1:$port MALLOC_CONF=lg_prof_sample:12
check "host started" wait_http "$U/internal/heap/settings"
is "no memo before the first scrape" "$(memo stacks)" 0
enable "$U" "&lg_sample=12"
check "host keeps 20 blocks" host_cmd "grow 20" '^grown 20$'

check "an unchanged heap's pprof is given back from the memo" hit_pair h /debug/pprof/heap
check "it is gzip" gzip -t "$T/h.b"
raw h.a >"$T/h.a.raw"; raw h.b >"$T/h.b.raw"
check "go tool pprof reads both" sh -c "grep -q '^Samples:' '$T/h.a.raw' && grep -q '^Samples:' '$T/h.b.raw'"
check "the same profile but for its time" cmp -s "$T/h.a.raw" "$T/h.b.raw"
ta=$(pc h.a time_nanos); tb=$(pc h.b time_nanos)
check "each stamped with its own request's time ($ta, $tb)" [ "$tb" -gt "$ta" ]
check "the stacks are kept ($(memo stacks))" [ "$(memo stacks)" -gt 0 ]
check "and counted in memo_bytes" [ "$(memo bytes)" -gt 0 ]

before=$(inuse h.b)
check "host keeps 5 more blocks" host_cmd "grow 5" '^grown 25$'
m0=$(memo misses)
get h.c /debug/pprof/heap
is "a changed heap: a new answer" "$(memo misses)" $((m0 + 1))
after=$(inuse h.c)
check "with the new blocks ($before -> $after bytes in use)" [ "$after" -gt "$before" ]
check "go tool pprof reads it" sh -c "go tool pprof -top '$T/h.c' >'$T/h.c.top' 2>&1 && grep -q hog_grow_cache '$T/h.c.top'"

check "an unchanged heap's flame page is given back" hit_pair f '/internal/heap?format=flame'
sed '/^time=[0-9]*$/d' "$T/f.a" >"$T/f.a.less"; sed '/^time=[0-9]*$/d' "$T/f.b" >"$T/f.b.less"
check "byte for byte but its time" cmp -s "$T/f.a.less" "$T/f.b.less"
check "and well-formed" xmllint --noout "$T/f.b"
# A second later, the page given back says when it was asked for.
sleep 1
h0=$(memo hits); get f.c '/internal/heap?format=flame'
is "a second later, given back again" "$(memo hits)" $((h0 + 1))
tb=$(sed -n 's/^time=//p' "$T/f.b"); tc=$(sed -n 's/^time=//p' "$T/f.c")
check "with the time of its request ($tb, then $tc)" [ "$tc" -gt "$tb" ]
sed '/^time=[0-9]*$/d' "$T/f.c" >"$T/f.c.less"
check "and nothing else changed" cmp -s "$T/f.b.less" "$T/f.c.less"
check "folded text too" hit_pair t '/internal/heap?format=folded'
check "byte for byte (folded)" cmp -s "$T/t.a" "$T/t.b"
get t.o '/internal/heap?format=folded&max_samples=1'
get f.inv '/internal/heap?format=flame&title=Another+title'
check "another request's options get their own page" sh -c "! cmp -s '$T/f.inv' '$T/f.b'"
check "with its title, naming the blocks' function" sh -c "grep -q 'Another title' '$T/f.inv' && grep -q hog_grow_cache '$T/f.inv'"

cu -X POST -H 'X-Flamekit: 1' "$U/internal/heap/settings?enabled=false" >/dev/null
is "sampling off: the memo's stacks go" "$(memo stacks)" 0
is "and its answers" "$(memo bytes)" 0
check "host stops" stop_host

port=$(free_port)
U=http://127.0.0.1:$port
start_host 127.0.0.1:$port MALLOC_CONF=lg_prof_sample:12 FLAMEKIT_CACHE_MB=0
check "host with FLAMEKIT_CACHE_MB=0 started" wait_http "$U/internal/heap/settings"
enable "$U" "&lg_sample=12"
check "host keeps 20 blocks" host_cmd "grow 20" '^grown 20$'
get n.a /debug/pprof/heap; get n.b /debug/pprof/heap
is "the pprof served" "$(code)" 200
is "nothing kept" "$(memo stacks) $(memo bytes) $(memo hits)" "0 0 0"
raw n.a >"$T/n.a.raw"; raw n.b >"$T/n.b.raw"
check "the same profile each time" sh -c "grep -q hog_grow_cache '$T/n.a.raw' && cmp -s '$T/n.a.raw' '$T/n.b.raw'"
check "host stops" stop_host
echo "1..$tn"
