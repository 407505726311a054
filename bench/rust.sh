#!/bin/sh
# SPDX-License-Identifier: MIT
# What the flamekit crate costs a Rust service, beside the preloaded hook
# (bench/README.md, "Rust services: the crate"). Two programs, RUNS runs
# each:
#   crate      the seed server (rust/flamekit/examples/seed.rs: the hook
#              linked in, routes through flamekit::handle_from, the shared
#              libjemalloc.so.2), asked over its own port;
#   preloaded  fk-rjem (fixtures/sysroot/opt/fk/bin: a Rust program on
#              jemalloc-sys's static _rjem_ jemalloc, no hook of its own)
#              with LD_PRELOAD=libflamekit-hook.so and FLAMEKIT_HTTP.
# Per run: VmRSS idle (started, no heap route asked yet) and its
# anonymous part (RssAnon; the rest is the libraries' file pages), VmRSS sampling
# (sampling on, 8 MiB allocated and kept: crate 2048 x 4 KiB, preloaded
# 128 x 64 KiB), the first scrape's wall time (GET /internal/heap, pprof:
# the program's modules symbolized), the median of 5 more, then VmRSS and
# VmHWM, and the hook's own arena's resident bytes (settings'
# hook_memory.resident; 0 when the hook's allocations go to glibc's
# malloc: a static _rjem_ jemalloc serves none of them). A first line,
# baseline, is fk-rjem alone. Prints the medians, one line a program.
# Usage: bench/rust.sh [RUNS]   (default 5; B=build; the examples built
# by tests/rust/build.t or `cargo build` into $B/rust-target)
set -eu
RUNS=${1:-5}
B=${B:-build}
case "$B" in /*) ;; *) B=$(pwd)/$B ;; esac
SEED=$B/rust-target/release/examples/seed
RJEM=fixtures/sysroot/opt/fk/bin/fk-rjem
HOOK=$B/libflamekit-hook.so
for f in "$SEED" "$RJEM" "$HOOK"; do
	[ -e "$f" ] || { echo "bench/rust.sh: missing $f (make B=$B; B=$B tests/rust/build.t)" >&2; exit 1; }
done
T=$(mktemp -d /tmp/fk-rustbench.XXXXXX)
P=""
trap '[ -n "$P" ] && kill $P 2>/dev/null; exec 3>&- 2>/dev/null; rm -rf "$T"' EXIT
trap 'exit 1' INT TERM
st() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }
med() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
waitfor() { i=0; while ! grep -q "$1" "$2" 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done; }
ms() { curl -s -o /dev/null --max-time 120 -w '%{time_total}' "$1" | awk '{ printf "%.1f\n", $1 * 1000 }'; }
resident() {
	curl -s --max-time 60 "$1/internal/heap/settings" | python3 -c '
import json, sys
print(json.load(sys.stdin)["hook_memory"]["resident"])'
}

# scrape U: the first scrape, 5 more, the figures after; appends a row.
scrape() {
	first=$(ms "$1/internal/heap")
	: >"$T/later"
	for i in 1 2 3 4 5; do ms "$1/internal/heap" >>"$T/later"; done
	echo "$idle $samp $first $(med <"$T/later") $(st $P VmRSS) $(st $P VmHWM) $(resident "$1")" >>"$T/rows"
}

crate_run() {
	: >"$T/out"
	"$SEED" 127.0.0.1:0 >"$T/out" 2>"$T/err" </dev/null &
	P=$!
	waitfor '^listening' "$T/out"
	U=http://127.0.0.1:$(sed -n 's/^listening on .*:\([0-9]*\)$/\1/p' "$T/out")
	curl -s -o /dev/null --max-time 10 "$U/health"
	sleep 0.5
	idle="$(st $P VmRSS) $(st $P RssAnon)"
	curl -s -o /dev/null -X POST --max-time 30 "$U/internal/heap/settings?enabled=true"
	curl -s -o /dev/null -X POST --max-time 30 "$U/cache?items=2048"
	samp=$(st $P VmRSS)
	scrape "$U"
	kill $P; wait $P 2>/dev/null || true; P=""
}

preloaded_run() {
	pt=$(port)
	rm -f "$T/in"; mkfifo "$T/in"; : >"$T/out"
	env LD_PRELOAD="$HOOK" FLAMEKIT_HTTP=127.0.0.1:$pt \
		_RJEM_MALLOC_CONF=prof:true,prof_active:false,lg_prof_sample:19 \
		"$RJEM" <"$T/in" >"$T/out" 2>"$T/err" &
	P=$!
	exec 3>"$T/in"
	waitfor '^ready' "$T/out"
	U=http://127.0.0.1:$pt
	# Listening (the port taken): asking would load the serving half.
	i=0; while ! grep -q ":$(printf '%04X' "$pt") 00000000:0000 0A" /proc/net/tcp && [ $i -lt 300 ]; do
		sleep 0.1; i=$((i + 1)); done
	sleep 0.5
	idle="$(st $P VmRSS) $(st $P RssAnon)"
	curl -s -o /dev/null -X POST --max-time 30 "$U/internal/heap/settings?enabled=true"
	echo "grow 128" >&3
	waitfor '^grown' "$T/out"
	samp=$(st $P VmRSS)
	scrape "$U"
	exec 3>&-
	kill $P 2>/dev/null; wait $P 2>/dev/null || true; P=""
}

# baseline: fk-rjem alone (no hook; sampling on from its start), for the
# preloaded row's share: idle, then 8 MiB kept.
baseline_run() {
	rm -f "$T/in"; mkfifo "$T/in"; : >"$T/out"
	env _RJEM_MALLOC_CONF=prof:true,prof_active:true,lg_prof_sample:19 \
		"$RJEM" <"$T/in" >"$T/out" 2>"$T/err" &
	P=$!
	exec 3>"$T/in"
	waitfor '^ready' "$T/out"
	sleep 0.5
	idle="$(st $P VmRSS) $(st $P RssAnon)"
	echo "grow 128" >&3
	waitfor '^grown' "$T/out"
	echo "$idle $(st $P VmRSS) - - $(st $P VmRSS) $(st $P VmHWM) 0" >>"$T/rows"
	exec 3>&-
	kill $P 2>/dev/null; wait $P 2>/dev/null || true; P=""
}

printf '%-10s %9s %9s %9s %9s %9s %9s %9s %9s\n' program idle_kB idle_anon samp_kB first_ms \
	next_ms rss_kB hwm_kB hook_kB
for kind in baseline crate preloaded; do
	: >"$T/rows"
	r=0
	while [ $r -lt "$RUNS" ]; do
		${kind}_run
		r=$((r + 1))
	done
	printf '%-10s' "$kind"
	for c in 1 2 3 4 5 6 7; do printf ' %9s' "$(awk -v c=$c '{ print $c }' "$T/rows" | med)"; done
	printf ' %9s\n' "$(awk '{ print int($8 / 1024) }' "$T/rows" | med)"
done
