#!/bin/sh
# SPDX-License-Identifier: MIT
# The hook's own memory is not the program's (issue 20, item 5): on
# hook-alloc-prog, six fetches that fill the module cache leave the
# program's jemalloc figures (settings "memory", the timeline's snapshots)
# where they were, move the hook's own figures ("hook_memory", the series'
# "hook") by at least the cache's size, and cause no peak snapshot; a
# dump through fk_hook_dump leaves its thread's arena as it was.
. "$(dirname "$0")/hooklib.sh"
port=$(free_port)
U=http://127.0.0.1:$port
MiB=1048576
snap() { cu -X POST -H 'X-Flamekit: 1' "$U/internal/heap/snapshot" >/dev/null; [ "$(code)" = 200 ]; }
last() { cu "$U/internal/heap/timeline?format=json" | py "d['snapshots'][-1]$1"; }
settings() { cu "$U/internal/heap/settings" | py "$1"; }

start_host 127.0.0.1:$port FLAMEKIT_SNAPSHOT_S=0
check "host serves" wait_http "$U/internal/heap/settings"
enable "$U" "&lg_sample=12"
is "sampling on" "$(code)" 200
host_cmd "grow 50" '^grown 50'
check "a snapshot before" snap
a0=$(last "['allocated']") id0=$(last "['id']") h0=$(last "['hook']")
m0=$(settings "d['memory']['allocated']")
k0=$(settings "d['hook_memory']['allocated']")
c0=$(settings "d['cache_bytes']")
arena=$(settings "d['hook_memory']['arena']")
like "settings: the hook's arena is named" "$arena" '^[0-9]+$'
like "settings: the program's allocated bytes" "$m0" '^[0-9]+$'
like "timeline: the hook's figure" "$h0" '^[0-9]+$'

for i in 1 2 3; do
	cu "$U/debug/pprof/heap" >/dev/null
	is "fetch $i of /debug/pprof/heap" "$(code)" 200
	cu "$U/internal/heap?format=flame" >/dev/null
	is "fetch $i of the flame graph" "$(code)" 200
done
check "a snapshot after" snap
a1=$(last "['allocated']"); h1=$(last "['hook']")
m1=$(settings "d['memory']['allocated']")
k1=$(settings "d['hook_memory']['allocated']")
c1=$(settings "d['cache_bytes']")
echo "# cache $c0 -> $c1; program (timeline) $a0 -> $a1, (settings) $m0 -> $m1; hook (settings) $k0 -> $k1, (timeline) $h0 -> $h1"
# still DESC A B: both figures known, apart by less than 1 MiB.
still() {
	if num "$2" && num "$3" && [ $(($3 - $2)) -lt $MiB ] && [ $(($2 - $3)) -lt $MiB ]; then
		ok "$1"
	else
		notok "$1: $2 -> $3"
	fi
}
# grew DESC A B BY: both figures known, B at least BY above A.
grew() {
	if num "$2" && num "$3" && [ $(($3 - $2)) -ge "$4" ]; then ok "$1"; else notok "$1: $2 -> $3, not +$4"; fi
}
cache=$((c1 - c0))
check "the module cache took over 1 MiB" [ "$cache" -gt $MiB ]
still "timeline: the program's allocated moved by less than 1 MiB" "$a0" "$a1"
still "settings: the program's allocated moved by less than 1 MiB" "$m0" "$m1"
grew "settings: the hook's allocated grew by the cache's size" "$k0" "$k1" "$cache"
grew "timeline: the hook's figure grew by the cache's size" "$h0" "$h1" "$cache"
peaks=$(cu "$U/internal/heap/timeline?format=json" | py "sum(1 for s in d['snapshots'] if s['why'] == 'peak' and s['id'] > $id0)")
is "no peak snapshot from the hook's own work" "$peaks" 0
check "host quits" stop_host

# fk_hook_dump on the program's own thread (hook-api-prog links the hook):
# the dump's work, its module cache included, goes to the hook's arena, and
# the thread gets its arena and cache back.
"$B/hook-api-prog" >"$T/api" 2>"$T/api.err"
is "hook-api-prog exits 0" "$?" 0
is "fk_hook_dump of a pprof on the program's thread" "$(sed -n 's/^dump_after_off \([0-9-]*\).*/\1/p' "$T/api")" 0
g=$(sed -n 's/^dump_host_growth //p' "$T/api")
if num "${g#-}" && [ "${g#-}" -lt $MiB ]; then
	ok "fk_hook_dump: the thread's arena holds less than 1 MiB more ($g)"
else
	notok "fk_hook_dump: the thread's arena holds less than 1 MiB more: '$g'"
fi
is "fk_hook_dump: the thread's arena and cache restored" "$(sed -n 's/^dump_thread_kept //p' "$T/api")" 1
rm -f $(sed -n 's/^dump_file //p' "$T/api")

# A jemalloc linked into the program: with malloc its own (Debian's
# libjemalloc.a) the hook has its arena there; with a prefixed copy
# (_rjem_, malloc is glibc's) the hook's bytes are in none of its figures,
# and the settings say so.
FX=fixtures/sysroot/opt/fk/bin
for fx in fk-jestatic fk-rjem; do
	port=$(free_port)
	U=http://127.0.0.1:$port
	var=MALLOC_CONF
	[ $fx = fk-rjem ] && var=_RJEM_MALLOC_CONF
	# (start_prog sets prog.)
	if ! start_prog "$FX/$fx" LD_PRELOAD="$HOOK" $var=prof:true,prof_active:false \
		FLAMEKIT_HTTP=127.0.0.1:$port || ! wait_http "$U/internal/heap/settings"; then
		notok "$fx: serves"
		continue
	fi
	enable "$U" "&lg_sample=12"
	host_cmd "grow 20" '^grown'
	cu "$U/internal/heap?format=flame" >/dev/null
	is "$fx: a flame graph" "$(code)" 200
	j=$(cu "$U/internal/heap/settings")
	if [ $fx = fk-jestatic ]; then
		like "$fx: the hook's arena" "$(printf '%s' "$j" | py "d['hook_memory']['arena']")" '^[0-9]+$'
		grew "$fx: the hook's bytes hold the cache" 0 \
			"$(printf '%s' "$j" | py "d['hook_memory']['allocated']")" \
			"$(printf '%s' "$j" | py "d['cache_bytes']")"
	else
		is "$fx: no arena" "$(printf '%s' "$j" | py "d['hook_memory']['arena']")" null
		like "$fx: the settings say why" "$(printf '%s' "$j" | py "d['hook_memory']['note']")" \
			"does not serve malloc: the hook's allocations go to the process's malloc"
	fi
	check "$fx: quits" stop_host
done
echo "1..$tn"
