#!/bin/sh
# SPDX-License-Identifier: MIT
# libflamekit-hook when jemalloc does not read the hook's options, or the
# jemalloc found is not the program's (issue 20, items 7, 8, 9). Each case
# reads the settings' problem, checks that it names the real cause and
# says nothing wrong, then FOLLOWS its advice (the VAR=VALUE it gives,
# taken from the sentence itself) and checks that profiling then works:
# - conf-own-prog defines malloc_conf ("narenas:1"), as knot-resolver's
#   kresd does, with the hook preloaded first: the sentence names the
#   program's malloc_conf and the variable that works;
# - the hook after libjemalloc.so.2, MALLOC_CONF=prof:false: said so;
# - jemalloc without prof_accum: the allocs sentence names the variable of
#   the jemalloc served (MALLOC_CONF, _RJEM_MALLOC_CONF);
# - fk-jestatic stripped of .symtab (Debian's libjemalloc.a linked in):
#   never "preload libjemalloc.so.2"; with it preloaded anyway no profile
#   is served empty; keeping mallctl, the debug file (in a private mount
#   namespace over /usr/lib/debug) and fk_hook_set_mallctl each work.
. "$(dirname "$0")/hooklib.sh"
WAIT_TENTHS=300
trap '' PIPE
FX=fixtures/sysroot/opt/fk/bin
ON=prof:true,prof_active:false
export PPROF_TMPDIR=$T HOME=$T

# started NAME PROG ENV...: start_prog, then waits for the server. An
# empty ENV (no advice found: already a failed check) starts nothing.
started() {
	n=$1; shift
	for e in "$@"; do [ -n "$e" ] || { notok "$n: no advice to follow"; return 1; }; done
	port=$(free_port)
	U=http://127.0.0.1:$port
	if ! start_prog "$@" FLAMEKIT_HTTP=127.0.0.1:$port FK_FIXTURE_HTTP=127.0.0.1:$port; then
		notok "$n: started: no 'ready' line; stderr: $(head -c 300 "$T/host.err")"
		kill -9 "$HOST_PID" 2>/dev/null; exec 3>&-
		return 1
	fi
	if ! wait_http "$U/internal/heap/settings"; then
		notok "$n: server answers: nothing at $U; stderr: $(head -c 300 "$T/host.err")"
		kill -9 "$HOST_PID" 2>/dev/null; exec 3>&-
		return 1
	fi
	ok "$n: started, server answers"
}

# lacks DESC TEXT PATTERN: ok when TEXT does not match PATTERN (grep -E).
lacks() { if printf '%s\n' "$2" | grep -Eq -- "$3"; then notok "$1: '$(printf '%s' "$2" | head -c 300)' matches /$3/"; else ok "$1"; fi; }

# advice TEXT: the VAR=VALUE a sentence says to restart the program with.
advice() {
	printf '%s\n' "$1" | grep -oE 'restart the program with [A-Z_]+=[^ ()]+' | head -1 |
		sed 's/^restart the program with //'
}

# profiles NAME FUNC: sampling on at lg 14, 100 blocks grown, the folded
# profile's heaviest stack ends in FUNC ("-": the raw dump holds them, for
# a program without names), and /debug/pprof/allocs has its alloc types.
profiles() {
	name=$1 func=$2
	s=$(cu "$U/internal/heap/settings")
	is "$name: profiling started" "$(jfield "$s" profiling_started)" true
	is "$name: no problem" "$(jfield "$s" problem)" null
	is "$name: prof_accum" "$(jfield "$s" prof_accum)" true
	is "$name: no allocs sentence" "$(jfield "$s" allocs)" null
	cu -X POST -H 'X-Flamekit: 1' "$U/internal/heap/settings?enabled=true&lg_sample=14" >/dev/null
	is "$name: enabled" "$(code)" 200
	check "$name: grows 100 blocks" host_cmd "grow 100" '^grown 100$'
	if [ "$func" = - ]; then
		cu "$U/internal/heap?format=raw" >"$T/raw"
		is "$name: raw is 200" "$(code)" 200
		"$B/jeprof-raw" --stats "$T/raw" >/dev/null 2>"$T/stats"
		b=$(awk '/^bytes:/ { printf "%d\n", $2; f = 1 } END { if (!f) print 0 }' "$T/stats")
		check "$name: the raw dump holds the 6.5 MB grown (got $b)" [ "$b" -gt $((65536 * 40)) ]
	else
		line=$(cu "$U/internal/heap?format=folded" | sort -t' ' -k2 -n | tail -1)
		is "$name: folded is 200" "$(code)" 200
		like "$name: the heaviest stack ends in $func" "$line" "(;|::)$func [0-9]+\$"
		cu "$U/debug/pprof/allocs" >"$T/a.pb.gz"
		is "$name: allocs is 200" "$(code)" 200
		go tool pprof -raw "$T/a.pb.gz" >"$T/araw" 2>&1
		check "$name: allocs has alloc_space" grep -q 'alloc_space/bytes' "$T/araw"
	fi
	check "$name: exits cleanly" stop_host
}

# refuses NAME PATTERN: every profile endpoint answers 503 with a sentence
# matching PATTERN, never a 200.
refuses() {
	name=$1 pat=$2
	for u in "internal/heap" "internal/heap?format=folded" "internal/heap?format=flame" \
	    "internal/heap?format=raw" "debug/pprof/heap" "debug/pprof/allocs"; do
		b=$(cu "$U/$u")
		is "$name: /$u is 503" "$(code)" 503
		like "$name: /$u says why" "$b" "$pat"
	done
}

# 7. The program's own malloc_conf, the hook first in LD_PRELOAD (kresd).
if started "own malloc_conf" "$B/conf-own-prog" LD_PRELOAD="$HOOK"; then
	p=$(jfield "$(cu "$U/internal/heap/settings")" problem)
	is "own malloc_conf: profiling not started" \
		"$(jfield "$(cu "$U/internal/heap/settings")" profiling_started)" false
	like "own malloc_conf: the problem names the program's malloc_conf and its value" \
		"$p" 'conf-own-prog defines its own malloc_conf \("narenas:1"\)'
	like "own malloc_conf: and the variable with prof_accum" "$p" \
		'MALLOC_CONF=prof:true,prof_active:false,prof_accum:true'
	lacks "own malloc_conf: it does not say to put the hook first (it is)" "$p" \
		'before libjemalloc|first in LD_PRELOAD'
	refuses "own malloc_conf" 'defines its own malloc_conf'
	a=$(advice "$p")
	stop_host
	if started "own malloc_conf, $a" "$B/conf-own-prog" LD_PRELOAD="$HOOK" "$a"; then
		profiles "own malloc_conf, advice followed" hog_grow_cache
	fi
fi

# The same with the hook and libjemalloc.so.2 preloaded and options of the
# user's own in MALLOC_CONF: the advice keeps them.
if started "own malloc_conf, MALLOC_CONF=narenas:2" "$B/conf-own-prog" \
    LD_PRELOAD="$HOOK $JE" MALLOC_CONF=narenas:2; then
	p=$(jfield "$(cu "$U/internal/heap/settings")" problem)
	a=$(advice "$p")
	is "own malloc_conf, MALLOC_CONF=narenas:2: the advice keeps the user's options" "$a" \
		MALLOC_CONF=narenas:2,prof:true,prof_active:false,prof_accum:true
	stop_host
	if started "own malloc_conf, $a" "$B/conf-own-prog" LD_PRELOAD="$HOOK $JE" "$a"; then
		profiles "own malloc_conf, MALLOC_CONF kept, advice followed" hog_grow_cache
	fi
fi

# The hook after libjemalloc.so.2: said so, and the variable works.
if started "hook after jemalloc" "$B/hook-alloc-prog" LD_PRELOAD="$JE $HOOK"; then
	p=$(jfield "$(cu "$U/internal/heap/settings")" problem)
	like "hook after jemalloc: the problem says to put the hook first" "$p" \
		'put libflamekit-hook.so first in LD_PRELOAD'
	a=$(advice "$p")
	is "hook after jemalloc: or the variable" "$a" MALLOC_CONF=prof:true,prof_active:false,prof_accum:true
	stop_host
	if started "hook after jemalloc, $a" "$B/hook-alloc-prog" LD_PRELOAD="$JE $HOOK" "$a"; then
		profiles "hook after jemalloc, advice followed" hog_grow_cache
	fi
fi

# MALLOC_CONF=prof:false overrides the hook's malloc_conf: named, and the
# advice drops it.
if started "MALLOC_CONF=prof:false" "$B/hook-alloc-prog" LD_PRELOAD="$HOOK $JE" \
    MALLOC_CONF=prof:false,narenas:2; then
	p=$(jfield "$(cu "$U/internal/heap/settings")" problem)
	like "MALLOC_CONF=prof:false: named as the cause" "$p" 'MALLOC_CONF=prof:false,narenas:2 overrides'
	a=$(advice "$p")
	is "MALLOC_CONF=prof:false: the advice" "$a" MALLOC_CONF=narenas:2,prof:true,prof_active:false,prof_accum:true
	stop_host
	if started "MALLOC_CONF=prof:false, $a" "$B/hook-alloc-prog" LD_PRELOAD="$HOOK $JE" "$a"; then
		profiles "MALLOC_CONF=prof:false, advice followed" hog_grow_cache
	fi
fi

# 9. Without prof_accum the allocs sentence names the served jemalloc's
# own variable, with the value that works.
accum() {
	name=$1 var=$2 func=$3 prog=$4; shift 4
	if started "$name" "$prog" "$@"; then
		s=$(cu "$U/internal/heap/settings")
		is "$name: prof_accum false" "$(jfield "$s" prof_accum)" false
		al=$(jfield "$s" allocs)
		like "$name: the allocs sentence names $var" "$al" "with $var=[^ ]*prof_accum:true"
		a=$(advice "$al")
		stop_host
		if started "$name, $a" "$prog" "$@" "$a"; then
			profiles "$name, advice followed" "$func"
		fi
	fi
}
accum "shared, no prof_accum" MALLOC_CONF hog_grow_cache "$B/hook-alloc-prog" \
	LD_PRELOAD="$JE $HOOK" MALLOC_CONF=prof:true,prof_active:false
accum "fk-jestatic-rjem, no prof_accum" _RJEM_MALLOC_CONF jes_grow_cache "$FX/fk-jestatic-rjem" \
	LD_PRELOAD="$HOOK" _RJEM_MALLOC_CONF=prof:true,prof_active:false
accum "fk-jestatic, no prof_accum" MALLOC_CONF jes_grow_cache "$FX/fk-jestatic" \
	LD_PRELOAD="$HOOK" MALLOC_CONF=prof:true,prof_active:false

# 8. A static jemalloc stripped of .symtab.
ACC=$ON,prof_accum:true
if started "stripped" "$B/fk-jestatic-stripped" LD_PRELOAD="$HOOK" MALLOC_CONF=$ACC; then
	p=$(jfield "$(cu "$U/internal/heap/settings")" problem)
	like "stripped: the problem says jemalloc is linked in" "$p" 'jemalloc is linked into .*fk-jestatic-stripped'
	like "stripped: keep .symtab" "$p" 'strip --keep-symbol=mallctl'
	like "stripped: the debug file" "$p" 'debug file'
	like "stripped: fk_hook_set_mallctl" "$p" 'fk_hook_set_mallctl'
	like "stripped: never preload libjemalloc.so.2" "$p" 'never preload libjemalloc.so.2'
	lacks "stripped: no advice to preload it" "$p" 'LD_PRELOAD=.*libjemalloc'
	refuses "stripped" 'symbol table'
	stop_host
fi
# The old advice followed anyway: libjemalloc.so.2 preloaded. Its copy
# serves nothing of the program: no profile is served empty.
if started "stripped, libjemalloc.so.2 preloaded" "$B/fk-jestatic-stripped" \
    LD_PRELOAD="$HOOK $JE" MALLOC_CONF=$ACC; then
	s=$(cu "$U/internal/heap/settings")
	like "stripped, preloaded: the problem says it serves none of the program's allocations" \
		"$(jfield "$s" problem)" "serves none of the program's allocations"
	cu -X POST -H 'X-Flamekit: 1' "$U/internal/heap/settings?enabled=true" >/dev/null
	like "stripped, preloaded: enabling is refused" "$(code)" '^5[0-9][0-9]$'
	check "stripped, preloaded: grows 20 blocks" host_cmd "grow 20" '^grown 20$'
	refuses "stripped, preloaded" "serves none of the program's allocations"
	stop_host
fi
# What works: mallctl kept in .symtab,
if started "stripped but mallctl" "$B/fk-jestatic-keep" LD_PRELOAD="$HOOK" MALLOC_CONF=$ACC; then
	is "stripped but mallctl: found in .symtab" \
		"$(jfield "$(cu "$U/internal/heap/settings")" mallctl_source)" .symtab
	profiles "stripped but mallctl" -
fi
# the debug file, by build-id under /usr/lib/debug (a private mount
# namespace puts a folder of the test's there),
bid=$(readelf -n "$B/fk-jestatic-stripped" | awk '/Build ID:/ { print $3 }')
mkdir -p "$T/debug/.build-id/$(echo "$bid" | cut -c1-2)"
cp "$B/fk-jestatic.debug" "$T/debug/.build-id/$(echo "$bid" | cut -c1-2)/$(echo "$bid" | cut -c3-).debug"
cat >"$T/indebug" <<EOF
#!/bin/sh
exec unshare -m sh -c 'mount --bind "\$1" /usr/lib/debug && exec "\$2"' sh "$T/debug" "$B/fk-jestatic-stripped"
EOF
chmod +x "$T/indebug"
if started "stripped, debug file installed" "$T/indebug" LD_PRELOAD="$HOOK" MALLOC_CONF=$ACC; then
	is "stripped, debug file: found there" \
		"$(jfield "$(cu "$U/internal/heap/settings")" mallctl_source)" "debug file"
	profiles "stripped, debug file" jes_grow_cache
fi
# and fk_hook_set_mallctl (the fixture hands _rjem_mallctl over by address).
if started "stripped, fk_hook_set_mallctl" "$B/fk-rjem-hook-stripped" LD_LIBRARY_PATH="$B" \
    _RJEM_MALLOC_CONF=$ACC; then
	is "stripped, fk_hook_set_mallctl: the api copy" \
		"$(jfield "$(cu "$U/internal/heap/settings")" mallctl_source)" api
	profiles "stripped, fk_hook_set_mallctl" -
fi
echo "1..$tn"
