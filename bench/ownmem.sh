#!/bin/bash
# SPDX-License-Identifier: MIT
# What one fetch costs the host in memory: Debian's redis-server under the
# hook of build B, 20000 keys of 100 bytes set while sampling (lg 19), then
# quiet; before and after each of FETCHES fetches (alternately
# /debug/pprof/heap and the flame graph) a requested snapshot gives
# jemalloc's allocated and resident as the timeline reports them (the
# program's, where the hook has an arena), the hook's own bytes when
# reported, and the process's VmRSS; curl gives each fetch's time.
# Usage: B=DIR bench/ownmem.sh [FETCHES]
set -eu
B=${B:-build}
n=${1:-6}
JE=$(ldconfig -p | awk '/libjemalloc\.so\.2 .*x86-64/ { print $NF; exit }')
d=$(mktemp -d)
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
rp=$(port) hp=$(port)
U=http://127.0.0.1:$hp
env FLAMEKIT_HTTP=127.0.0.1:$hp FLAMEKIT_SNAPSHOT_S=0 LD_PRELOAD="$B/libflamekit-hook.so $JE" \
	redis-server --port "$rp" --bind 127.0.0.1 --save '' --appendonly no --dir "$d" >"$d/out" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; rm -rf "$d"' EXIT
i=0; until curl -s -o /dev/null --max-time 1 "$U/internal/heap/settings"; do
	i=$((i + 1)); [ $i -lt 100 ] || { echo "ownmem: no endpoint" >&2; exit 1; }; sleep 0.1
done
curl -s -X POST -H 'X-Flamekit: 1' "$U/internal/heap/settings?enabled=true" >/dev/null
python3 - "$rp" <<'EOF'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=30)
for i in range(20000):
    s.sendall(b"SET key:%d %s\r\n" % (i, b"x" * 100))
s.sendall(b"PING\r\n")
buf = b""
while not buf.endswith(b"+PONG\r\n"):
    buf += s.recv(65536)
EOF
row() {
	curl -s -X POST -H 'X-Flamekit: 1' "$U/internal/heap/snapshot" >/dev/null
	curl -s "$U/internal/heap/timeline?format=json" | python3 -c '
import json, sys
s = json.load(sys.stdin)["snapshots"][-1]
mb = lambda v: "-" if v is None else "%.2f" % (v / 1e6)
print("| %s | %s | %s | %s | %s | %s |" % (sys.argv[1], mb(s["allocated"]), mb(s["resident"]),
      mb(s.get("hook")), mb(s["rss"]), sys.argv[2]))' "$1" "$2"
}
echo "| after | allocated MB | resident MB | hook MB | RSS MB | fetch s |"
echo "|---|---|---|---|---|---|"
row "no fetch" "-"
k=0
while [ $k -lt "$n" ]; do
	k=$((k + 1))
	if [ $((k % 2)) = 1 ]; then url="$U/debug/pprof/heap" what=pprof; else url="$U/internal/heap?format=flame" what=flame; fi
	t=$(curl -s -o /dev/null -w '%{time_total}' "$url")
	row "fetch $k ($what)" "$t"
done
