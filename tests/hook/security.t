#!/bin/sh
# SPDX-License-Identifier: MIT
# libflamekit-hook's security rules, one by one: loopback-only binding,
# the token for remote access, GET never mutates, a browser's cross-site
# POST is refused, Host must be loopback, bounded requests. Who may ask
# (the peer's user): who.t.
. "$(dirname "$0")/hooklib.sh"

enabled() { cu "$1/internal/heap/settings" | grep -o '"enabled":[a-z]*'; }

# 1. A non-loopback address is refused without both variables.
port=$(free_port)
env FLAMEKIT_HTTP=0.0.0.0:$port LD_PRELOAD="$HOOK $JE" "$B/hook-alloc-prog" </dev/null >/dev/null 2>"$T/err"
like "0.0.0.0 refused with a reason" "$(cat "$T/err")" "refusing to listen on non-loopback address '0.0.0.0:$port'.*FLAMEKIT_HTTP_ALLOW_REMOTE=1 and FLAMEKIT_TOKEN"
env FLAMEKIT_HTTP="[::]:$port" FLAMEKIT_HTTP_ALLOW_REMOTE=1 LD_PRELOAD="$HOOK $JE" "$B/hook-alloc-prog" </dev/null >/dev/null 2>"$T/err"
like "[::] refused with ALLOW_REMOTE but no token" "$(cat "$T/err")" "refusing to listen on non-loopback"
env FLAMEKIT_HTTP=0.0.0.0:$port FLAMEKIT_TOKEN=s3cret LD_PRELOAD="$HOOK $JE" "$B/hook-alloc-prog" </dev/null >/dev/null 2>"$T/err"
like "0.0.0.0 refused with a token but no ALLOW_REMOTE" "$(cat "$T/err")" "refusing to listen on non-loopback"
env FLAMEKIT_HTTP=example.com:$port LD_PRELOAD="$HOOK $JE" "$B/hook-alloc-prog" </dev/null >/dev/null 2>"$T/err"
like "a host name other than localhost is refused" "$(cat "$T/err")" "use a numeric address"

# 2. Remote allowed with a token: every request needs it.
start_host 0.0.0.0:$port FLAMEKIT_HTTP_ALLOW_REMOTE=1 FLAMEKIT_TOKEN=s3cret
U=http://127.0.0.1:$port
check "remote-allowed host started" wait_http "$U/"
cu "$U/internal/heap/settings" >/dev/null
is "no token: 401" "$(code)" 401
cu -H 'Authorization: Bearer wrong' "$U/internal/heap/settings" >/dev/null
is "wrong token: 401" "$(code)" 401
cu -H 'Authorization: Bearer s3cre' "$U/internal/heap/settings" >/dev/null
is "token prefix: 401" "$(code)" 401
cu -H 'Authorization: Bearer s3cret' "$U/internal/heap/settings" >/dev/null
is "right token: 200" "$(code)" 200
cu -H 'Authorization: Bearer s3cret' -H 'Host: profiler.example.com' "$U/internal/heap/settings" >/dev/null
is "remote mode accepts a non-loopback Host" "$(code)" 200
cu -X POST -H 'X-Flamekit: 1' "$U/internal/heap/settings?enabled=true" >/dev/null
is "POST without token: 401" "$(code)" 401
FLAMEKIT_TOKEN=s3cret "$B/jeprof-raw" "$U" >/dev/null 2>"$T/jr.err"
like "jeprof-raw sends FLAMEKIT_TOKEN (reaches the 409)" "$(cat "$T/jr.err")" 'HTTP 409'
"$B/jeprof-raw" "$U" >/dev/null 2>"$T/jr.err"
like "jeprof-raw without the token gets 401" "$(cat "$T/jr.err")" 'HTTP 401'
stop_host

# 3. Loopback: GET never mutates, POST needs the header, Host is checked.
port=$(free_port)
U=http://127.0.0.1:$port
start_host 127.0.0.1:$port
wait_http "$U/"
cu "$U/internal/heap/settings?enabled=true" >/dev/null
is "GET with enabled=true is 405" "$(code)" 405
is "GET did not enable" "$(enabled "$U")" '"enabled":false'
cu "$U/internal/heap/settings?lg_sample=10" >/dev/null
is "GET with lg_sample is 405" "$(code)" 405
like "GET did not reset lg_sample" "$(cu "$U/internal/heap/settings")" '"lg_sample":19'
# A browser's cross-site POST is refused as Go's CrossOriginProtection
# refuses it; one from a client that is not a browser (no Sec-Fetch-Site,
# no Origin: curl, scripts, scrapers) passes, as the README's command.
for h in "Sec-Fetch-Site: cross-site" "Sec-Fetch-Site: same-site" "Origin: http://evil.example" \
	"Origin: null" "Origin: http://127.0.0.1:$((port + 1))"; do
	b=$(cu -X POST -H "$h" -H 'X-Flamekit: 1' "$U/internal/heap/settings?enabled=true")
	is "POST with '$h' is 403" "$(code)" 403
	like "its 403 says why" "$b" '^cross-origin request refused: .*not a browser\)$'
done
cu -X POST -H 'Origin: http://evil.example' -H 'Content-Type: text/plain' --data 'enabled=true' \
	"$U/internal/heap/settings?enabled=true" >/dev/null
is "a form-like cross-site POST is 403" "$(code)" 403
is "refused POSTs did not enable" "$(enabled "$U")" '"enabled":false'
for h in "Sec-Fetch-Site: same-origin" "Sec-Fetch-Site: none" "Origin: http://127.0.0.1:$port"; do
	cu -X POST -H "$h" "$U/internal/heap/settings?enabled=false" >/dev/null
	is "POST with '$h' is 200" "$(code)" 200
done
cu -X POST -H 'X-Flamekit: 1' "$U/internal/heap/settings?enabled=false" >/dev/null
is "POST with X-Flamekit: 1 is 200" "$(code)" 200
b=$(curl -s --max-time 30 "localhost:$port/internal/heap/settings?enabled=true" -X POST)
is "the README's plain curl POST enables" "$(jfield "$b" enabled)" true
cu -X POST "$U/internal/heap/settings?enabled=false" >/dev/null
b=$(cu -H 'Host: attacker.example:'"$port" "$U/internal/heap/settings")
is "non-loopback Host is 403 (DNS rebinding)" "$(code)" 403
like "403 says the Host rule" "$b" 'Host header must name a loopback'
cu -X POST -H 'X-Flamekit: 1' -H 'Host: 10.0.0.1' "$U/internal/heap/settings?enabled=true" >/dev/null
is "POST with a bad Host is 403" "$(code)" 403
is "and did not enable" "$(enabled "$U")" '"enabled":false'
for h in "localhost:$port" "127.0.0.1:$port" "127.1.2.3" "[::1]:$port" "LOCALHOST"; do
	cu -H "Host: $h" "$U/internal/heap/settings" >/dev/null
	is "loopback Host '$h' accepted" "$(code)" 200
done
cu -H "Host: 127.0.0.1.evil.example" "$U/internal/heap/settings" >/dev/null
is "Host 127.0.0.1.evil.example refused" "$(code)" 403
cu -X PUT -H 'X-Flamekit: 1' "$U/internal/heap/settings?enabled=true" >/dev/null
is "PUT is 405" "$(code)" 405
cu -X DELETE "$U/internal/heap/settings" >/dev/null
is "DELETE is 405" "$(code)" 405
cu -X POST -H 'X-Flamekit: 1' "$U/internal/heap?format=raw" >/dev/null
is "POST elsewhere than settings is 405" "$(code)" 405

# 4. Bounded requests.
long=$(python3 -c 'print("a" * 5000)')
cu "$U/internal/heap?format=$long" >/dev/null
c=$(code)
check "URL of 5000 bytes refused (got $c)" [ "$c" = 414 ]
python3 -c 'import sys; sys.stdout.write("x" * 10000)' >"$T/big"
cu -X POST -H 'X-Flamekit: 1' --data-binary @"$T/big" "$U/internal/heap/settings?enabled=true" >/dev/null
is "POST body of 10000 bytes is 413" "$(code)" 413
is "oversized POST did not enable" "$(enabled "$U")" '"enabled":false'
hdr=$(python3 -c 'print("X-Pad: " + "p" * 40000)')
cu -H "$hdr" "$U/internal/heap/settings" >/dev/null
c=$(code)
like "40 KB of headers refused with 431 or 413" "$c" '^(431|413)$'
cu "$U/internal/heap/settings" >/dev/null
is "server still answers after the abuse" "$(code)" 200
check "host exits cleanly" stop_host
