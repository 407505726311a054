#!/bin/sh
# SPDX-License-Identifier: MIT
# The listener's peak memory when a worker answers big (issue 32 item 4):
# hook-alloc-prog under the hook of build B serves FLAMEKIT_HTTP; a fake
# worker (tests/hook/fake_worker.py, registered as a process of the same
# user may) answers every request with SIZE bytes. Prints the listener's
# VmHWM (kB) before, after GET /internal/heap/processes (the worker's
# settings answer until issue 33; now one status line) and after GET /internal/heap?pid=FAKE&format=raw (its
# "profile", fetched whole by curl), with each request's time, then
# how many bytes curl got. WHAT is list, proxy or both (the default, in
# that order; a peak hides the next one, so measure each alone as well).
# Usage: B=DIR bench/proxy-mem.sh [SIZE [WHAT]]   (SIZE 536870912: 512 MiB)
set -eu
B=${B:-build}
size=${1:-536870912}
what=${2:-both}
JE=$(ldconfig -p | awk '/libjemalloc\.so\.2 .*x86-64/ { print $NF; exit }')
d=$(mktemp -d)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
U=http://127.0.0.1:$port
mkfifo "$d/in"
env FLAMEKIT_HTTP=127.0.0.1:$port FLAMEKIT_SNAPSHOT_S=0 LD_PRELOAD="$B/libflamekit-hook.so $JE" \
	"$B/hook-alloc-prog" <"$d/in" >"$d/out" 2>"$d/err" &
pid=$!
exec 3>"$d/in"
fpid=""
trap 'kill $pid $fpid 2>/dev/null; rm -rf "$d"' EXIT
i=0; until curl -s -o /dev/null --max-time 1 "$U/internal/heap/settings"; do
	i=$((i + 1)); [ $i -lt 100 ] || { echo "proxy-mem: no endpoint" >&2; exit 1; }; sleep 0.1
done
hwm() { awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status"; }
python3 tests/hook/fake_worker.py "$pid" big "$size" >"$d/fake" 2>&1 &
fpid=$!
i=0; until grep -q '^fake' "$d/fake"; do
	i=$((i + 1)); [ $i -lt 100 ] || { echo "proxy-mem: no fake worker" >&2; exit 1; }; sleep 0.1
done
f=$(awk '{ print $2 }' "$d/fake")
echo "size $size bytes; listener $pid, fake worker $f"
echo "VmHWM before: $(hwm) kB"
if [ "$what" != proxy ]; then
	t=$(curl -s -o /dev/null -w '%{time_total}' --max-time 120 "$U/internal/heap/processes")
	echo "VmHWM after the list: $(hwm) kB ($t s)"
fi
if [ "$what" != list ]; then
	t=$(curl -s -o "$d/body" -w '%{time_total}' --max-time 300 "$U/internal/heap?pid=$f&format=raw")
	echo "VmHWM after the proxied answer: $(hwm) kB ($t s, $(stat -c %s "$d/body") bytes received)"
fi
