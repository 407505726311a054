#!/bin/sh
# SPDX-License-Identifier: MIT
# The hook's idle footprint and its first page (bench/README.md, "Idle
# footprint"): /bin/sleep preloaded with jemalloc alone, then with the
# hook of each build given (listening on loopback, sampling off), RUNS
# times each. Per run: VmRSS (and its anonymous and file parts) once the
# hook listens, the objects mapped, the serving half's libraries among
# them; then the first request's wall time (GET /internal/heap/settings:
# the serving half loaded, when it is one), the second's, and VmRSS after.
# Prints the medians, one line per build, the first line jemalloc alone.
# Usage: bench/idle.sh [RUNS] [BUILD_DIR...]   (default 5 runs, build)
set -eu
RUNS=${1:-5}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- build
JE=$(ldconfig -p | awk '/libjemalloc\.so\.2 .*x86-64/ { print $NF; exit }')
T=$(mktemp -d /tmp/fk-idle.XXXXXX)
P=""
trap '[ -n "$P" ] && kill $P 2>/dev/null; rm -rf "$T"' EXIT
HEAVY='libmicrohttpd|libgnutls|libxml2|libicu|libdw|libflamekit-hook-serve'
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
st() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }
med() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# one PRELOAD [PORT]: one run; appends "rss anon file objects heavy first_ms
# second_ms rss_after" to $T/rows.
one() {
	pt=${2:-}
	if [ -n "$pt" ]; then
		FLAMEKIT_HTTP=127.0.0.1:$pt LD_PRELOAD="$1" sleep 600 &
	else
		LD_PRELOAD="$1" sleep 600 &
	fi
	P=$!
	if [ -n "$pt" ]; then
		# Listening: the port is taken (asking it would load the serving half).
		w=0; while ! grep -q ":$(printf '%04X' "$pt") 00000000:0000 0A" /proc/net/tcp && [ $w -lt 300 ]; do
			sleep 0.1; w=$((w + 1)); done
	else
		w=0; while [ "$(awk '{ print $6 }' /proc/$P/maps | grep -c jemalloc)" = 0 ] && [ $w -lt 300 ]; do
			sleep 0.1; w=$((w + 1)); done
	fi
	sleep 0.5
	rss=$(st $P VmRSS) anon=$(st $P RssAnon) file=$(st $P RssFile)
	objs=$(awk '$6 ~ /\// { print $6 }' /proc/$P/maps | sort -u | wc -l)
	heavy=$(awk '{ print $6 }' /proc/$P/maps | grep -E "$HEAVY" | sort -u | wc -l)
	f=0 s=0 after=$rss
	if [ -n "$pt" ]; then
		f=$(curl -s -o /dev/null --max-time 60 -w '%{time_total}' "http://127.0.0.1:$pt/internal/heap/settings")
		s=$(curl -s -o /dev/null --max-time 60 -w '%{time_total}' "http://127.0.0.1:$pt/internal/heap/settings")
		after=$(st $P VmRSS)
	fi
	kill $P; wait $P 2>/dev/null || true; P=""
	echo "$rss $anon $file $objs $heavy $f $s $after" >>"$T/rows"
}

report() {
	printf '%-28s' "$1"
	for c in 1 2 3 4 5; do printf ' %8s' "$(awk -v c=$c '{ print $c }' "$T/rows" | med)"; done
	printf ' %9s %9s %8s\n' "$(awk '{ printf "%.2f\n", $6 * 1000 }' "$T/rows" | med)" \
		"$(awk '{ printf "%.2f\n", $7 * 1000 }' "$T/rows" | med)" "$(awk '{ print $8 }' "$T/rows" | med)"
}

echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs; $RUNS runs, medians"
printf '%-28s %8s %8s %8s %8s %8s %9s %9s %8s\n' "" "RSS kB" "anon kB" "file kB" "objects" \
	"heavy" "1st ms" "2nd ms" "RSS after"
: >"$T/rows"; i=0; while [ $i -lt "$RUNS" ]; do one "$JE"; i=$((i + 1)); done
report "jemalloc alone"
for b in "$@"; do
	: >"$T/rows"; i=0; while [ $i -lt "$RUNS" ]; do one "$b/libflamekit-hook.so $JE" "$(port)"; i=$((i + 1)); done
	report "hook of $b"
done
