#!/bin/sh
# SPDX-License-Identifier: MIT
# A worker cannot hurt its listener through what it answers (issue 32
# item 4). A registered worker (fake_worker.py, a process of the same
# user, which the registry takes) answers:
# 1. the list's question (one byte on its registry connection, issue 33)
#    with a line longer than any status line, a status line with a
#    control byte, and a good one in two parts: the list shows the good
#    one's words and nothing else of the worker's bytes (the list once
#    read its settings over HTTP, and showed bytes of an earlier answer
#    past its end: AddressSanitizer's heap-buffer-overflow in
#    json_field), and lists the worker with why for the others;
# 2. 16 MiB to the list's question: the listener reads it through a
#    line's buffer and lists the worker with why; and 64 MiB to
#    everything over HTTP: a proxied profile is streamed, byte for byte.
#    The listener's peak memory grows by less than 16 MB (the list once
#    buffered a 64 MiB settings answer: 190 MB).
. "$(dirname "$0")/svclib.sh"
WAIT_TENTHS=200
port=$(free_port); U=http://127.0.0.1:$port
start_host 127.0.0.1:$port FLAMEKIT_SNAPSHOT_S=0
check "host serves" wait_http "$U/"
H=$HOST_PID

# fake MODE [N]: starts a fake worker of the host; sets F to its pid.
fake() {
	: >"$T/fake.out"
	python3 tests/hook/fake_worker.py "$H" "$@" >"$T/fake.out" 2>"$T/fake.err" &
	FP=$!
	PIDS="$PIDS $FP"
	wait_secs 10 grep -q '^fake ' "$T/fake.out" || return 1
	F=$(awk '/^fake / { print $2 }' "$T/fake.out")
}
listed() { cu "$U/internal/heap/processes" | grep -q "\"pid\":$F[,}]"; }
# field KEY: KEY of the fake's entry in the list's JSON in $T/list.
field() { jpy "$(cat "$T/list")" "[p.get('$1') for p in d['processes'] if p['pid'] == $F]"; }
hwm() { awk '/^VmHWM:/ { print $2 }' "/proc/$H/status"; }

# 1. Malformed and split answers: the questions go round the three; a
# list waits for its own answer (the split one comes 0.2 s later).
check "a fake worker registers" fake lines
check "it is listed" wait_secs 10 listed
good=0 bad=0 other=""
for i in 1 2 3 4 5 6; do
	cu "$U/internal/heap/processes" >"$T/list"
	r="$(field jemalloc) $(field enabled) $(field error)"
	case $r in
	'["v, m in x"] [true] [null]') good=$((good + 1)) ;;
	"[null] [null] [\"process $F answered a malformed status line\"]") bad=$((bad + 1)) ;;
	*) other="$other $r" ;;
	esac
	grep -q ZZZ "$T/list" && other="$other (Z in the list)"
done
is "6 lists show the good answer's words or why there are none" "${other:-none}" none
check "the good answer seen ($good) and the malformed ones ($bad)" [ "$good" -ge 1 -a "$bad" -ge 2 ]
is "the list is still 200" "$(code)" 200
kill "$FP"

# 2. 16 MiB to the question, 64 MiB over HTTP. The mark first: listing
# the worker reads its answer.
cu "$U/internal/heap?format=raw" >/dev/null
before=$(hwm)
check "a fake worker that answers the question with 16 MiB registers" fake flood 16777216
check "it is listed" wait_secs 10 listed
t=$(t0)
cu "$U/internal/heap/processes" >"$T/list"
took=$(since "$t")
is "the list: 200" "$(code)" 200
is "its answer is refused, with why" "$(field error)" "[\"process $F answered a malformed status line\"]"
check "within 2 s ($took s)" le "$took" $((2 + SLACK))
kill "$FP"
check "a fake worker that answers 64 MiB registers" fake big 67108864
check "it is listed" wait_secs 10 listed
cu "$U/internal/heap/processes" >"$T/list"
is "its good status line is listed" "$(field jemalloc) $(field error)" '["v, m in x"] [null]'
curl -s --max-time 120 -o "$T/big" "$U/internal/heap?pid=$F&format=raw"
is "the proxied 64 MiB: all of it" "$(stat -c %s "$T/big")" 67108864
is "byte for byte" "$(python3 -c '
import sys
u = b"0123456789abcdef" * 4096
d = open(sys.argv[1], "rb").read()
print("same" if d == (u * (len(d) // len(u) + 1))[:len(d)] else "differs")' "$T/big")" same
after=$(hwm)
grow=$(( (after - before) / 1024 ))
check "the listener's peak memory grows by less than 16 MB (VmHWM $before -> $after kB: $grow MB)" \
	[ "$grow" -lt 16 ]
kill "$FP"
check "the host still serves" wait_http "$U/"
stop_host
echo "1..$tn"
