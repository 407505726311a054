#!/bin/bash
# SPDX-License-Identifier: MIT
# Names from debuginfod (issue 25, item 3): a stripped program, built here,
# whose debug file only a real debuginfod server on loopback holds. With
# DEBUGINFOD_URLS naming it, symbolize names the program's functions;
# without, they stay module+offset; a dead server or one that never answers
# gives one line on stderr and the fallback, within the timeout; beside a
# live server a dead one gets its line and the names still come; a second
# run is served from libdebuginfod's cache with the server stopped. The
# hook does the same with DEBUGINFOD_URLS in the program's environment: a
# silent server delays one request by the timeout, says so once, and
# leaves the program's descriptor table as it was.
. "$(dirname "$0")/../lib/tap.sh"
srv=""; slow=""; host=""
cleanup() {
	[ -n "$host" ] && kill "$host" 2>/dev/null && wait "$host" 2>/dev/null
	[ -n "$srv" ] && kill "$srv" 2>/dev/null && wait "$srv" 2>/dev/null
	[ -n "$slow" ] && kill "$slow" 2>/dev/null && wait "$slow" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
# Only what each case sets reaches symbolize.
unset DEBUGINFOD_URLS DEBUGINFOD_TIMEOUT DEBUGINFOD_PROGRESS DEBUGINFOD_VERBOSE
export DEBUGINFOD_CACHE_PATH="$tmp/cache"

# The program (debuginfod-prog.c), stripped of everything but .dynsym;
# its debug file goes to dbg/ only.
mkdir "$tmp/dbg"
gcc -g -O1 -Wl,--build-id -o "$tmp/prog" tests/symbolize/debuginfod-prog.c -ljemalloc &&
	objcopy --only-keep-debug "$tmp/prog" "$tmp/dbg/prog.debug" &&
	objcopy --strip-all "$tmp/prog" &&
	MALLOC_CONF="prof:true,prof_active:true,lg_prof_sample:0,prof_final:true,prof_prefix:$tmp/heap" \
		"$tmp/prog" >/dev/null
dump=$(ls "$tmp"/heap.*.heap 2>/dev/null | head -1)
bid=$(readelf -n "$tmp/prog" 2>/dev/null | awk '/Build ID:/ { print $3; exit }')
[ -n "$dump" ] && [ -n "$bid" ] && ! nm "$tmp/prog" 2>/dev/null | grep -q fkdi_
okif $? "a stripped program (build-id $bid), its debug file apart, a dump of it"

# fold FILE.sym: the program's stacks, folded.
fold() { to-folded <"$1" >"$1.folded" 2>/dev/null; }
named() { grep -q 'main;fkdi_middle;fkdi_leaf ' "$1.folded"; }
fallback() { grep -q ';prog+0x[0-9a-f]*;prog+0x[0-9a-f]* ' "$1.folded" && ! grep -q fkdi_ "$1.folded"; }

symbolize "$dump" >"$tmp/none.sym" 2>"$tmp/none.err"; st=$?
fold "$tmp/none.sym"
[ "$st" = 0 ] && fallback "$tmp/none.sym" && [ ! -s "$tmp/none.err" ]
okif $? "without DEBUGINFOD_URLS: module+offset, nothing on stderr"

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# The server, over dbg/, on a free port (another one if it was taken
# meanwhile): ready when it serves the debug file, or gone.
ready=1
for try in 1 2 3; do
	port=$(free_port)
	debuginfod -F "$tmp/dbg" -p "$port" -d "$tmp/db$try.sqlite" >"$tmp/srv.log" 2>&1 &
	srv=$!
	for _ in $(seq 600); do
		kill -0 "$srv" 2>/dev/null || break
		curl -sf --max-time 5 -o /dev/null "http://127.0.0.1:$port/buildid/$bid/debuginfo" &&
			{ ready=0; break; }
		sleep 0.1
	done
	[ "$ready" = 0 ] && break
	kill "$srv" 2>/dev/null; wait "$srv" 2>/dev/null; srv=""
done
okif $ready "debuginfod -F serves the debug file on port $port"
url="http://127.0.0.1:$port"

DEBUGINFOD_URLS=$url symbolize "$dump" >"$tmp/srv.sym" 2>"$tmp/srv.err"; st=$?
fold "$tmp/srv.sym"
[ "$st" = 0 ] && named "$tmp/srv.sym" && [ ! -s "$tmp/srv.err" ] &&
	[ -s "$tmp/cache/$bid/debuginfo" ]
okif $? "with the server: the program's functions named, nothing on stderr, the file cached"

# Two servers, one dead: libdebuginfod asks both at once; the names come
# from the live one, and the dead one (only) is named once, whichever
# module's query met it first.
dead="http://127.0.0.1:$(free_port)/"     # named as spelled, '/' and all
DEBUGINFOD_CACHE_PATH=$tmp/cache-two DEBUGINFOD_URLS="$dead $url" symbolize "$dump" \
	>"$tmp/two.sym" 2>"$tmp/two.err"; st=$?
fold "$tmp/two.sym"
[ "$st" = 0 ] && named "$tmp/two.sym" && [ "$(wc -l <"$tmp/two.err")" = 1 ] &&
	grep -qF "symbolize: debuginfod $dead: couldn't connect to server" "$tmp/two.err"
okif $? "a dead server beside a live one: names, and one line for the dead one ($(cat "$tmp/two.err"))"

# The hook, with DEBUGINFOD_URLS in the program's environment. host_start
# URL CACHE [VAR=VALUE...]: the program under the hook, sampling every
# allocation from the start, until its endpoint answers.
# A sanitized hook cannot be preloaded into an uninstrumented program (the
# sanitizer pass of .ci/run leaves hook tests out): its cases skip there.
hook_ok=1
ldd "$B/libflamekit-hook.so" 2>/dev/null | grep -q libasan && hook_ok=0
host_start() {
	local u=$1 c=$2; shift 2
	hport=$(free_port)
	env "$@" DEBUGINFOD_URLS="$u" DEBUGINFOD_CACHE_PATH="$c" \
		LD_PRELOAD="$B/libflamekit-hook.so /usr/lib/x86_64-linux-gnu/libjemalloc.so.2" \
		MALLOC_CONF=prof:true,prof_active:true,lg_prof_sample:0 \
		FLAMEKIT_HTTP=127.0.0.1:$hport "$tmp/prog" wait >/dev/null 2>"$tmp/host.err" &
	host=$!
	for _ in $(seq 600); do
		kill -0 "$host" 2>/dev/null || return 1
		curl -sf --max-time 5 -o /dev/null "http://127.0.0.1:$hport/internal/heap/settings" && return 0
		sleep 0.1
	done
	return 1
}
host_stop() { kill "$host" 2>/dev/null; wait "$host" 2>/dev/null; host=""; }
fds() { ls "/proc/$host/fd" | sort -n | tr '\n' ' '; }

if [ "$hook_ok" = 1 ]; then
	host_start "$url" "$tmp/cache-hook" &&
		curl -sf --max-time 60 -o "$tmp/hook.sym.folded" \
			"http://127.0.0.1:$hport/internal/heap?format=folded" &&
		named "$tmp/hook.sym" && [ ! -s "$tmp/host.err" ]
	okif $? "the hook with the server: the program's functions named, nothing on stderr"
	host_stop
else
	n=$((n + 1)); echo "ok $n - the hook with the server # skip sanitized hook"
fi

symbolize "$dump" >"$tmp/after.sym" 2>/dev/null
fold "$tmp/after.sym"
fallback "$tmp/after.sym"
okif $? "without DEBUGINFOD_URLS again: module+offset (the cache is not looked at)"

kill "$srv"; wait "$srv" 2>/dev/null; srv=""

DEBUGINFOD_URLS=$url symbolize "$dump" >"$tmp/cached.sym" 2>"$tmp/cached.err"; st=$?
fold "$tmp/cached.sym"
[ "$st" = 0 ] && named "$tmp/cached.sym" && [ ! -s "$tmp/cached.err" ]
okif $? "server stopped: names from libdebuginfod's cache, nothing on stderr"

DEBUGINFOD_CACHE_PATH=$tmp/cache-dead DEBUGINFOD_URLS=$url symbolize "$dump" \
	>"$tmp/dead.sym" 2>"$tmp/dead.err"; st=$?
fold "$tmp/dead.sym"
[ "$st" = 0 ] && fallback "$tmp/dead.sym" && [ "$(wc -l <"$tmp/dead.err")" = 1 ] &&
	grep -q "^symbolize: debuginfod $url: couldn't connect to server" "$tmp/dead.err"
okif $? "a dead server: one line ($(cat "$tmp/dead.err")), module+offset, exit 0"

# A server that takes the connection and never answers: one line after
# DEBUGINFOD_TIMEOUT seconds, not one per module, not curl's minutes.
# (It holds none of the test's output open: killed at the end.)
python3 -c '
import socket, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(64)
print(s.getsockname()[1], flush=True)
time.sleep(600)' >"$tmp/slow.port" </dev/null &
slow=$!
for _ in $(seq 300); do [ -s "$tmp/slow.port" ] && break; sleep 0.1; done
t0=$(date +%s%N)
DEBUGINFOD_TIMEOUT=2 DEBUGINFOD_CACHE_PATH=$tmp/cache-slow \
	DEBUGINFOD_URLS=http://127.0.0.1:$(cat "$tmp/slow.port") symbolize "$dump" \
	>"$tmp/slow.sym" 2>"$tmp/slow.err"; st=$?
t=$(( ($(date +%s%N) - t0) / 1000000 ))
fold "$tmp/slow.sym"
[ "$st" = 0 ] && fallback "$tmp/slow.sym" && [ "$(wc -l <"$tmp/slow.err")" = 1 ] &&
	grep -q "no answer within 2 s" "$tmp/slow.err" && [ "$t" -lt 12000 ]
okif $? "a silent server: one line ($(cat "$tmp/slow.err")), module+offset, in $t ms"

# The same silent server for the hook: the first request waits the timeout
# (the debug-file queries run on the hook's threads, in its own descriptor
# table), the next finds the modules cached; one line on the program's
# stderr; the program's own descriptors unchanged.
if [ "$hook_ok" = 0 ]; then
	n=$((n + 1)); echo "ok $n - the hook with a silent server # skip sanitized hook"
elif host_start "http://127.0.0.1:$(cat "$tmp/slow.port")" "$tmp/cache-hook-slow" DEBUGINFOD_TIMEOUT=2; then
	before=$(fds)
	t0=$(date +%s%N)
	curl -sf --max-time 60 -o "$tmp/hslow.sym.folded" "http://127.0.0.1:$hport/internal/heap?format=folded"
	st=$?
	t=$(( ($(date +%s%N) - t0) / 1000000 ))
	t0=$(date +%s%N)
	curl -sf --max-time 60 -o /dev/null "http://127.0.0.1:$hport/internal/heap?format=folded"
	t2=$(( ($(date +%s%N) - t0) / 1000000 ))
	after=$(fds)
	[ "$st" = 0 ] && fallback "$tmp/hslow.sym" && [ "$t" -lt 12000 ] && [ "$t2" -lt 1500 ] &&
		[ "$(wc -l <"$tmp/host.err")" = 1 ] &&
		grep -q "^flamekit-hook: debuginfod http://127.0.0.1:[0-9]*: no answer within 2 s" "$tmp/host.err"
	okif $? "the hook with a silent server: module+offset in $t ms, then $t2 ms, one line ($(cat "$tmp/host.err"))"
	[ "$before" = "$after" ]
	okif $? "the program's descriptors unchanged by the queries ($after)"
	host_stop
else
	okif 1 "the hook with a silent server: the program started"
fi

echo "1..$n"
[ "$fail" = 0 ]
