#!/bin/sh
# SPDX-License-Identifier: MIT
# fk_hook_handle in a C program that links libflamekit-hook.so (the
# serving half loaded on first use, as for the hook's own server): the
# routes answered with no server of the hook's, the admission by the peer
# the program names (vouched, unknown, a user, a TCP pair), the token, the
# Host and cross-site rules, a profile naming the program's function, and
# a delta. The Rust crate's tests (tests/rust) run the same entry linked
# statically.
. "$(dirname "$0")/hooklib.sh"

if ! check "program started" start_prog "$B/handle-prog"; then echo "1..$tn"; exit 1; fi
# ask LINE: one request; sets A (status, type, length) and L (the body's
# first line) from the program's Nth answer.
ask() {
	echo "$1" >&3; n=$((${n:-0} + 1))
	i=0
	while [ "$(grep -c '^answer ' "$HOST_OUT")" -lt "$n" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	a=$(grep '^answer ' "$HOST_OUT" | sed -n "${n}p")
	A=${a%%|*}; A=${A#answer }
	L=${a#*|}
}

ask "vouched GET /internal/heap/settings Host:localhost"
like "vouched: settings 200, JSON" "$A" '^200 application/json'
is "settings: disabled" "$(jfield "$L" enabled)" false
is "settings: no server of the hook's runs" "$(jfield "$L" listener_pid)" null
ask "vouched POST /internal/heap/settings?enabled=true Host:localhost"
is "vouched: enable" "$(jfield "$L" enabled)" true
echo "grow 64" >&3
wait_line '^grown 64'
ask "vouched GET /internal/heap?format=folded Host:127.0.0.1:80"
like "folded: 200" "$A" '^200 text/plain'
like "folded names handle_grow_cache" "$L" ';main;handle_grow_cache [0-9]+$'
ask "vouched GET /debug/pprof/allocs?seconds=1 Host:localhost"
like "a delta answers after its window" "$A" '^200 application/octet-stream'

ask "vouched GET /internal/heap?format=fl+ame Host:localhost"
like "a '+' in the query is a space, as the hook's own server reads it" "$L" "'fl ame'"
ask "unknown GET /internal/heap/settings Host:localhost"
like "unknown peer: 403" "$A" '^403 '
like "and says it cannot tell who asks" "$L" 'cannot tell which user is asking'
ask "uid:0 GET /internal/heap/settings Host:localhost"
like "root by uid: 200" "$A" '^200 '
if other_user; then
	ask "uid:$OTHER_UID GET /internal/heap/settings Host:localhost"
	like "another user by uid: 403" "$A" '^403 '
fi
ask "tcp:10.1.2.3:5555,10.1.2.4:80 GET /internal/heap/settings Host:localhost"
like "a TCP peer on another host: 403" "$A" '^403 '
ask "tcp:127.0.0.1:1,127.0.0.1:2 GET /internal/heap/settings Host:localhost"
like "a loopback TCP pair with no socket: 403" "$A" '^403 '
ask "tcp:nonsense,127.0.0.1:2 GET /internal/heap/settings Host:localhost"
like "a bad peer address: 500" "$A" '^500 '
ask "vouched GET /internal/heap/settings Host:example.com"
like "vouched, a Host not loopback: 403" "$A" '^403 '
ask "vouched GET /internal/heap/settings"
like "vouched, no Host: 400" "$A" '^400 '
ask "vouched POST /internal/heap/settings?enabled=false Host:localhost Sec-Fetch-Site:cross-site"
like "vouched, cross-site POST: 403" "$A" '^403 '
ask "vouched GET /internal/heap?format=nope Host:localhost"
like "a bad parameter: 400" "$A" '^400 '
ask "vouched GET /nowhere Host:localhost"
like "no such route: 404" "$A" '^404 '
ask "vouched HEAD /internal/heap/settings Host:localhost"
like "HEAD: 200, no body" "$A" '^200 application/json 0$'
exec 3>&-

# With FLAMEKIT_TOKEN, only the token admits, whatever the peer.
n=0
check "program started with FLAMEKIT_TOKEN" start_prog "$B/handle-prog" FLAMEKIT_TOKEN=t0k
ask "vouched GET /internal/heap/settings Host:localhost"
like "token: vouched without it: 401" "$A" '^401 '
ask "unknown GET /internal/heap/settings Host:localhost Authorization:Bearer+t0k"
like "token: whoever holds it may ask, even an unknown peer" "$A" '^200 '
ask "uid:0 GET /internal/heap/settings Host:localhost Authorization:Bearer+wrong"
like "token: a wrong one, even from root: 401" "$A" '^401 '
echo "1..$tn"
