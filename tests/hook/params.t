#!/bin/sh
# SPDX-License-Identifier: MIT
# The query parameters of every endpoint (issue 20, item 11): each route,
# as GET / lists them, refuses a parameter it does not take, a malformed
# pid, a parameter given twice or without '=', and a NUL byte (%00) in a
# name, with 400 and one sentence naming the parameter; takes pid (a
# decimal process id; POST settings also "all"). The cases of the issue:
# ?format=folded&value=alloc_space, /debug/pprof/allocs?format=flame,
# ?snapshot and ?base without '=', lg_sample=1%00. Then every combination
# the man page documents still answers as before.
. "$(dirname "$0")/hooklib.sh"
port=$(free_port)
U=http://127.0.0.1:$port
start_host 127.0.0.1:$port MALLOC_CONF=lg_prof_sample:12 FLAMEKIT_SNAPSHOT_S=0

# bad DESC PATTERN METHOD PATH?QUERY: 400 with one line matching PATTERN.
bad() {
	d=$1 pat=$2 m=$3 url=$4
	if [ "$m" = POST ]; then b=$(cu -X POST -H 'X-Flamekit: 1' "$U$url")
	else b=$(cu "$U$url"); fi
	c=$(code)
	if [ "$c" = 400 ] && [ "$(printf '%s\n' "$b" | wc -l)" = 1 ] &&
	    printf '%s\n' "$b" | grep -Eq -- "$pat"; then
		ok "$d"
	else
		notok "$d: $m $url: got $c '$(printf '%s' "$b" | head -c 300)', want 400 /$pat/"
	fi
}
# good DESC METHOD PATH?QUERY [STATUS]: answers STATUS (200).
good() {
	d=$1 m=$2 url=$3 want=${4:-200}
	if [ "$m" = POST ]; then b=$(cu -X POST -H 'X-Flamekit: 1' "$U$url")
	else b=$(cu "$U$url"); fi
	c=$(code)
	if [ "$c" = "$want" ]; then ok "$d"
	else notok "$d: $m $url: got $c '$(printf '%s' "$b" | head -c 300)', want $want"; fi
}

idx=$(cu "$U/")
is "GET / is 200" "$(code)" 200
awk '$1 == "GET" || $1 == "POST" { p = $2; sub(/[?[].*/, "", p); print $1, p }' "$T/body" >"$T/routes"
is "GET / lists 11 routes" "$(wc -l <"$T/routes" | tr -d ' ')" 11

# Sampling on and something to see, so that good requests can be 200.
enable "$U" "&lg_sample=12"
check "grows 40 blocks" host_cmd "grow 40" '^grown 40$'

# Every route: the same refusals, and pid.
while read -r m p; do
	r="$m $p"
	sep='?'
	bad "$r: unknown parameter" "unknown parameter 'bogus': $m $p takes .*pid" "$m" "$p?bogus=1"
	bad "$r: unknown parameter after a good one" "unknown parameter 'zz'" "$m" "$p?pid=$HOST_PID&zz"
	bad "$r: pid not a number" "bad pid 'abc': want a process id" "$m" "$p?pid=abc"
	bad "$r: pid 0" "bad pid '0'" "$m" "$p?pid=0"
	bad "$r: pid too large" "bad pid '99999999999'" "$m" "$p?pid=99999999999"
	bad "$r: pid without '='" "parameter 'pid' has no value" "$m" "$p?pid"
	bad "$r: pid twice" "parameter 'pid' given twice" "$m" "$p?pid=$HOST_PID&pid=$HOST_PID"
	bad "$r: a NUL byte in a name" "name 'p\\?id' holds a NUL byte \\(%00\\)" "$m" "$p?p%00id=1"
	bad "$r: a NUL byte in pid" "bad pid '1\\?': it holds a NUL byte \\(%00\\)" "$m" "$p?pid=1%00"
	bad "$r: a parameter without a name" "a parameter without a name \\('=1'\\)" "$m" "$p?=1"
	case "$r" in
	"POST /internal/heap/settings")
		good "$r: pid=all" POST "$p?enabled=true&pid=all"
		good "$r: pid=N" POST "$p?enabled=true&pid=$HOST_PID" ;;
	"POST /internal/heap/snapshot")
		good "$r: pid=N" POST "$p?pid=$HOST_PID"
		bad "$r: pid=all is for settings only" "bad pid 'all'" POST "$p?pid=all" ;;
	*)
		good "$r: pid=N" GET "$p?pid=$HOST_PID"
		bad "$r: pid=all is for settings only" "bad pid 'all'" GET "$p?pid=all" ;;
	esac
done <"$T/routes"

# The issue's cases.
bad "format=folded&value=alloc_space" "unknown parameter 'value': GET /internal/heap takes format" \
	GET "/internal/heap?format=folded&value=alloc_space"
bad "/debug/pprof/allocs?format=flame" "unknown parameter 'format': GET /debug/pprof/allocs takes seconds, max_samples and pid" \
	GET "/debug/pprof/allocs?format=flame"
bad "/debug/pprof/heap?format=flame" "unknown parameter 'format'" GET "/debug/pprof/heap?format=flame"
bad "?snapshot without '='" "parameter 'snapshot' has no value .*a snapshot id" GET "/internal/heap?snapshot"
bad "?base without '='" "parameter 'base' has no value" GET "/internal/heap?base"
bad "?snapshot= empty" "bad snapshot '': want a snapshot id" GET "/internal/heap?snapshot="
bad "?format without '='" "parameter 'format' has no value" GET "/internal/heap?format"
lg=$(jfield "$(cu "$U/internal/heap/settings")" lg_sample)
bad "lg_sample=1%00" "bad lg_sample '1\\?': it holds a NUL byte \\(%00\\); want 0 to 63" \
	POST "/internal/heap/settings?lg_sample=1%00"
is "lg_sample=1%00 changed nothing" "$(jfield "$(cu "$U/internal/heap/settings")" lg_sample)" "$lg"
bad "enabled=true%00x" "bad enabled 'true\\?x': it holds a NUL byte" POST "/internal/heap/settings?enabled=true%00x"
bad "format=flame%00" "bad format 'flame\\?': it holds a NUL byte" GET "/internal/heap?format=flame%00"
bad "title with a NUL byte" "bad title 'a\\?b'" GET "/internal/heap?format=flame&title=a%00b"
bad "format twice" "parameter 'format' given twice" GET "/internal/heap?format=flame&format=pprof"
bad "unknown format" "unknown format 'svg': want pprof, flame, folded, raw or symbolized" GET "/internal/heap?format=svg"
bad "unknown timeline format" "unknown format 'pprof': want flame, folded or json" GET "/internal/heap/timeline?format=pprof"
bad "timeline takes no max_samples" "unknown parameter 'max_samples'" GET "/internal/heap/timeline?max_samples=1"
bad "lifetimes: an unknown view" "unknown view 'weekly': want sites, temporary, oldest or freed" GET "/internal/heap/lifetimes?view=weekly"
bad "lifetimes: max_ms too large" "bad max_ms '86400001'" GET "/internal/heap/lifetimes?view=temporary&max_ms=86400001"
bad "lifetimes: format symbolized" "unknown format 'symbolized': want json, pprof, flame, folded or raw" GET "/internal/heap/lifetimes?format=symbolized"
bad "seconds out of range" "bad seconds '3601': want 0 to 3600" GET "/debug/pprof/heap?seconds=3601"
bad "seconds signed" "bad seconds '-1'" GET "/debug/pprof/heap?seconds=-1"
bad "max_samples too large" "bad max_samples '4294967296': want 0 \\(no limit\\) to 4294967295" \
	GET "/internal/heap?max_samples=4294967296"
bad "minwidth hex" "bad minwidth '0x10'" GET "/internal/heap?format=flame&minwidth=0x10"
bad "minwidth inf" "bad minwidth 'inf'" GET "/internal/heap?format=flame&minwidth=inf"
bad "inverted=maybe" "bad inverted 'maybe': want true or false" GET "/internal/heap?format=flame&inverted=maybe"
bad "lg_sample 64" "bad lg_sample '64': want 0 to 63" POST "/internal/heap/settings?lg_sample=64"
bad "enabled=yes" "bad enabled 'yes': want true or false" POST "/internal/heap/settings?enabled=yes"
bad "a control byte is not echoed" "unknown parameter 'a\\?b'" GET "/internal/heap?a%0Ab=1"
good "GET settings with enabled is still 405" GET "/internal/heap/settings?enabled=true" 405

# Every documented combination answers as before.
good "settings" GET "/internal/heap/settings"
good "POST enabled=true" POST "/internal/heap/settings?enabled=true"
good "POST enabled=1" POST "/internal/heap/settings?enabled=1"
good "POST lg_sample=12" POST "/internal/heap/settings?lg_sample=12"
good "POST enabled=true&lg_sample=12" POST "/internal/heap/settings?enabled=true&lg_sample=12"
check "grows 40 blocks more" host_cmd "grow 40" '^grown 80$'
good "POST without parameters is still 400" POST "/internal/heap/settings" 400
for f in pprof flame folded raw symbolized; do
	good "format=$f" GET "/internal/heap?format=$f"
done
good "no format" GET "/internal/heap"
good "a trailing '&'" GET "/internal/heap?format=folded&"
good "an empty field" GET "/internal/heap?&format=folded"
good "flame with title, colors, minwidth" GET "/internal/heap?format=flame&title=my%20heap&colors=mem&minwidth=0.5"
good "minwidth=5%" GET "/internal/heap?format=flame&minwidth=5%25"
good "inverted=false" GET "/internal/heap?format=flame&inverted=false"
good "inverted=true" GET "/internal/heap?format=flame&inverted=true"
good "inverted alone" GET "/internal/heap?format=flame&inverted"
good "inverted=" GET "/internal/heap?format=flame&inverted="
good "colors unknown is still 400" GET "/internal/heap?format=flame&colors=pink" 400
good "max_samples=0" GET "/internal/heap?format=pprof&max_samples=0"
good "max_samples=3" GET "/internal/heap?max_samples=3"
good "/debug/pprof/heap" GET "/debug/pprof/heap"
good "/debug/pprof/allocs" GET "/debug/pprof/allocs"
good "seconds=0" GET "/debug/pprof/heap?seconds=0"
good "seconds=1&max_samples=5" GET "/debug/pprof/allocs?seconds=1&max_samples=5"
good "POST snapshot" POST "/internal/heap/snapshot"
id1=$(jfield "$(cat "$T/body")" id)
check "grows 40 blocks more" host_cmd "grow 40" '^grown 120$'
good "POST snapshot again" POST "/internal/heap/snapshot"
id2=$(jfield "$(cat "$T/body")" id)
for f in pprof flame folded symbolized; do
	good "snapshot=ID format=$f" GET "/internal/heap?snapshot=$id1&format=$f"
done
good "snapshot&base" GET "/internal/heap?snapshot=$id2&base=$id1&format=folded"
good "base alone" GET "/internal/heap?base=$id1"
good "an unknown snapshot is still 404" GET "/internal/heap?snapshot=99999" 404
good "snapshot of raw is still 400" GET "/internal/heap?snapshot=$id1&format=raw" 400
for f in flame folded json; do
	good "timeline format=$f" GET "/internal/heap/timeline?format=$f"
done
good "timeline title" GET "/internal/heap/timeline?title=t"
good "timeline" GET "/internal/heap/timeline"
is "HEAD with a parameter of its GET" "$(curl -s -o /dev/null -I -w '%{http_code}' --max-time 30 "$U/internal/heap?format=folded")" 200
is "HEAD with an unknown parameter" "$(curl -s -o /dev/null -I -w '%{http_code}' --max-time 30 "$U/internal/heap?value=1")" 400
check "exits cleanly" stop_host
echo "1..$tn"
