#!/bin/sh
# SPDX-License-Identifier: MIT
# libflamekit-hook on programs that carry their own jemalloc (issue 11),
# each started the documented way: fk-rjem (Rust, _rjem_ static jemalloc,
# hook preloaded), fk-rjem-hook (the same, linking the hook and handing it
# _rjem_mallctl through fk_hook_set_mallctl), fk-jestatic (Debian's
# libjemalloc.a) and fk-jestatic-rjem (the same renamed to _rjem_), all
# from fixtures/sysroot (fixtures/RECIPES.md). For each: the seed's four
# checks (enable, then samples are collected; disable, then the profile is
# still served and stops growing; settings tells the current state and
# which mallctl was found where; without prof:true every profile endpoint
# says which variable to set), flame SVG and go tool pprof on the URL.
# Then the doubly-loaded case (libjemalloc.so.2 preloaded as well): the
# right allocator's samples or a clear sentence, never a silent empty 200.
. "$(dirname "$0")/hooklib.sh"
WAIT_TENTHS=300
# A fixture that died must fail its checks, not kill the script on the
# next command written to it.
trap '' PIPE
FX=fixtures/sysroot/opt/fk/bin
ON=prof:true,prof_active:false
BLOCK=65536
export PPROF_TMPDIR=$T HOME=$T

# rawbytes: unbiased in-use bytes of the raw dump at $U (0 when none);
# $(code) is its HTTP status afterwards.
rawbytes() {
	cu "$U/internal/heap?format=raw" >"$T/raw"
	"$B/jeprof-raw" --stats "$T/raw" >/dev/null 2>"$T/stats" || { echo 0; return; }
	awk '/^bytes:/ { printf "%d\n", $2; f = 1 } END { if (!f) print 0 }' "$T/stats"
}

# toprow FILE: the function on the first row of a go tool pprof -top.
toprow() { awk '/flat%/ { getline; print $NF; exit }' "$1"; }

# started NAME PROG ENV...: starts PROG (start_prog) and waits for its
# server; when either fails, says so (with the program's first error line)
# and stops the program, so that its other checks are not run.
started() {
	n=$1; shift
	if ! start_prog "$@"; then
		notok "$n: started: no 'ready' line; stderr: $(head -c 300 "$T/host.err")"
		kill -9 "$HOST_PID" 2>/dev/null; exec 3>&-
		return 1
	fi
	ok "$n: started"
	if ! wait_http "$U/internal/heap/settings"; then
		notok "$n: server answers: nothing at $U; stderr: $(head -c 300 "$T/host.err")"
		kill -9 "$HOST_PID" 2>/dev/null; exec 3>&-
		return 1
	fi
	ok "$n: server answers"
}

# works NAME PROG FUNC SYM SOURCE MODULE ENV...: the four checks and the
# formats on one fixture, started with ENV (serving 127.0.0.1:$port).
# FUNC is the allocation function (a Rust name may come with its path),
# SYM the mallctl settings must name ("-": any), SOURCE its
# mallctl_source, MODULE a pattern for its mallctl_module.
works() {
	name=$1 prog=$2 func=$3 sym=$4 src=$5 mod=$6; shift 6
	U=http://127.0.0.1:$port
	fre="(^|::)$func\$"
	started "$name" "$prog" "$@" || return 0
	check "$name: no hook error from the program" sh -c "! grep -q '^hook error' '$HOST_OUT'"

	s=$(cu "$U/internal/heap/settings")
	is "$name: settings is 200" "$(code)" 200
	is "$name: jemalloc found" "$(jfield "$s" jemalloc)" true
	[ "$sym" = - ] || is "$name: settings names the mallctl" "$(jfield "$s" mallctl)" "$sym"
	is "$name: mallctl_source" "$(jfield "$s" mallctl_source)" "$src"
	like "$name: mallctl_module" "$(jfield "$s" mallctl_module)" "$mod"
	is "$name: one jemalloc seen" "$(jfield "$s" jemallocs_found)" 1
	is "$name: profiling compiled" "$(jfield "$s" profiling_compiled)" true
	is "$name: profiling started" "$(jfield "$s" profiling_started)" true
	is "$name: not enabled at start" "$(jfield "$s" enabled)" false
	is "$name: no problem" "$(jfield "$s" problem)" null

	b=$(cu "$U/internal/heap?format=raw")
	is "$name: nothing sampled since start: 409" "$(code)" 409
	like "$name: and the 409 says so" "$b" 'nothing has been sampled'

	# 1. enable, then samples are collected.
	s=$(cu -X POST -H 'X-Flamekit: 1' "$U/internal/heap/settings?enabled=true&lg_sample=14")
	is "$name: POST enabled=true is 200" "$(code)" 200
	is "$name: POST answers enabled" "$(jfield "$s" enabled)" true
	s=$(cu "$U/internal/heap/settings")
	is "$name: settings says enabled" "$(jfield "$s" enabled)" true
	is "$name: settings says lg_sample 14" "$(jfield "$s" lg_sample)" 14
	check "$name: grows 100 blocks" host_cmd "grow 100" '^grown 100$'
	b1=$(rawbytes)
	is "$name: raw dump is 200" "$(code)" 200
	# 100 blocks of 64 KiB are 6.5 MB; sampled at lg 14, a run counts 80 to
	# 100 of them (jemalloc's sampling varies that much): 40 is the bound.
	check "$name: raw dump holds the 6.5 MB grown (got $b1)" [ "$b1" -gt $((BLOCK * 40)) ]
	cu "$U/internal/heap?format=pprof" >"$T/p.pb.gz"
	is "$name: pprof is 200" "$(code)" 200
	go tool pprof -top "$T/p.pb.gz" >"$T/top" 2>&1
	like "$name: pprof -top: $func on top" "$(toprow "$T/top")" "$fre"
	cu "$U/internal/heap?format=flame" >"$T/f.svg"
	is "$name: flame is 200" "$(code)" 200
	check "$name: flame is valid XML (xmllint)" xmllint --noout "$T/f.svg"
	check "$name: flame names $func" grep -q "$func" "$T/f.svg"
	line=$(cu "$U/internal/heap?format=folded" | sort -t' ' -k2 -n | tail -1)
	like "$name: folded: the heaviest stack ends in $func" "$line" "(;|::)$func [0-9]+\$"
	go tool pprof -top "$U/debug/pprof/heap" >"$T/top2" 2>&1; st=$?
	is "$name: go tool pprof -top URL/debug/pprof/heap exits 0" "$st" 0
	like "$name: go tool pprof on the URL: $func on top" "$(toprow "$T/top2")" "$fre"

	# 2. disable, then the profile is still served and stops growing.
	s=$(cu -X POST -H 'X-Flamekit: 1' "$U/internal/heap/settings?enabled=false")
	is "$name: POST enabled=false is 200" "$(code)" 200
	is "$name: POST answers not enabled" "$(jfield "$s" enabled)" false
	b2=$(rawbytes)
	is "$name: raw dump after disable is 200" "$(code)" 200
	check "$name: after disable it still holds what was sampled (got $b2)" [ "$b2" -gt $((BLOCK * 40)) ]
	for u in "internal/heap" "internal/heap?format=folded" "internal/heap?format=flame" \
	    "internal/heap?format=symbolized" "debug/pprof/heap"; do
		cu "$U/$u" >"$T/off"
		is "$name: /$u after disable is 200" "$(code)" 200
	done
	cu "$U/internal/heap?format=folded" >"$T/off"
	check "$name: folded after disable names $func" grep -q "$func" "$T/off"
	"$B/jeprof-raw" "$U" >"$T/fetched" 2>"$T/jr.err"; st=$?
	is "$name: jeprof-raw URL after disable exits 0" "$st" 0
	check "$name: jeprof-raw URL after disable writes a dump" grep -q '^MAPPED_LIBRARIES:' "$T/fetched"
	check "$name: grows 100 more while disabled" host_cmd "grow 100" '^grown 200$'
	b3=$(rawbytes)
	# Sampled, 100 more blocks would add 5 to 6.5 MB; not sampled, nothing.
	check "$name: disabled, the profile did not grow by the 6.5 MB ($b2 -> $b3)" \
		sh -c "[ $b3 -gt $((BLOCK * 40)) ] && [ $b3 -lt $((b2 + BLOCK * 10)) ]"

	# 3. settings returns the current state.
	s=$(cu "$U/internal/heap/settings")
	is "$name: settings says not enabled" "$(jfield "$s" enabled)" false
	is "$name: settings keeps lg_sample 14" "$(jfield "$s" lg_sample)" 14
	like "$name: dumps are counted" "$(jfield "$s" dumps_served)" '^([5-9]|[1-9][0-9]+)$'
	# A reset (lg_sample) while disabled empties the profile: 409 again.
	cu -X POST -H 'X-Flamekit: 1' "$U/internal/heap/settings?lg_sample=15" >/dev/null
	is "$name: reset while disabled is 200" "$(code)" 200
	b=$(cu "$U/internal/heap?format=raw")
	is "$name: nothing sampled since the reset: 409" "$(code)" 409
	like "$name: and the 409 says so" "$b" 'nothing has been sampled'
	check "$name: exits cleanly" stop_host
}

# notstarted NAME PROG SYM VAR ENV...: started without prof:true, every
# profile endpoint answers 503 with a sentence naming VAR.
notstarted() {
	name=$1 prog=$2 sym=$3 var=$4; shift 4
	U=http://127.0.0.1:$port
	started "$name" "$prog" "$@" || return 0
	s=$(cu "$U/internal/heap/settings")
	is "$name: settings is 200" "$(code)" 200
	is "$name: jemalloc found" "$(jfield "$s" jemalloc)" true
	[ "$sym" = - ] || is "$name: settings names the mallctl" "$(jfield "$s" mallctl)" "$sym"
	is "$name: profiling compiled" "$(jfield "$s" profiling_compiled)" true
	is "$name: profiling not started" "$(jfield "$s" profiling_started)" false
	like "$name: settings' problem names $var" "$(jfield "$s" problem)" "$var"
	for u in "internal/heap" "internal/heap?format=raw" "internal/heap?format=flame" \
	    "internal/heap?format=folded" "internal/heap?format=symbolized" \
	    "debug/pprof/heap"; do
		b=$(cu "$U/$u")
		is "$name: /$u is 503" "$(code)" 503
		like "$name: /$u names $var" "$b" "$var"
	done
	b=$(cu -X POST -H 'X-Flamekit: 1' "$U/internal/heap/settings?enabled=true")
	like "$name: POST enabled=true is refused" "$(code)" '^[45][0-9][0-9]$'
	like "$name: and the refusal names $var" "$b" "$var"
	"$B/jeprof-raw" "$U" >/dev/null 2>"$T/jr.err"; st=$?
	is "$name: jeprof-raw URL exits 1" "$st" 1
	like "$name: jeprof-raw says the server's status" "$(cat "$T/jr.err")" "HTTP 503: "
	check "$name: exits cleanly" stop_host
}

RJ='_RJEM_MALLOC_CONF.*prof:true|prof:true.*_RJEM_MALLOC_CONF'
MC='MALLOC_CONF=prof:true'

port=$(free_port)
works fk-rjem "$FX/fk-rjem" rjem_grow_cache _rjem_mallctl .symtab '/fk-rjem$' \
	LD_PRELOAD="$HOOK" _RJEM_MALLOC_CONF=$ON FLAMEKIT_HTTP=127.0.0.1:$port
port=$(free_port)
works fk-rjem-hook "$FX/fk-rjem-hook" rjem_grow_cache _rjem_mallctl api '/fk-rjem-hook$' \
	LD_LIBRARY_PATH="$B" _RJEM_MALLOC_CONF=$ON FK_FIXTURE_HTTP=127.0.0.1:$port
port=$(free_port)
works fk-jestatic "$FX/fk-jestatic" jes_grow_cache mallctl .symtab '/fk-jestatic$' \
	LD_PRELOAD="$HOOK" MALLOC_CONF=$ON FLAMEKIT_HTTP=127.0.0.1:$port
port=$(free_port)
works fk-jestatic-rjem "$FX/fk-jestatic-rjem" jes_grow_cache _rjem_mallctl .symtab '/fk-jestatic-rjem$' \
	LD_PRELOAD="$HOOK" _RJEM_MALLOC_CONF=$ON FLAMEKIT_HTTP=127.0.0.1:$port

# Without the variable (the hook's own malloc_conf cannot reach a jemalloc
# linked into the program), and with prof:false said outright.
port=$(free_port)
notstarted "fk-rjem, no _RJEM_MALLOC_CONF" "$FX/fk-rjem" _rjem_mallctl "$RJ" \
	LD_PRELOAD="$HOOK" FLAMEKIT_HTTP=127.0.0.1:$port
port=$(free_port)
notstarted "fk-rjem, prof:false" "$FX/fk-rjem" _rjem_mallctl "$RJ" \
	LD_PRELOAD="$HOOK" _RJEM_MALLOC_CONF=prof:false FLAMEKIT_HTTP=127.0.0.1:$port
port=$(free_port)
notstarted "fk-rjem-hook, no _RJEM_MALLOC_CONF" "$FX/fk-rjem-hook" - "$RJ" \
	LD_LIBRARY_PATH="$B" FK_FIXTURE_HTTP=127.0.0.1:$port
port=$(free_port)
notstarted "fk-jestatic, no MALLOC_CONF" "$FX/fk-jestatic" mallctl "$MC" \
	LD_PRELOAD="$HOOK" FLAMEKIT_HTTP=127.0.0.1:$port
port=$(free_port)
notstarted "fk-jestatic-rjem, no _RJEM_MALLOC_CONF" "$FX/fk-jestatic-rjem" _rjem_mallctl "$RJ" \
	LD_PRELOAD="$HOOK" FLAMEKIT_HTTP=127.0.0.1:$port

# The signal dump, too, serves what was sampled once sampling is off. The
# host starts at lg 14 as well: a thread's first sample comes after a wait
# drawn at the starting lg (jemalloc's default 19, 512 KiB on average), and
# 50 blocks of 64 KiB stayed inside it in about 1 run in 500 (seen in CI).
port=$(free_port)
U=http://127.0.0.1:$port
mkdir -p "$T/dumps"
if started "fk-jestatic, FLAMEKIT_DUMP_SIGNAL=USR2" "$FX/fk-jestatic" LD_PRELOAD="$HOOK" \
    MALLOC_CONF=$ON,lg_prof_sample:14 FLAMEKIT_DUMP_SIGNAL=USR2 FLAMEKIT_DUMP_DIR="$T/dumps" FLAMEKIT_HTTP=127.0.0.1:$port; then
	enable "$U" "&lg_sample=14"
	check "signal: grows 50 blocks" host_cmd "grow 50" '^grown 50$'
	cu -X POST -H 'X-Flamekit: 1' "$U/internal/heap/settings?enabled=false" >/dev/null
	is "signal: disabled" "$(code)" 200
	kill -USR2 "$HOST_PID"
	sigd=$T/dumps/flamekit.$HOST_PID.0.heap
	i=0; while [ ! -s "$sigd" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	check "signal: USR2 after disable wrote a dump" [ -s "$sigd" ]
	check "signal: it is a valid dump" "$B/jeprof-raw" --check "$sigd"
	"$B/symbolize" "$sigd" >"$T/sigsym" 2>/dev/null
	"$B/to-folded" "$T/sigsym" >"$T/sigf" 2>/dev/null
	check "signal: it names jes_grow_cache" grep -q jes_grow_cache "$T/sigf"
	check "signal: exits cleanly" stop_host
fi

# FLAMEKIT_MALLCTL names the symbol: found in .symtab when it is there,
# and said so when it is nowhere.
# rjem_mallctl SYMBOL: fk-rjem started (started's checks) with
# FLAMEKIT_MALLCTL=SYMBOL, serving a new port at $U.
rjem_mallctl() {
	port=$(free_port)
	U=http://127.0.0.1:$port
	started "fk-rjem, FLAMEKIT_MALLCTL=$1" "$FX/fk-rjem" LD_PRELOAD="$HOOK" \
		FLAMEKIT_MALLCTL="$1" _RJEM_MALLOC_CONF=$ON FLAMEKIT_HTTP=127.0.0.1:$port
}
if rjem_mallctl _rjem_mallctl; then
	s=$(cu "$U/internal/heap/settings")
	is "FLAMEKIT_MALLCTL=_rjem_mallctl: jemalloc found" "$(jfield "$s" jemalloc)" true
	is "FLAMEKIT_MALLCTL=_rjem_mallctl: that symbol" "$(jfield "$s" mallctl)" _rjem_mallctl
	is "FLAMEKIT_MALLCTL=_rjem_mallctl: from .symtab" "$(jfield "$s" mallctl_source)" .symtab
	check "FLAMEKIT_MALLCTL=_rjem_mallctl: exits cleanly" stop_host
fi
if rjem_mallctl fk_no_such_mallctl; then
	s=$(cu "$U/internal/heap/settings")
	is "FLAMEKIT_MALLCTL not found: jemalloc false" "$(jfield "$s" jemalloc)" false
	like "FLAMEKIT_MALLCTL not found: problem names the variable and the symbol" \
		"$(jfield "$s" problem)" 'FLAMEKIT_MALLCTL.*fk_no_such_mallctl'
	b=$(cu "$U/internal/heap")
	is "FLAMEKIT_MALLCTL not found: heap is 503" "$(code)" 503
	like "FLAMEKIT_MALLCTL not found: the 503 says so" "$b" 'FLAMEKIT_MALLCTL.*fk_no_such_mallctl'
	check "FLAMEKIT_MALLCTL not found: exits cleanly" stop_host
fi

# doubly NAME PROG FUNC ENV...: a program with a _rjem_ jemalloc inside it
# and libjemalloc.so.2 preloaded after the hook (which then gives the
# preloaded copy prof:true too). Both copies are seen; the hook serves the
# one the program's allocations go to, or says why it cannot.
doubly() {
	name=$1 prog=$2 func=$3; shift 3
	U=http://127.0.0.1:$port
	started "$name" "$prog" "$@" || return 0
	s=$(cu "$U/internal/heap/settings")
	is "$name: settings is 200" "$(code)" 200
	like "$name: both jemallocs seen" "$(jfield "$s" jemallocs_found)" '^([2-9]|[1-9][0-9]+)$'
	cu -X POST -H 'X-Flamekit: 1' "$U/internal/heap/settings?enabled=true&lg_sample=14" >/dev/null
	check "$name: grows 100 blocks" host_cmd "grow 100" '^grown 100$'
	cu "$U/internal/heap?format=folded" >"$T/dfold"
	c=$(code)
	s=$(cu "$U/internal/heap/settings")
	if [ "$c" = 200 ]; then
		ok "$name: profile served (200)"
		line=$(sort -t' ' -k2 -n "$T/dfold" | tail -1)
		like "$name: 200: the right allocator's samples ($func heaviest)" "$line" "(;|::)$func [0-9]+\$"
		is "$name: 200: settings names _rjem_mallctl" "$(jfield "$s" mallctl)" _rjem_mallctl
		like "$name: 200: in the program" "$(jfield "$s" mallctl_module)" "/$name\$"
		cu "$U/debug/pprof/heap" >"$T/dp.pb.gz"
		go tool pprof -top "$T/dp.pb.gz" >"$T/dtop" 2>&1
		like "$name: 200: pprof -top: $func on top" "$(toprow "$T/dtop")" "(^|::)$func\$"
	else
		like "$name: not served: an error status ($c)" "$c" '^[45][0-9][0-9]$'
		like "$name: not served: a sentence says why" "$(cat "$T/dfold")" '[a-z]+ [a-z]+ [a-z]+ [a-z]+'
		like "$name: not served: settings has a problem" "$(jfield "$s" problem)" '[a-z]+ [a-z]+ [a-z]+'
	fi
	check "$name: exits cleanly" stop_host
}

port=$(free_port)
doubly fk-jestatic-rjem "$FX/fk-jestatic-rjem" jes_grow_cache \
	LD_PRELOAD="$HOOK $JE" _RJEM_MALLOC_CONF=$ON FLAMEKIT_HTTP=127.0.0.1:$port
port=$(free_port)
doubly fk-rjem "$FX/fk-rjem" rjem_grow_cache \
	LD_PRELOAD="$HOOK $JE" _RJEM_MALLOC_CONF=$ON FLAMEKIT_HTTP=127.0.0.1:$port

