#!/bin/sh
# SPDX-License-Identifier: MIT
# The hook never hangs, wedges or endangers its host (issue 12, items 1-6):
# exit() and fk_hook_stop() while requests are in flight, the listening
# socket after the connection limit, bounded deferred requests and clients
# that leave, the signal dump and planted symlinks, a forked child's
# signal, and hostile request targets and headers.
. "$(dirname "$0")/hooklib.sh"

# wait_gone PID SECONDS: waits (bounded) until PID has exited or is a zombie.
wait_gone() {
	i=0
	while [ $i -lt $(($2 * 10)) ]; do
		st=$(awk '/^State:/ { print $2 }' "/proc/$1/status" 2>/dev/null)
		[ -z "$st" ] || [ "$st" = Z ] && return 0
		sleep 0.1; i=$((i + 1))
	done
	return 1
}
dumps() { cu "$1/internal/heap/settings" | sed -n 's/.*"dumps_served":\([0-9]*\).*/\1/p'; }
# wait_dumps URL N: waits (30 s at most) until N dumps were served.
wait_dumps() {
	i=0
	while [ $i -lt 300 ]; do
		n=$(dumps "$1"); [ "${n:-0}" -ge "$2" ] && return 0
		sleep 0.1; i=$((i + 1))
	done
	return 1
}
# loop_get URL...: fetches each URL again and again in the background.
loop_get() {
	for u in "$@"; do
		( while :; do curl -s -o /dev/null --max-time 60 "$u"; done ) &
		PIDS="$PIDS $!"; LOOPS="$LOOPS $!"
	done
}
between() { [ -n "$1" ] && [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }
too_long() { [ "$1" = 414 ] || [ "$1" = 431 ]; }
regular() { [ -f "$1" ] && [ ! -L "$1" ]; }
stop_loops() { for p in $LOOPS; do kill "$p" 2>/dev/null; done; LOOPS=""; }
LOOPS=""

# 1. A host that exits from its SIGTERM handling while flame graphs are
# being served at lg_sample=8 exits, promptly (it used to hang for ever:
# the destructor held a lock the request being served waited for).
for round in 1 2; do
	port=$(free_port); U=http://127.0.0.1:$port
	start_host 127.0.0.1:$port
	wait_http "$U/"
	host_cmd termexit '^termexit armed'
	enable "$U" '&lg_sample=8'
	host_cmd "grow 40" '^grown 40'
	host_cmd "churn 120" '^churning'
	loop_get "$U/internal/heap?format=flame" "$U/internal/heap?format=flame" "$U/internal/heap/settings"
	check "round $round: flame graphs are being served" wait_dumps "$U" 2
	kill -TERM "$HOST_PID"
	d="round $round: SIGTERM -> exit() during downloads: the host exits within 20 s"
	if wait_gone "$HOST_PID" 20; then ok "$d"; else notok "$d"; kill -9 "$HOST_PID"; fi
	wait "$HOST_PID"; st=$?
	is "round $round: and its exit status is exit()'s" "$st" 0
	stop_loops
	exec 3>&-
done

# 2. fk_hook_stop() while requests are in flight returns.
port=$(free_port); U=http://127.0.0.1:$port
"$B/hook-api-prog" 127.0.0.1:$port 3 >"$T/api" 2>"$T/api.err" &
ap=$!; PIDS="$PIDS $ap"
wait_http "$U/"
loop_get "$U/internal/heap/settings" "$U/internal/heap/settings" "$U/internal/heap?format=flame"
d="fk_hook_stop() during requests returns (program done within 30 s)"
if wait_gone "$ap" 30; then ok "$d"; else notok "$d"; kill -9 "$ap"; fi
stop_loops
like "and the server is stopped" "$(cat "$T/api")" 'stopped.serving 0'

# 3. The connection limit: once every slot was taken and one is freed, a
# new client is served at once (libmicrohttpd 0.9.75 takes the listening
# socket out of its poll set at the limit and needs to be run again).
port=$(free_port); U=http://127.0.0.1:$port
start_host 127.0.0.1:$port
wait_http "$U/"
cat >"$T/fill.py" <<'EOF'
import socket, sys, time
port = int(sys.argv[1]); n = int(sys.argv[2])
def queue():
    hp = ":%04X" % port
    for line in open("/proc/net/tcp"):
        f = line.split()
        if f[1].endswith(hp) and f[3] == "0A":
            return int(f[4].split(":")[1], 16)
    return -1
socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(n)]
end = time.time() + 20
while queue() != 0 and time.time() < end:
    time.sleep(0.02)
print("accepted" if queue() == 0 else "not accepted", flush=True)
socks.pop().close()
print("one closed", flush=True)
sys.stdin.read()
EOF
# clients NAME PATTERN TENTHS: runs $T/NAME.py with 64 clients of $port,
# its stdin a FIFO held on fd 4 (close it to end the script), and waits
# at most TENTHS tenths of a second for its line matching PATTERN; its pid
# in CPID.
clients() {
	mkfifo "$T/$1.in"
	python3 "$T/$1.py" "$port" 64 <"$T/$1.in" >"$T/$1.out" 2>&1 &
	CPID=$!; PIDS="$PIDS $CPID"
	exec 4>"$T/$1.in"
	i=0; while ! grep -q "$2" "$T/$1.out" && [ $i -lt "$3" ]; do sleep 0.1; i=$((i + 1)); done
}
clients fill '^one closed' 300
check "64 connections took every slot" grep -q '^accepted' "$T/fill.out"
curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$U/internal/heap/settings" >"$T/c" 2>/dev/null
is "a slot freed at the limit serves a new client at once" "$(cat "$T/c")" 200
exec 4>&-
wait "$CPID"
curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$U/internal/heap/settings" >"$T/c" 2>/dev/null
is "and after every client left" "$(cat "$T/c")" 200
stop_host

# 4. 64 deferred requests (?seconds=3600): a bounded number waits, the
# others get 503 with a sentence, settings still answer, and the slots of
# clients that went away are freed.
port=$(free_port); U=http://127.0.0.1:$port
start_host 127.0.0.1:$port
wait_http "$U/"
enable "$U"
host_cmd "grow 5" '^grown 5'
cat >"$T/defer.py" <<'EOF'
import select, socket, sys, time
port = int(sys.argv[1]); n = int(sys.argv[2])
req = b"GET /debug/pprof/heap?seconds=3600 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
socks = []
for _ in range(n):
    s = socket.create_connection(("127.0.0.1", port)); s.sendall(req); socks.append(s)
got = {}
end = time.time() + 30
while time.time() < end:
    waiting = [s for s in socks if s not in got]
    r, _, _ = select.select(waiting, [], [], 2.0)
    if not r:
        if len(got) > 0:
            break
        continue
    for s in r:
        got[s] = s.recv(65536)
codes = [g.split(b" ")[1].decode() if g.startswith(b"HTTP/") else "eof" for g in got.values()]
print("answered %d waiting %d" % (len(got), n - len(got)))
print("codes " + " ".join(sorted(set(codes))))
body = [g for g in got.values() if b" 503 " in g[:20]]
print("body " + (body[0].split(b"\r\n\r\n", 1)[-1].decode().strip() if body else ""), flush=True)
sys.stdin.read()
EOF
clients defer '^body' 400
w=$(sed -n 's/^answered \([0-9]*\) waiting \([0-9]*\)/\2/p' "$T/defer.out")
check "64 deferred requests: a few wait (${w:-none}), not every one" between "$w" 1 16
is "the others are answered 503" "$(sed -n 's/^codes //p' "$T/defer.out")" 503
like "with a sentence" "$(sed -n 's/^body //p' "$T/defer.out")" 'too many delta profiles|this client already waits on 4 delta profiles'
curl -s -o /dev/null -w '%{http_code}' --max-time 10 "$U/internal/heap/settings" >"$T/c" 2>/dev/null
is "settings answer while they wait" "$(cat "$T/c")" 200
exec 4>&-
wait "$CPID"
# The waiting clients are gone: their slots come back (bounded retries).
i=0; c=""
while [ $i -lt 20 ]; do
	c=$(curl -s -o "$T/delta" -w '%{http_code}' --max-time 10 "$U/debug/pprof/heap?seconds=1" 2>/dev/null)
	[ "$c" = 200 ] && break
	sleep 0.5; i=$((i + 1))
done
is "clients that left free their deferred slots (a new ?seconds=1 gets 200)" "$c" 200
stop_host

# 5. The signal dump never writes through a planted symlink.
mkdir "$T/dumps"
echo precious >"$T/victim"; echo precious >"$T/victim2"
start_as sig env LD_PRELOAD="$HOOK $JE" MALLOC_CONF=prof:true,prof_active:true,lg_prof_sample:14 \
	FLAMEKIT_DUMP_SIGNAL=USR2 FLAMEKIT_DUMP_DIR="$T/dumps" "$B/hook-alloc-prog"
host_cmd "grow 10" '^grown 10'
ln -s "$T/victim" "$T/dumps/flamekit.$HOST_PID.0.heap.tmp"
ln -s "$T/victim2" "$T/dumps/flamekit.$HOST_PID.0.heap"
kill -USR2 "$HOST_PID"
i=0; while [ -L "$T/dumps/flamekit.$HOST_PID.0.heap" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
is "a symlink planted at the temporary name is not followed" "$(head -c 20 "$T/victim")" precious
is "nor one planted at the final name" "$(head -c 20 "$T/victim2")" precious
check "the dump is a regular file of its own" regular "$T/dumps/flamekit.$HOST_PID.0.heap"
check "and a valid dump" "$B/jeprof-raw" --check "$T/dumps/flamekit.$HOST_PID.0.heap"
stop_host

# 6. A signal sent to a forked child never makes the parent dump (the
#    child, a worker with a thread of its own, may dump itself).
rm -rf "$T/dumps"; mkdir "$T/dumps"
port=$(free_port); U=http://127.0.0.1:$port
start_host 127.0.0.1:$port MALLOC_CONF=prof:true,prof_active:true,lg_prof_sample:14 \
	FLAMEKIT_DUMP_SIGNAL=USR2 FLAMEKIT_DUMP_DIR="$T/dumps"
wait_http "$U/"
host_cmd fork '^forked'
child=$(awk '/^forked/ { print $2 }' "$HOST_OUT")
PIDS="$PIDS $child"
kill -USR2 "$child"
# The signal ends the child's sleep: once it is gone its handler has run.
check "the forked child handled the signal and lived on to exit" wait_gone "$child" 10
is "the parent made no dump for its child's signal" "$(dumps "$U")" 0
# The child is a worker of its own: a dump it writes is its own, named
# after its pid; the parent's pid names none.
is "and wrote no file of the parent's" "$(ls "$T/dumps" | grep -c "^flamekit\.$HOST_PID\.")" 0
kill -USR2 "$HOST_PID"
i=0; while [ ! -s "$T/dumps/flamekit.$HOST_PID.0.heap" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
check "the parent's own signal still dumps (sequence 0)" [ -s "$T/dumps/flamekit.$HOST_PID.0.heap" ]
stop_host

# 7. Hostile request targets and headers are answered at once.
port=$(free_port); U=http://127.0.0.1:$port
start_host 127.0.0.1:$port
wait_http "$U/"
q=$(python3 -c 'print("&".join(["p=1"] * 490))')
c=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$U/internal/heap/settings?$q" 2>/dev/null)
check "490 query parameters (2 KB): 414 or 431 at once (got $c)" too_long "$c"
q=$(python3 -c 'print("&".join(["p"] * 6000))')
c=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$U/internal/heap/settings?$q" 2>/dev/null)
check "6000 query parameters (12 KB): 414 or 431 at once (got $c)" too_long "$c"
cat >"$T/raw.py" <<'EOF'
import socket, sys
port = int(sys.argv[1]); head = sys.argv[2].encode().decode("unicode_escape").encode()
ver = (sys.argv[3] if len(sys.argv) > 3 else "1.1").encode()
s = socket.create_connection(("127.0.0.1", port)); s.settimeout(10)
s.sendall(b"GET /internal/heap/settings HTTP/" + ver + b"\r\n" + head + b"\r\n")
d = s.recv(65536)
print(d.split(b" ")[1].decode() if d.startswith(b"HTTP/") else "none")
EOF
is "no Host header: 400" "$(python3 "$T/raw.py" "$port" '')" 400
is "HTTP/1.0 without Host: 400" "$(python3 "$T/raw.py" "$port" 'X-A: 1\r\n' 1.0)" 400
is "two Host headers: 400" "$(python3 "$T/raw.py" "$port" 'Host: 127.0.0.1\r\nHost: evil.example\r\n')" 400
is "two Host headers, both loopback: 400" "$(python3 "$T/raw.py" "$port" 'Host: 127.0.0.1\r\nHost: localhost\r\n')" 400
is "one loopback Host header: 200" "$(python3 "$T/raw.py" "$port" 'Host: 127.0.0.1\r\n')" 200
for h in '[::1]:abc' '[::1]:' '[::1]:70000' '[::1]x' '127.0.0.1:' 'localhost:6060x'; do
	cu -H "Host: $h" "$U/internal/heap/settings" >/dev/null
	is "Host '$h' refused" "$(code)" 403
done
cu -H "Host: [::1]:$port" "$U/internal/heap/settings" >/dev/null
is "Host '[::1]:$port' accepted" "$(code)" 200
stop_host
port=$(free_port); U=http://127.0.0.1:$port
start_host 0.0.0.0:$port FLAMEKIT_HTTP_ALLOW_REMOTE=1 FLAMEKIT_TOKEN=s3cret
wait_http "$U/"
for a in 'Bearer s3cret' 'bearer s3cret' 'BEARER s3cret' 'bEaReR s3cret'; do
	cu -H "Authorization: $a" "$U/internal/heap/settings" >/dev/null
	is "Authorization '$a' accepted" "$(code)" 200
done
for a in 'bearer s3cre' 'Basic s3cret' 'bearers3cret' 'bearer' 'Bearer  wrong'; do
	cu -H "Authorization: $a" "$U/internal/heap/settings" >/dev/null
	is "Authorization '$a' refused" "$(code)" 401
done
# With remote access, one address holds at most 16 connections.
cat >"$T/perip.py" <<'EOF'
import socket, sys, time
port = int(sys.argv[1])
socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(16)]
time.sleep(0.5)
s = socket.create_connection(("127.0.0.1", port)); s.settimeout(10)
try:
    print("17th closed" if s.recv(100) == b"" else "17th answered")
except socket.timeout:
    print("17th kept open")
o = socket.socket(); o.bind(("127.0.0.2", 0)); o.settimeout(10)
o.connect(("127.0.0.1", port))
o.sendall(b"GET /internal/heap/settings HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer s3cret\r\n\r\n")
d = o.recv(100)
print("other address " + (d.split(b" ")[1].decode() if d.startswith(b"HTTP/") else "none"))
EOF
python3 "$T/perip.py" "$port" >"$T/perip.out" 2>&1
check "a 17th connection from one address is closed at once" grep -qx '17th closed' "$T/perip.out"
check "while another address is served" grep -qx 'other address 200' "$T/perip.out"
stop_host
