#!/bin/sh
# SPDX-License-Identifier: MIT
# A worker cannot hurt its listener through what it answers (issue 32
# item 4). A registered worker (fake_worker.py, a process of the same
# user, which the registry takes) answers:
# 1. settings whose last value runs to the end of the answer unquoted: the
#    list showed bytes of an earlier answer past its end (the settings
#    were copied without a NUL and read with strcspn; AddressSanitizer:
#    heap-buffer-overflow in json_field); now only the answer's own;
# 2. 64 MiB to everything: the list buffered it all (the listener's VmHWM
#    grew by 190 MB), now it keeps 64 KiB of a settings answer and lists
#    the worker with why; a proxied profile is streamed, byte for byte,
#    and the listener's peak memory grows by less than 16 MB.
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

# 1. Bytes past the answer.
check "a fake worker registers" fake leak
check "it is listed" wait_secs 10 listed
bad=""
for i in 1 2 3 4 5 6 7 8; do
	cu "$U/internal/heap/processes" >"$T/list"
	j=$(field jemalloc)
	case $j in '[null]' | '["m in x"]') ;; *) bad="$bad $j" ;; esac
done
is "8 lists show nothing of the worker but its answer's own bytes" "${bad:-none}" none
is "the list is still 200" "$(code)" 200
kill "$FP"

# 2. 64 MiB answers. The mark first: listing the worker reads its answer.
cu "$U/internal/heap?format=raw" >/dev/null
before=$(hwm)
check "a fake worker that answers 64 MiB registers" fake big 67108864
check "it is listed" wait_secs 10 listed
t=$(t0)
cu "$U/internal/heap/processes" >"$T/list"
took=$(since "$t")
is "the list: 200" "$(code)" 200
like "its settings answer is refused, with why" "$(field error)" "larger than 64 KiB"
check "within 2 s ($took s)" le "$took" $((2 + SLACK))
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
