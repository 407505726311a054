#!/bin/sh
# SPDX-License-Identifier: MIT
# The hook's ?format=flame on a heap of 2^BITS distinct stacks (bench/
# README.md, "The hook's flame page"): hook-bench-prog under the hook of
# each build given, every allocation sampled; COUNT requests to each,
# interleaved (A, B, A, B, ...) so a busy machine slows both alike. Per
# request: the host's CPU in ms (the first field of every thread's
# /proc/PID/task/TID/schedstat, summed around the request, as
# bench/scrape.sh counts it) and curl's wall time; the median of each, and
# the host's peak RSS (VmHWM) after the requests. The first request (the
# modules opened) is left out. Each build's pages must be the same bytes
# (but for their origin's pid and time, since the page has one). The heap
# stays the same, so the hook gives its last page back (serve_memo.c):
# with FRESH=1 each request has a title of its own (&title=rK), and every
# page is made again.
# Usage (from the top of the tree, after make units):
#   [FRESH=1] bench/hookflame.sh BUILD... [COUNT [BITS]]   (default 15, 14)
set -eu
usage() { echo "usage: bench/hookflame.sh BUILD... [COUNT [BITS]]" >&2; exit 2; }
[ $# -ge 1 ] || usage
builds=""
while [ $# -gt 0 ]; do
	case $1 in ''|*[!0-9]*) builds="$builds $1"; shift ;; *) break ;; esac
done
[ -n "$builds" ] && [ $# -le 2 ] || usage
COUNT=${1:-15}
BITS=${2:-14}
JE=$(ldconfig -p | awk '/libjemalloc\.so\.2 .*x86-64/ { print $NF; exit }')
T=$(mktemp -d /tmp/fk-hookflame.XXXXXX)
PIDS=""
cleanup() { for p in $PIDS; do kill -9 "$p" 2>/dev/null; done; rm -rf "$T"; }
trap cleanup EXIT
trap 'exit 1' INT TERM
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
cpu_ns() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%.0f\n", s }'; }

n=0
for b in $builds; do
	for f in "$b/libflamekit-hook.so" "$b/hook-bench-prog"; do
		[ -e "$f" ] || { echo "bench/hookflame.sh: missing $f (make units B=$b)" >&2; exit 1; }
	done
	n=$((n + 1))
	pt=$(port)
	mkfifo "$T/in$n"
	env LD_PRELOAD="$b/libflamekit-hook.so $JE" MALLOC_CONF=prof:true,prof_active:true,lg_prof_sample:0 \
		FLAMEKIT_HTTP=127.0.0.1:$pt "$b/hook-bench-prog" stacks "$BITS" <"$T/in$n" >"$T/out$n" 2>"$T/err$n" &
	eval "pid$n=$! url$n=http://127.0.0.1:$pt/internal/heap?format=flame"
	PIDS="$PIDS $!"
	eval "exec $((n + 2))>\"\$T/in$n\""
	i=0; while ! grep -q ready "$T/out$n" 2>/dev/null && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	grep -q ready "$T/out$n" || { echo "bench/hookflame.sh: the host of $b did not start" >&2; exit 1; }
	eval "curl -s --max-time 120 -o \"\$T/first$n.svg\" \"\$url$n\""
	: >"$T/times$n"
done
echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs; 2^$BITS stacks"
k=0
while [ $k -lt "$COUNT" ]; do
	j=1
	while [ $j -le $n ]; do
		eval "p=\$pid$j u=\$url$j"
		[ "${FRESH:-0}" = 1 ] && u="$u&title=r$k"
		c0=$(cpu_ns "$p")
		w=$(curl -s --max-time 120 -o "$T/page$j.svg" -w '%{time_total}' "$u")
		c1=$(cpu_ns "$p")
		echo "$c0 $c1 $w" | awk '{ printf "%.3f %.1f\n", ($2 - $1) / 1e6, $3 * 1000 }' >>"$T/times$j"
		j=$((j + 1))
	done
	k=$((k + 1))
done
med() { sort -n -k"$2" "$1" | awk -v c="$2" '{ v[NR] = $c } END { printf "%.1f [%.1f .. %.1f]", v[int((NR + 1) / 2)], v[1], v[NR] }'; }
j=1
for b in $builds; do
	eval "p=\$pid$j"
	echo "$b: cpu $(med "$T/times$j" 1) ms, wall $(med "$T/times$j" 2) ms median [min .. max]," \
		"$(wc -c <"$T/page$j.svg") bytes, host VmHWM $(awk '/^VmHWM:/ { print $2 }' /proc/"$p"/status) KB ($COUNT requests)"
	# The origin's pid and time are the host's and the request's.
	sed '/^pid=[0-9]*$/d; /^time=[0-9]*$/d' "$T/page$j.svg" >"$T/cmp$j"
	cmp -s "$T/cmp$j" "$T/cmp1" || echo "$b: its page differs from the first build's"
	j=$((j + 1))
done
