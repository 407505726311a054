#!/bin/sh
# SPDX-License-Identifier: MIT
# varnish under the hook (issue 20 item 4): varnishd -F on loopback in
# front of python's http.server. varnishd calls close_range(3, ~0) at
# start and forks its cache child without exec, so this is items 1 and 2
# on a real service. Without the hook first (what TERM does, how long it
# takes), then with it: requests answer 200, the endpoint answers, the
# processes list holds the manager and the cache child, the child's
# profile has frames in varnishd, and TERM ends both processes as it does
# without the hook. Loopback only; varnishd started as root drops to
# Debian's varnish and vcache users (-j unix, its default for root).
. "$(dirname "$0")/svclib.sh"

VD=$(command -v varnishd || echo /usr/sbin/varnishd)
if [ ! -x "$VD" ]; then
	echo "not ok 1 - varnishd is not installed (scripts/install-deps installs varnish)"
	exit 1
fi
# Debian's varnishd links libjemalloc.so.2 itself: the hook goes first in
# LD_PRELOAD, before the same library (libflamekit-hook(3), Preloading).
like "Debian's varnishd links libjemalloc.so.2" "$(ldd "$VD")" 'libjemalloc\.so\.2 =>'

# The users varnishd drops to must reach its -n directory under $T.
chmod 711 "$T"
mkdir "$T/www"
i=0
while [ $i -lt 40 ]; do
	head -c 12000 /dev/zero | tr '\0' x >"$T/www/f$i.txt"
	i=$((i + 1))
done
echo hello >"$T/www/index.html"
bport=$(free_port)
python3 -m http.server "$bport" --bind 127.0.0.1 --directory "$T/www" >"$T/backend.log" 2>&1 &
PIDS="$PIDS $!"
backend() { curl -s -o /dev/null --max-time 3 "http://127.0.0.1:$bport/"; }
check "the backend answers" wait_secs 20 backend

# traffic VPORT N: N requests for distinct objects through varnish; prints
# how many answered 200.
traffic() {
	n=0 k=0 urls=""
	while [ $k -lt "$2" ]; do
		urls="$urls -o /dev/null http://127.0.0.1:$1/f$((k % 40)).txt?k=$k"
		k=$((k + 1))
	done
	# shellcheck disable=SC2086
	curl -s --max-time 120 -w '%{http_code}\n' $urls 2>/dev/null | grep -c '^200$'
}
through() { [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 3 "http://127.0.0.1:$1/")" = 200 ]; }

# start_varnish NAME JAIL ENV...: varnishd -F -j JAIL in the background;
# sets VP (the manager), VPORT, VOUT.
start_varnish() {
	name=$1 jail=$2; shift 2
	VPORT=$(free_port)
	VOUT=$T/$name.out
	env "$@" "$VD" -F -j "$jail" -n "$T/v.$name" -a 127.0.0.1:"$VPORT" -b 127.0.0.1:"$bport" -T 127.0.0.1:0 \
		-s malloc,32m -p thread_pools=1 -p thread_pool_min=5 -p thread_pool_max=50 \
		>"$VOUT" 2>&1 &
	VP=$!
	PIDS="$PIDS $VP"
}
# The cache child names itself cache-main.
child_of() { pgrep -P "$1" -x cache-main | head -n 1; }
has_child() { [ -n "$(child_of "$VP")" ]; }

# stop_varnish: TERM to the manager; sets VST (its status, or "stuck") and
# VTOOK (seconds until both processes are gone).
both_gone() { gone "$VP" && gone "$VC"; }
stop_varnish() {
	t=$(t0)
	kill -TERM "$VP" 2>/dev/null
	if wait_secs 30 both_gone; then
		VTOOK=$(since "$t")
		wait "$VP"; VST=$?
	else
		VTOOK=$(since "$t"); VST=stuck
		kill -9 "$VP" "$VC" 2>/dev/null
	fi
}

# 1. Without the hook.
start_varnish plain unix
check "plain: requests through varnish answer 200" wait_secs 60 through "$VPORT"
check "plain: the cache child runs" wait_secs 10 has_child
VC=$(child_of "$VP"); PIDS="$PIDS $VC"
is "plain: the cache child runs as Debian's vcache (-j unix)" "$(ps -o user= -p "$VC" 2>/dev/null)" vcache
is "plain: 100 requests, 100 answered 200" "$(traffic "$VPORT" 100)" 100
stop_varnish
base_st=$VST base_took=$VTOOK
check "plain: TERM ends the manager and the child ($base_took s, status $base_st)" [ "$base_st" != stuck ]

# 2. Under the hook: with -j none (the child keeps the manager's user),
#    then -j unix, varnishd's default as root, where the cache child
#    drops to vcache after its fork.
hooked() {
	hn=$1 jail=$2
	hport=$(free_port); U=http://127.0.0.1:$hport
	start_varnish "$hn" "$jail" LD_PRELOAD="$HOOK $JE" FLAMEKIT_HTTP=127.0.0.1:$hport FLAMEKIT_SNAPSHOT_S=1 \
		MALLOC_CONF=lg_prof_sample:12
	check "$hn: requests through varnish answer 200" wait_secs 60 through "$VPORT"
	if gone "$VP"; then
		wait "$VP"; st=$?
		notok "$hn: the manager died, status $st: $(grep -Ei 'error|fatal' "$VOUT" | head -n 3 | tr '\n' '|')"
		return
	fi
	check "$hn: the cache child runs" wait_secs 10 has_child
	VC=$(child_of "$VP"); PIDS="$PIDS $VC"
	[ "$jail" = unix ] && is "$hn: the cache child runs as vcache" "$(ps -o user= -p "$VC" 2>/dev/null)" vcache
	check "$hn: the endpoint answers" wait_secs 10 wait_http "$U/"
	s=$(cu "$U/internal/heap/settings")
	is "$hn: settings 200" "$(code)" 200
	is "$hn: the manager serves" "$(jfield "$s" pid)" "$VP"
	is "$hn: one jemalloc in the manager" \
		"$(awk '/libjemalloc/ { print $5 }' /proc/"$VP"/maps 2>/dev/null | sort -u | wc -l)" 1
	inlist() { case " $(jpy "$(cu "$U/internal/heap/processes")" '" ".join(str(p["pid"]) for p in d["processes"])') " in *" $1 "*) return 0 ;; esac; return 1; }
	check "$hn: the processes list holds the manager $VP" wait_secs 10 inlist "$VP"
	check "$hn: and the cache child $VC" wait_secs 10 inlist "$VC"
	r=$(post "$U/internal/heap/settings?enabled=true&lg_sample=12&pid=all")
	is "$hn: sampling on in every process (pid=all)" "$(code)" 200
	is "$hn: 300 requests, 300 answered 200" "$(traffic "$VPORT" 300)" 300
	cu "$U/internal/heap?pid=$VC&format=folded" >"$T/$hn.child.folded"
	is "$hn: the cache child's profile: 200" "$(code)" 200
	# Debian's varnishd is stripped of .symtab: its frames are named from
	# .dynsym (varnishd exports its functions to VMODs) or, inside no symbol,
	# from .eh_frame as varnishd+0xSTART. Both are frames in varnishd.
	nm -D --defined-only "$VD" | awk '$2 ~ /^[Tt]$/ { print $3 }' >"$T/vd.names"
	python3 - "$T/$hn.child.folded" "$T/vd.names" >"$T/$hn.vd.frames" <<-'EOS'
	import sys
	names = set(open(sys.argv[2]).read().split())
	seen = {}
	for line in open(sys.argv[1]):
	    stack = line.rsplit(" ", 1)[0]
	    for f in stack.split(";"):
	        if f in names or f.startswith("varnishd+0x"):
	            seen[f] = seen.get(f, 0) + 1
	for f, n in sorted(seen.items(), key=lambda x: -x[1]):
	    print(f)
	EOS
	check "$hn: the cache child's profile has frames in varnishd ($(head -n 8 "$T/$hn.vd.frames" | tr '\n' ' '))" [ -s "$T/$hn.vd.frames" ]
	check "$hn: some are varnishd's functions by name (CNT_Request, HSH_Lookup, ...)" grep -qv '^varnishd+0x' "$T/$hn.vd.frames"
	cu "$U/internal/heap?format=folded" >"$T/$hn.mgr.folded"
	# The manager does none of the requests' work: when nothing it
	# sampled is in use, its folded text is a 409 naming the child.
	if [ "$(code)" = 200 ]; then
		check "$hn: the manager's profile (no pid): 200 with lines" [ -s "$T/$hn.mgr.folded" ]
	else
		like "$hn: the manager's profile (no pid): 200, or 409 naming the cache child" \
			"$(code) $(cat "$T/$hn.mgr.folded")" \
			"^409 (no sampled allocation is in use|nothing has been sampled yet) in process $VP.*\\?pid=$VC"
	fi
	# varnishd exports the deflate functions of its own zlib, which a
	# library asking the dynamic linker for libz's would get instead.
	b=$(cu "$U/debug/pprof/heap?pid=$VC" | head -c 200 | tr -d '\0')
	is "$hn: the cache child's /debug/pprof/heap: 200 ($(printf '%s' "$b" | head -n 1 | tr -cd '[:print:]'))" "$(code)" 200
	b=$(cu "$U/debug/pprof/heap" | head -c 200 | tr -d '\0')
	is "$hn: the manager's /debug/pprof/heap: 200 ($(printf '%s' "$b" | head -n 1 | tr -cd '[:print:]'))" "$(code)" 200
	check "$hn: varnish kept its child (no 'not responding to CLI')" nogrep 'not responding' "$VOUT"
	check "$hn: nothing aborted" sh -c "! grep -Eqi 'fatal|abort|panic' '$VOUT'"
	check "$hn: the child is the same process" sh -c '[ -n "$1" ] && [ "$1" = "$2" ]' _ "$(child_of "$VP")" "$VC"

	stop_varnish
	check "$hn: TERM ends the manager and the child ($VTOOK s; without the hook $base_took s)" [ "$VST" != stuck ]
	is "$hn: the manager's status is as without the hook" "$VST" "$base_st"
	check "$hn: in about the time it takes without the hook (+5 s)" le "$VTOOK" "$(awk -v b="$base_took" 'BEGIN { print b + 5 }')"
	silent() { curl -s -o /dev/null --max-time 3 "$U/"; [ $? = 7 ]; }
	check "$hn: then nothing listens on the endpoint" wait_secs 10 silent
}
hooked hooked-jnone none
hooked hooked-junix unix
