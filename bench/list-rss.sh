#!/bin/sh
# SPDX-License-Identifier: MIT
# What one read-only processes list costs a pre-fork server's workers
# (issue 33): Debian's nginx, a master and WORKERS workers, under the
# hook of build B (libjemalloc.so.2 preloaded after it), sampling off.
# Once every worker has registered (its socket is in /proc/net/unix), the
# RSS of the tree (master and workers, VmRSS summed) and of the workers
# alone is read, then again a second after one GET
# /internal/heap/processes; and how many workers map the serving half
# (libflamekit-hook-serve.so.0). RUNS fresh servers; prints each run
# and the medians.
# Usage: B=DIR bench/list-rss.sh [WORKERS [RUNS]]   (8 workers, 5 runs)
set -eu
B=${B:-build}
nw=${1:-8}
runs=${2:-5}
. bench/hooklib.sh
NG=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$NG" ] || { echo "bench/list-rss.sh: no nginx (scripts/install-deps)" >&2; exit 1; }
hook_bench_init list-rss libflamekit-hook-serve.so.0
HOOK=$(cd "$(dirname "$HOOK")" && pwd)/$(basename "$HOOK")
chmod 711 "$T"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# rss_kb PID...: their VmRSS summed, in kB.
rss_kb() {
	for p in "$@"; do
		awk '/^VmRSS:/ { print $2 }' "/proc/$p/status" 2>/dev/null
	done | awk '{ s += $1 } END { print s }'
}
# registered MASTER: how many of MASTER's children have a worker socket.
registered() {
	n=0
	for p in $(pgrep -P "$1"); do
		grep -q "@flamekit-hook/.*/$p\$" /proc/net/unix && n=$((n + 1))
	done
	echo $n
}
# serving MASTER: how many of MASTER's children map the serving half.
serving() {
	n=0
	for p in $(pgrep -P "$1"); do
		grep -q libflamekit-hook-serve "/proc/$p/maps" 2>/dev/null && n=$((n + 1))
	done
	echo $n
}

: >"$T/before"; : >"$T/after"; : >"$T/wbefore"; : >"$T/wafter"
echo "nginx, $nw workers, hook of $B; tree RSS in MB before and after one list"
r=0
while [ $r -lt "$runs" ]; do
	r=$((r + 1))
	np=$(free_port) hp=$(free_port)
	rm -rf "$T/run"; mkdir -m 711 "$T/run"
	cat >"$T/run/nginx.conf" <<CONF
daemon off;
master_process on;
worker_processes $nw;
pid $T/run/nginx.pid;
error_log $T/run/error.log;
events { worker_connections 64; }
http {
	access_log off;
	client_body_temp_path $T/run/b;
	proxy_temp_path $T/run/p;
	fastcgi_temp_path $T/run/f;
	uwsgi_temp_path $T/run/u;
	scgi_temp_path $T/run/s;
	server { listen 127.0.0.1:$np; root $T/run; }
}
CONF
	env LD_PRELOAD="$HOOK $JE" FLAMEKIT_HTTP=127.0.0.1:$hp FLAMEKIT_SNAPSHOT_S=0 \
		"$NG" -e "$T/run/error.log" -p "$T/run" -c "$T/run/nginx.conf" >/dev/null 2>&1 &
	mp=$!
	i=0
	while [ "$(registered "$mp")" -lt "$nw" ]; do
		i=$((i + 1))
		[ $i -lt 300 ] || { echo "bench/list-rss.sh: the workers did not register" >&2; kill "$mp"; exit 1; }
		sleep 0.1
	done
	sleep 1
	b=$(rss_kb "$mp" $(pgrep -P "$mp")) bw=$(rss_kb $(pgrep -P "$mp"))
	code=$(curl -s -o "$T/list" -w '%{http_code}' --max-time 10 "http://127.0.0.1:$hp/internal/heap/processes")
	sleep 1
	a=$(rss_kb "$mp" $(pgrep -P "$mp")) aw=$(rss_kb $(pgrep -P "$mp"))
	s=$(serving "$mp")
	kill -QUIT "$mp"; wait "$mp" || true
	echo "$b" >>"$T/before"; echo "$a" >>"$T/after"
	echo "$bw" >>"$T/wbefore"; echo "$aw" >>"$T/wafter"
	echo "run $r: list $code; tree $(awk -v b="$b" -v a="$a" 'BEGIN { printf "%.1f -> %.1f MB", b / 1024, a / 1024 }'), its workers $(awk -v b="$bw" -v a="$aw" 'BEGIN { printf "%.1f -> %.1f MB", b / 1024, a / 1024 }'); workers mapping the serving half: $s of $nw"
done
mb() { median | awk '{ printf "%.1f", $1 / 1024 }'; }
echo "median: tree $(mb <"$T/before") -> $(mb <"$T/after") MB (after, kB: $(spread "$T/after")), workers $(mb <"$T/wbefore") -> $(mb <"$T/wafter") MB"
