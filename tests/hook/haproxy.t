#!/bin/sh
# SPDX-License-Identifier: MIT
# Debian's haproxy in master-worker mode (-W) under the hook (issue 33
# item 1), in front of a python3 http.server on loopback, with
# libjemalloc.so.2 preloaded after the hook. Its master forks the worker
# and then execs itself in the same pid, at start and at every reload
# (USR2): the worker rejoins the exec'd master, is listed, pid=all
# reaches it, and with connections held open its in-use heap names
# haproxy's functions (folded and pprof); after USR2 the new worker is
# listed and the old one leaves the list when it exits. No worker takes
# the address from the master, and nothing is left behind.
. "$(dirname "$0")/svclib.sh"

HA=$(command -v haproxy || echo /usr/sbin/haproxy)
[ -x "$HA" ] || { notok "$HA is not installed (scripts/install-deps installs haproxy)"; echo "1..$tn"; exit 1; }
command -v go >/dev/null || { notok "go is not installed (scripts/install-deps)"; echo "1..$tn"; exit 1; }

mkdir "$T/www"
head -c 20000 /dev/zero | tr '\0' x >"$T/www/f.txt"
BPORT=$(free_port) FPORT=$(free_port) HPORT=$(free_port)
U=http://127.0.0.1:$HPORT
(cd "$T/www" && exec python3 -m http.server --bind 127.0.0.1 "$BPORT") >"$T/backend.log" 2>&1 &
PIDS="$PIDS $!"
cat >"$T/haproxy.cfg" <<EOF
global
	nbthread 1
defaults
	mode http
	timeout connect 10s
	timeout client 60s
	timeout server 60s
frontend fe
	bind 127.0.0.1:$FPORT
	default_backend be
backend be
	server s1 127.0.0.1:$BPORT
EOF
backend_up() { curl -s -o /dev/null --max-time 3 "http://127.0.0.1:$BPORT/f.txt"; }
check "the backend serves" wait_secs 20 backend_up

# traffic N: N requests through haproxy; prints how many were 200.
front_url() { echo "http://127.0.0.1:$FPORT/f.txt?k=$1"; }
traffic() { get_many "$1" front_url; }
serving() { [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 3 "http://127.0.0.1:$FPORT/f.txt")" = 200 ]; }
workers_of() { pgrep -P "$MP" | sort -n | tr '\n' ' ' | sed 's/ $//'; }
one_worker() { [ "$(workers_of | wc -w)" -eq 1 ]; }
listed() { jpy "$(cu "$U/internal/heap/processes")" '" ".join(str(p["pid"]) for p in d["processes"])'; }
members() { printf '%s\n' "$@" | sort -n | tr '\n' ' ' | sed 's/ $//'; }
lists() { [ "$(listed)" = "$(members "$@")" ]; }
served_by_master() { [ "$(jfield "$(cu "$U/internal/heap/settings")" pid)" = "$MP" ]; }
has() { cu "$1" >"$T/p"; [ "$(code)" = 200 ] && grep -aq "$2" "$T/p"; }
# all200 JSON PIDS...: pid=all's answer says 200 for each of PIDS.
all200() {
	is "$1" "$(jpy "$2" '" ".join("%d:%d" % (p["pid"], p["status"]) for p in sorted(d["processes"], key=lambda p: p["pid"]))')" \
		"$(shift 2; for p in $(members "$@"); do printf '%s:200 ' "$p"; done | sed 's/ $//')"
}

env LD_PRELOAD="$HOOK $JE" FLAMEKIT_HTTP=127.0.0.1:$HPORT FLAMEKIT_SNAPSHOT_S=0 \
	MALLOC_CONF=prof:true,prof_active:false,prof_accum:true,lg_prof_sample:10 \
	"$HA" -W -f "$T/haproxy.cfg" >"$T/haproxy.out" 2>&1 &
MP=$!
PIDS="$PIDS $MP"
check "haproxy serves under the hook" wait_secs 20 serving
check "one worker" wait_secs 10 one_worker
W1=$(workers_of)
PIDS="$PIDS $W1"
check "the endpoint answers" wait_http "$U/"
check "the master serves the endpoint" wait_secs 10 served_by_master
check "the processes list holds the master and its worker ($MP $W1; it has '$(listed)')" \
	wait_secs 20 lists "$MP" "$W1"
s=$(cu "$U/internal/heap/settings?pid=$W1")
is "settings?pid=W: 200" "$(code)" 200
is "settings?pid=W: the worker answers" "$(jfield "$s" pid)" "$W1"
is "settings?pid=W: listener_pid is the master's" "$(jfield "$s" listener_pid)" "$MP"
r=$(post "$U/internal/heap/settings?enabled=true&pid=all")
all200 "POST enabled=true&pid=all reaches the master and the worker" "$r" "$MP" "$W1"
is "200 requests through haproxy, 200 answered 200" "$(traffic 200)" 200

# Forty connections, each halfway through a request with 3 KB of
# headers, keep the worker's session, stream and buffer memory in use
# until they close. hold.in ends them.
hold_conns "$FPORT" /f.txt 3000
check "forty connections held open" wait_secs 20 held
# listener_accept: haproxy's accept path, which only a worker runs.
check "the worker's in-use heap (folded) names haproxy's listener_accept" \
	wait_secs 20 has "$U/internal/heap?format=folded&pid=$W1" listener_accept
cu "$U/debug/pprof/heap?pid=$W1" >"$T/w.pb.gz"
is "worker: /debug/pprof/heap 200" "$(code)" 200
go tool pprof -top -cum "$T/w.pb.gz" >"$T/w.top" 2>"$T/w.top.err"
is "worker: go tool pprof -top reads it" "$?" 0
like "worker: its top names haproxy's functions" "$(cat "$T/w.top")" 'listener_accept|session_accept_fd|run_poll_loop'
cu "$U/internal/heap?format=folded" >"$T/m.folded"
check "the master's heap does not name listener_accept" nogrep listener_accept "$T/m.folded"
exec 4>&-
check "the held connections end" wait_secs 20 gone "$HOLD"
wait "$HOLD"
is "each held request was answered" "$?" 0

# A reload: the master execs itself again and forks a new worker; the old
# one leaves once its connections are done.
kill -USR2 "$MP"
reloaded() { one_worker && [ "$(workers_of)" != "$W1" ]; }
check "USR2: a new worker replaces the old one" wait_secs 30 reloaded
W2=$(workers_of)
PIDS="$PIDS $W2"
check "USR2: the old worker exits" wait_secs 30 gone "$W1"
check "USR2: the list holds the master and the new worker ($MP $W2; it has '$(listed)')" \
	wait_secs 20 lists "$MP" "$W2"
check "USR2: the master still serves the endpoint" served_by_master
s=$(cu "$U/internal/heap/settings?pid=$W2")
is "USR2: settings?pid=W2 answers for it" "$(jfield "$s" pid)" "$W2"
is "USR2: 100 requests answered 200" "$(traffic 100)" 100
r=$(post "$U/internal/heap/settings?enabled=true&pid=all")
all200 "USR2: pid=all reaches the master and the new worker" "$r" "$MP" "$W2"

kill -TERM "$MP"
all_gone() { gone "$MP" && gone "$W2"; }
check "TERM ends the master and its worker" wait_secs 30 all_gone
silent() { curl -s -o /dev/null --max-time 3 "$U/"; [ $? = 7 ]; }
check "then nothing listens on the endpoint" wait_secs 10 silent
is "no abstract socket of the program's group is left" \
	"$(grep -c "@flamekit-hook/$MP-" /proc/net/unix)" 0
left=$(ls /dev/shm/flamekit-hook."$(id -u)"/state."$MP".* /tmp/flamekit-hook."$(id -u)"/state."$MP".* 2>/dev/null)
is "no state file of the master is left" "$left" ""
check "no worker took the address over ($(grep flamekit-hook "$T/haproxy.out" | head -c 300))" \
	sh -c "! grep -q flamekit-hook '$T/haproxy.out'"
check "haproxy said no ALERT but the TERM'd worker's exit" \
	sh -c "! grep ALERT '$T/haproxy.out' | grep -v 'worker ($W2) exited with code 143'"
echo "1..$tn"
