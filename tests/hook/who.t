#!/bin/sh
# SPDX-License-Identifier: MIT
# Who may ask (issue 32 item 2): by default only root and the program's
# own user, on loopback TCP (IPv4 and IPv6) and on a unix socket, the
# peer's user found from its socket; FLAMEKIT_ALLOW lets named users and
# uids in; FLAMEKIT_TOKEN lets whoever holds it in; a request for a worker
# (?pid=N) passes the listener's rule first; one client cannot hold every
# delta profile's slot. The host runs as root; the second user asks.
. "$(dirname "$0")/svclib.sh"

if ! other_user; then
	echo "ok 1 # skip no second user (run as root to make $OTHER)"
	exit 0
fi
ouid=$(id -u "$OTHER")
settings() { cu "$1/internal/heap/settings"; }

# 1. The default: root in, the other user out, on every transport.
port=$(free_port); U=http://127.0.0.1:$port
start_fp "FLAMEKIT_HTTP=127.0.0.1:$port MALLOC_CONF=lg_prof_sample:14" prefork 2
check "host serves" wait_http "$U/"
check "its 2 workers start" wait_count '^worker ' 2
W=$(awk '/^worker / { print $2; exit }' "$HOST_OUT")
PIDS="$PIDS $(awk '/^worker / { print $2 }' "$HOST_OUT" | tr '\n' ' ')"
listed() { cu "$U/internal/heap/processes" | grep -q "\"pid\":$W[,}]"; }
check "worker $W is listed" retry listed
settings "$U" >/dev/null
is "root may ask" "$(code)" 200
b=$(cu_other "$U/internal/heap/settings")
is "the other user may not: 403" "$(code)" 403
like "the 403 names the rule in one line" "$b" "^uid $ouid may not use this endpoint: only root.*FLAMEKIT_ALLOW lets others in$"
is "the 403 is one line" "$(printf '%s\n' "$b" | wc -l)" 1
b=$(cu_other "$U/internal/heap?format=raw")
is "the other user gets no raw dump: 403" "$(code)" 403
check "and no maps in the answer" sh -c "! printf '%s' \"\$1\" | grep -q MAPPED_LIBRARIES" - "$b"
cu_other -X POST "$U/internal/heap/settings?enabled=true&lg_sample=0&pid=all" >/dev/null
is "the other user cannot turn sampling on for all: 403" "$(code)" 403
s=$(settings "$U")
is "sampling is still off" "$(jfield "$s" enabled)" false
is "lg_sample unchanged" "$(jfield "$s" lg_sample)" 14
cu_other "$U/internal/heap/settings?pid=$W" >/dev/null
is "a worker through the listener: 403 for the other user" "$(code)" 403
cu "$U/internal/heap/settings?pid=$W" >/dev/null
is "and 200 for root" "$(code)" 200
cu_other "$U/internal/heap/processes" >/dev/null
is "the list of processes: 403 for the other user" "$(code)" 403
cu_other "$U/debug/pprof/heap" >/dev/null
is "the Go route: 403 for the other user" "$(code)" 403
hcmd quit '^bye'; end_host

# IPv6 loopback.
port=$(free_port); U6="http://[::1]:$port"
if start_host "[::1]:$port" && wait_http "$U6/"; then
	settings "$U6" >/dev/null
	is "[::1]: root may ask" "$(code)" 200
	cu_other "$U6/internal/heap/settings" >/dev/null
	is "[::1]: the other user may not" "$(code)" 403
	check "[::1]: host exits" stop_host
else
	ok "[::1] # skip no IPv6 loopback here"; ok "[::1] # skip"
fi

# A unix socket the other user can open (mode 0666): SO_PEERCRED decides.
mkdir -m 0755 "$T/sock"
start_host "unix:$T/sock/s"
check "unix: host serves" wait_for 100 test -S "$T/sock/s"
chmod 0666 "$T/sock/s"
chmod 0711 "$T"
cu --unix-socket "$T/sock/s" http://localhost/internal/heap/settings >/dev/null
is "unix: root may ask" "$(code)" 200
cu_other --unix-socket "$T/sock/s" http://localhost/internal/heap/settings >/dev/null
is "unix: the other user may not" "$(code)" 403
chmod 0700 "$T"
check "unix: host exits" stop_host

# 2. FLAMEKIT_ALLOW: by name, by uid; an unknown name stops the start.
for who in "$OTHER" "$ouid" "nobody,$OTHER"; do
	port=$(free_port); U=http://127.0.0.1:$port
	start_host "127.0.0.1:$port" "FLAMEKIT_ALLOW=$who"
	check "FLAMEKIT_ALLOW=$who: host serves" wait_http "$U/"
	cu_other "$U/internal/heap/settings" >/dev/null
	is "FLAMEKIT_ALLOW=$who: the other user may ask" "$(code)" 200
	cu_other -X POST "$U/internal/heap/settings?enabled=true" >/dev/null
	is "FLAMEKIT_ALLOW=$who: and POST" "$(code)" 200
	check "FLAMEKIT_ALLOW=$who: host exits" stop_host
done
port=$(free_port); U=http://127.0.0.1:$port
start_host "127.0.0.1:$port" FLAMEKIT_ALLOW=nosuch-user-fk
like "an unknown name: one line on stderr" "$(cat "$T/host.err")" \
	"^flamekit-hook: FLAMEKIT_HTTP=127.0.0.1:$port: bad FLAMEKIT_ALLOW 'nosuch-user-fk': no user named 'nosuch-user-fk'$"
cu "$U/internal/heap/settings" >/dev/null
is "and nothing serves" "$(code)" 000
check "the host runs on and exits" stop_host

# 3. The token lets whoever holds it in, and only them.
port=$(free_port); U=http://127.0.0.1:$port
start_host "127.0.0.1:$port" FLAMEKIT_TOKEN=s3cret
check "token host serves" wait_http "$U/"
cu_other -H 'Authorization: Bearer s3cret' "$U/internal/heap/settings" >/dev/null
is "token: the other user with it may ask" "$(code)" 200
cu_other "$U/internal/heap/settings" >/dev/null
is "token: the other user without it: 401" "$(code)" 401
cu "$U/internal/heap/settings" >/dev/null
is "token: root without it: 401" "$(code)" 401
check "token host exits" stop_host

# 4. Delta profiles: one client holds at most 4 of the 8 slots.
port=$(free_port); U=http://127.0.0.1:$port
start_host "127.0.0.1:$port" "FLAMEKIT_ALLOW=$OTHER"
check "window host serves" wait_http "$U/"
post "$U/internal/heap/settings?enabled=true" >/dev/null
hold=""
for i in 1 2 3 4; do
	curl -s -o /dev/null --max-time 120 "$U/debug/pprof/allocs?seconds=100" &
	hold="$hold $!"
done
PIDS="$PIDS $hold"
open4() { [ "$(jfield "$(settings "$U")" windows_open)" = 4 ]; }
check "root holds 4 windows" retry open4
b=$(cu "$U/debug/pprof/allocs?seconds=100")
is "root's fifth window: 503" "$(code)" 503
like "the 503 says why" "$b" "this client already waits on 4 delta profiles"
as_other curl -s -o /dev/null --max-time 120 "$U/debug/pprof/allocs?seconds=100" &
other=$!
PIDS="$PIDS $other"
open5() { [ "$(jfield "$(settings "$U")" windows_open)" = 5 ]; }
check "another client still gets a window" retry open5
kill $hold $other 2>/dev/null
check "window host exits" stop_host
echo "1..$tn"
