#!/bin/sh
# SPDX-License-Identifier: MIT
# What the hook's "who is asking" costs a connection (issue 32): the
# lookup of a loopback peer's user through netlink sock_diag (what the
# hook does) and through /proc/net/tcp (its fallback), with the kernel's
# table holding EXTRA more idle connections, each the median of REPS
# lookups, RUNS times. Usage: B=build bench/peer.sh [RUNS [REPS]]
set -eu
B=${B:-build}
runs=${1:-3}
reps=${2:-2000}
make -s --no-print-directory "B=$B" "$B/peer-bench"
for extra in 0 1000 9000; do
	i=0
	while [ "$i" -lt "$runs" ]; do
		"$B/peer-bench" "$extra" "$reps"
		i=$((i + 1))
	done
done

# End to end: the connection latency of a hook built before the check
# (OLD, a build folder) and of this one, in turns. Set OLD to compare.
[ -n "${OLD:-}" ] || exit 0
JE=$(ldconfig -p | awk '/libjemalloc\.so\.2 .*x86-64/ { print $NF; exit }')
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
i=0
while [ "$i" -lt "$runs" ]; do
	for b in "$OLD" "$B"; do
		p=$(port)
		mkfifo "/tmp/fk-peer-in.$$"
		FLAMEKIT_HTTP=127.0.0.1:$p LD_PRELOAD="$b/libflamekit-hook.so $JE" \
			"$b/hook-alloc-prog" <"/tmp/fk-peer-in.$$" >/dev/null 2>&1 &
		exec 3>"/tmp/fk-peer-in.$$"
		rm -f "/tmp/fk-peer-in.$$"
		until curl -s -o /dev/null "http://127.0.0.1:$p/"; do sleep 0.1; done
		printf '%s: ' "$b"
		python3 "$(dirname "$0")/peer-conn.py" "$p" 1000
		echo quit >&3
		exec 3>&-
		wait
	done
	i=$((i + 1))
done
