#!/bin/sh
# SPDX-License-Identifier: MIT
# The hook's backtrace in a real service whose stacks go through JIT code:
# Debian's knot-resolver (kresd, LuaJIT) on loopback, started under the
# hook with sampling on, runs a Lua loop on its control socket that
# allocates through C (hints.set 60000 times). With jemalloc's own
# unwinder (libgcc's _Unwind_Backtrace, FLAMEKIT_UNWIND=jemalloc) kresd
# aborts inside it during that loop (issue 21); with the hook's it is alive
# afterwards, answers a DNS query for a name the loop added, and its
# profile has the allocations made inside the hints module (Debian's
# hints.so is stripped: its frames are hints.so+0xOFFSET), each stack
# ending at the JIT trace that called it.
. "$(dirname "$0")/hooklib.sh"
WAIT_TENTHS=300
KRESD=/usr/sbin/kresd
[ -x "$KRESD" ] || { echo "not ok 1 - $KRESD is not installed (scripts/install-deps installs knot-resolver)"; exit 1; }
case $HOOK in /*) ;; *) HOOK=$(pwd)/$HOOK ;; esac
alive() { kill -0 "$1" 2>/dev/null; }

hport=$(free_port)
dport=$(free_port)
U=http://127.0.0.1:$hport
cat >"$T/config" <<CONF
net.listen('127.0.0.1', $dport, { kind = 'dns' })
net.listen('$T/control', nil, { kind = 'control' })
modules.load('hints')
cache.size = 10 * MB
CONF
# kresd's own malloc_conf ("narenas:1") comes before the hook's: profiling
# is asked for in MALLOC_CONF. lg_prof_sample 10 from the start, so the
# loop is sampled from its first allocation.
env LD_PRELOAD="$HOOK $JE" FLAMEKIT_HTTP=127.0.0.1:$hport \
	MALLOC_CONF=prof:true,prof_active:false,prof_accum:true,lg_prof_sample:10 \
	"$KRESD" -n -c "$T/config" "$T" >"$T/kresd.out" 2>"$T/kresd.err" </dev/null &
KPID=$!
PIDS="$KPID"
check "kresd serves the hook's endpoint" wait_http "$U/internal/heap/settings"
s=$(cu "$U/internal/heap/settings")
like "profiling started in kresd" "$s" '"profiling_started":true'
is "the hook's unwinder is in use" "$(jfield "$s" unwinder)" flamekit
s=$(cu -X POST -H 'X-Flamekit: 1' "$U/internal/heap/settings?enabled=true")
like "sampling on" "$s" '"enabled":true'
check "control socket up" retry test -S "$T/control"

# ctl LUA: runs LUA on kresd's control socket, prints its answer.
ctl() {
	python3 - "$T/control" "$1" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(120)
s.connect(sys.argv[1])
s.sendall((sys.argv[2] + "\n").encode())
buf = b""
while b"\n" not in buf:
    d = s.recv(65536)
    if not d:
        break
    buf += d
print(buf.decode(errors="replace").replace("> ", "").strip())
PY
}
r=$(ctl "for i=1,60000 do hints.set('host'..i..'.fk.example 192.0.2.'..(i%250)) end return 'looped'")
like "the Lua loop ran to its end" "$r" 'looped'
check "kresd is alive after the loop" alive "$KPID"

# dns NAME: the first A record kresd answers for NAME.
a=$(python3 - "$dport" host77.fk.example <<'PY'
import socket, struct, sys
q = struct.pack(">HHHHHH", 0x4b21, 0x0100, 1, 0, 0, 0)
for label in sys.argv[2].split("."):
    q += bytes([len(label)]) + label.encode()
q += b"\0" + struct.pack(">HH", 1, 1)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(10)
try:
    s.sendto(q, ("127.0.0.1", int(sys.argv[1])))
    r = s.recv(4096)
except OSError as e:
    print("no answer: %s" % e)
    sys.exit(0)
ident, flags, qd, an = struct.unpack(">HHHH", r[:8])
ok = ident == 0x4b21 and flags & 0xf == 0 and an >= 1 and r[-6:-4] == b"\0\4"
print(".".join(str(b) for b in r[-4:]) if ok else "rcode %d, %d answers" % (flags & 0xf, an))
PY
)
is "kresd answers a DNS query for a name the loop added" "$a" 192.0.2.77

cu "$U/internal/heap?format=folded" >"$T/folded"
is "folded profile is 200" "$(code)" 200
n=$(grep -c 'hints\.so+0x' "$T/folded")
check "the profile has stacks through the hints module ($n)" [ "$n" -gt 0 ]
bytes=$(awk '/hints\.so\+0x/ { s += $NF } END { print s + 0 }' "$T/folded")
check "they hold the hints' memory (unbiased $bytes bytes, at least 1 MB)" [ "$bytes" -gt 1000000 ]
check "those stacks end at the JIT trace that called hints.set" \
	grep -q '^\[anon\]+0x[0-9a-f]*;hints\.so+0x' "$T/folded"
check "kresd is alive after serving the profile" alive "$KPID"
kill -TERM "$KPID" 2>/dev/null
wait "$KPID"
is "kresd exits 0 on SIGTERM" "$?" 0
