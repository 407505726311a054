#!/bin/sh
# SPDX-License-Identifier: MIT
# The seed's server in Rust (rust/flamekit/examples/seed.rs, the shared
# libjemalloc.so.2) under real requests: its own API beside the hook's
# routes through flamekit::handle_from; enable / status / disable as the
# seed tested them; go tool pprof reading /internal/heap with the
# service's Rust functions demangled; ?format=flame a valid page; Go's
# /debug/pprof with a delta; the hook's admission (who may ask, Host,
# cross-site, parameters, the token).
. "$(dirname "$0")/rustlib.sh"
skip_sanitized "the seed server"

check "crate and examples build" rust_build
check "seed starts" start_service "$EX/seed"

is "own route /health" "$(cu "$U/health")" ok
like "own route POST /cache" "$(cu -X POST "$U/cache?items=500")" '^500 entries'

s=$(cu "$U/internal/heap/settings")
is "status: 200" "$(code)" 200
is "status: disabled at start" "$(jfield "$s" enabled)" false
is "status: prof:true from the hook's malloc_conf" "$(jfield "$s" profiling_started)" true
like "status: the shared jemalloc's mallctl" "$(jfield "$s" mallctl_module)" '/libjemalloc\.so\.2$'
is "status: the hook's own backtrace (its thread set it up)" "$(jfield "$s" unwinder)" flamekit

cu "$U/internal/heap" >/dev/null
is "profile before enabling: 409" "$(code)" 409

s=$(cu -X POST "$U/internal/heap/settings?enabled=true")
is "enable: 200" "$(code)" 200
is "enable: enabled" "$(jfield "$s" enabled)" true
like "service grows its cache while sampling" "$(cu -X POST "$U/cache?items=4000")" '^4500 entries'
is "status after enable: enabled" "$(jfield "$(cu "$U/internal/heap/settings")" enabled)" true

cu "$U/internal/heap" >"$T/p.pb.gz"
is "/internal/heap: 200" "$(code)" 200
pprof_top "$T/p.pb.gz"
check "go tool pprof reads it" grep -q '^Type: inuse_space' "$T/top"
check "pprof: the service's function, demangled (seed::seed_fill_cache)" grep -q ' seed::seed_fill_cache$' "$T/top"
check "pprof: its callee seed::seed_cache_entry" grep -q ' seed::seed_cache_entry$' "$T/top"
curl -s -D "$T/hdr" -o /dev/null --max-time 30 "$U/internal/heap"
check "pprof content type" grep -qi '^Content-Type: application/octet-stream' "$T/hdr"
check "the hook's headers: nosniff" grep -qi '^X-Content-Type-Options: nosniff' "$T/hdr"

cu "$U/internal/heap?format=flame" >"$T/f.svg"
is "flame: 200" "$(code)" 200
check "flame: valid XML (xmllint)" xmllint --noout "$T/f.svg"
check "flame: names seed::seed_fill_cache" grep -q 'seed::seed_fill_cache' "$T/f.svg"
curl -s -D "$T/hdr" -o /dev/null --max-time 30 "$U/internal/heap?format=flame"
check "flame content type" grep -qi '^Content-Type: image/svg+xml' "$T/hdr"

cu "$U/debug/pprof/heap" >"$T/g.pb.gz"
is "/debug/pprof/heap: 200" "$(code)" 200
pprof_top "$T/g.pb.gz"
check "/debug/pprof/heap read by go tool pprof" grep -q 'seed::seed_fill_cache$' "$T/top"
# A delta holds the caller for its window, then answers.
cu "$U/debug/pprof/allocs?seconds=1" >"$T/d.pb.gz"
is "/debug/pprof/allocs?seconds=1: 200" "$(code)" 200
pprof_top "$T/d.pb.gz"
check "delta read by go tool pprof" grep -q '^Type: alloc_space' "$T/top"

s=$(cu -X POST "$U/internal/heap/settings?enabled=false")
is "disable: 200" "$(code)" 200
is "disable: disabled" "$(jfield "$s" enabled)" false
cu "$U/internal/heap?format=folded" >"$T/folded"
is "what was sampled stays fetchable after disable" "$(code)" 200
check "folded: the cache's stack" grep -q 'seed::seed_fill_cache;seed::seed_cache_entry' "$T/folded"

# The hook's admission, as on its own socket.
cu -X POST -H 'Sec-Fetch-Site: cross-site' "$U/internal/heap/settings?enabled=true" >/dev/null
is "a browser's cross-site POST: 403" "$(code)" 403
cu -H 'Host: example.com' "$U/internal/heap/settings" >/dev/null
is "a Host that is not loopback: 403" "$(code)" 403
cu "$U/internal/heap?format=nope" >/dev/null
is "a bad parameter: 400" "$(code)" 400
cu "$U/internal/heap?bogus=1" >/dev/null
is "an unknown parameter: 400" "$(code)" 400
cu -X PUT "$U/internal/heap" >/dev/null
is "PUT: 405" "$(code)" 405
cu -I "$U/internal/heap/settings" >/dev/null
is "HEAD: 200" "$(code)" 200
if other_user; then
	b=$(cu_other "$U/internal/heap/settings")
	is "another local user may not ask (the peer's owner, found from the connection)" "$(cat "$T/status")" 403
	like "and is told who may" "$b" 'may not use this endpoint'
	is "another user still reaches the service's own routes" "$(cu_other "$U/health")" ok
else
	notok "a second local user for the test"
fi
kill "$HOST_PID"

# With FLAMEKIT_TOKEN, the token admits whoever holds it.
check "seed starts with FLAMEKIT_TOKEN" start_service "$EX/seed" FLAMEKIT_TOKEN=s3cret
cu "$U/internal/heap/settings" >/dev/null
is "token: none sent: 401" "$(code)" 401
cu -H 'Authorization: Bearer s3cret' "$U/internal/heap/settings" >/dev/null
is "token: sent: 200" "$(code)" 200
if [ -n "${OTHER_UID:-}" ]; then
	cu_other -H 'Authorization: Bearer s3cret' "$U/internal/heap/settings" >/dev/null
	is "token: another user holding it may ask" "$(cat "$T/status")" 200
fi
echo "1..$tn"
