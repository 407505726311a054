#!/bin/sh
# SPDX-License-Identifier: MIT
# Bad values of the hook's environment are refused with one stderr line
# naming the value, never replaced by the default (issue 22 item 9):
# FLAMEKIT_CACHE_MB (was: silently the default) and FLAMEKIT_SNAPSHOT_S
# below its floor of 0.5 s (1e-7 was taken, and the hook's thread spun at
# 83 % of a core).
. "$(dirname "$0")/hooklib.sh"
# refused NAME=VALUE PATTERN: the host starts, prints one line matching
# PATTERN, and serves nothing.
refused() {
	port=$(free_port)
	start_host 127.0.0.1:$port "$1"
	check "$1: the host runs" host_cmd "grow 1" '^grown 1'
	is "$1: one stderr line" "$(wc -l <"$T/host.err")" 1
	like "$1: it names the value" "$(cat "$T/host.err")" "$2"
	curl -s -o /dev/null --max-time 5 "http://127.0.0.1:$port/internal/heap/settings"
	check "$1: nothing serves" [ $? != 0 ]
	exec 3>&-
	wait "$HOST_PID" 2>/dev/null
}
refused FLAMEKIT_CACHE_MB=64MB "^flamekit-hook: .*bad FLAMEKIT_CACHE_MB '64MB': want 0 \\(no cache\\) to 1048576\$"
refused FLAMEKIT_CACHE_MB=-1 "bad FLAMEKIT_CACHE_MB '-1'"
refused FLAMEKIT_CACHE_MB=2000000 "bad FLAMEKIT_CACHE_MB '2000000'"
refused FLAMEKIT_SNAPSHOT_S=1e-7 "^flamekit-hook: .*bad FLAMEKIT_SNAPSHOT_S '1e-7': want 0 \\(no interval snapshots\\) or 0.5 to 86400 seconds\$"
refused FLAMEKIT_SNAPSHOT_S=0.1 "bad FLAMEKIT_SNAPSHOT_S '0.1'"
# Good values still start.
port=$(free_port)
start_host 127.0.0.1:$port FLAMEKIT_CACHE_MB=0 FLAMEKIT_SNAPSHOT_S=0.5
check "FLAMEKIT_CACHE_MB=0 FLAMEKIT_SNAPSHOT_S=0.5: serves" wait_http "http://127.0.0.1:$port/internal/heap/settings"
s=$(cu "http://127.0.0.1:$port/internal/heap/settings")
like "the interval is 0.5 s" "$s" '"snapshot_seconds":0.5'
check "and nothing on stderr" [ ! -s "$T/host.err" ]
exec 3>&-
echo "1..$tn"
