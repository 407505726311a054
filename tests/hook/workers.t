#!/bin/sh
# SPDX-License-Identifier: MIT
# Pre-fork worker pools (issue 20 item 2): every process forked without
# exec from the process that owns FLAMEKIT_HTTP, transitively, is profiled
# and reachable through the one endpoint. GET /internal/heap/processes
# lists them; ?pid=N on every route answers for process N (404 for a pid
# not in the list); POST settings with pid=all applies to all; a worker
# that exits leaves the list and a new one joins it within 2 s; a child
# started with exec is not a member.
. "$(dirname "$0")/svclib.sh"

port=$(free_port); U=http://127.0.0.1:$port
start_fp "FLAMEKIT_HTTP=127.0.0.1:$port FLAMEKIT_SNAPSHOT_S=1 MALLOC_CONF=lg_prof_sample:14" prefork 3
check "host serves" wait_http "$U/"
M=$HOST_PID
check "the master's 3 workers and the first worker's own worker start" wait_count '^worker ' 4
workers=$(awk '/^worker / { print $2 }' "$HOST_OUT" | sort -n | tr '\n' ' ')
PIDS="$PIDS $workers"
# SUB: the worker whose parent is a worker, W1; W2: another of the master's.
SUB=$(awk -v m="$M" '$1 == "worker" && $3 != m { print $2; exit }' "$HOST_OUT")
W1=$(awk -v s="$SUB" '$1 == "worker" && $2 == s { print $3 }' "$HOST_OUT")
W2=$(awk -v m="$M" -v w="$W1" '$1 == "worker" && $3 == m && $2 != w { print $2; exit }' "$HOST_OUT")
members() { printf '%s\n' "$@" | sort -n | tr '\n' ' ' | sed 's/ $//'; }
ALL=$(members $M $workers)

# listed: the pids GET /internal/heap/processes lists, on one line.
# (grep, not python: the join and leave checks time this poll.)
listed() {
	cu "$U/internal/heap/processes" | grep -o '"pid":[0-9]*' | cut -d: -f2 | tr '\n' ' ' | sed 's/ $//'
}
lists() { [ "$(listed)" = "$1" ]; }
# lacks PID: the list is there (it holds the master) and PID is not in it.
lacks() {
	l=" $(listed) "
	case $l in *" $M "*) ;; *) return 1 ;; esac
	case $l in *" $1 "*) return 1 ;; esac
}

# 1. The list.
check "the list holds the master, its workers and the sub-worker ($ALL; it has '$(listed)')" \
	wait_secs 10 lists "$ALL"
j=$(cu "$U/internal/heap/processes")
is "processes: 200" "$(code)" 200
is "processes: the listener is the master" "$(jpy "$j" 'd["listener"]')" "$M"
is "processes: sorted by pid" "$(jpy "$j" '[p["pid"] for p in d["processes"]] == sorted(p["pid"] for p in d["processes"])')" true
cat >"$T/fields.py" <<'EOS'
import json, os, sys
d = json.loads(sys.argv[1])
m = int(sys.argv[2])
ticks = os.sysconf("SC_CLK_TCK")
btime = [int(l.split()[1]) for l in open("/proc/stat") if l.startswith("btime ")][0]
bad = []
for p in d["processes"]:
    pid = p.get("pid")
    want = {"pid": int, "ppid": int, "cmdline": str, "start_time": (int, float),
            "enabled": bool, "jemalloc": str, "listener": bool}
    for k, t in want.items():
        if not isinstance(p.get(k), t) or (t is int and isinstance(p.get(k), bool)):
            bad.append("%s: %s is %r" % (pid, k, p.get(k)))
    if bad:
        continue
    st = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    if p["ppid"] != int(st[1]):
        bad.append("%d: ppid %d, /proc says %s" % (pid, p["ppid"], st[1]))
    start = btime + int(st[19]) / ticks
    if abs(p["start_time"] - start) > 2:
        bad.append("%d: start_time %s, /proc says %.1f" % (pid, p["start_time"], start))
    if "hook-fork-prog" not in p["cmdline"] or "prefork 3" not in p["cmdline"]:
        bad.append("%d: cmdline %r" % (pid, p["cmdline"]))
    if p["listener"] != (pid == m):
        bad.append("%d: listener %r" % (pid, p["listener"]))
    if not p["jemalloc"]:
        bad.append("%d: jemalloc empty" % pid)
    if p["enabled"] is not False:
        bad.append("%d: enabled before any request" % pid)
print("; ".join(bad) or "none")
EOS
is "processes: each has pid, ppid, cmdline, start_time, enabled, jemalloc, listener, as /proc says" \
	"$(python3 "$T/fields.py" "$j" "$M" 2>&1 | tail -n 1)" none

# A worker's advice before anything is sampled is a command that works
# when pasted: the program's address, and the worker's pid.
b=$(cu "$U/internal/heap?pid=$W2&format=folded")
is "a worker's folded before sampling: 409" "$(code)" 409
cmd=$(printf '%s' "$b" | sed -n "s/.*: \(curl -X POST '[^']*'\)\$/\1/p")
is "its advice names the address and the worker" "$cmd" \
	"curl -X POST 'http://127.0.0.1:$port/internal/heap/settings?enabled=true&pid=$W2'"
eval "$cmd" >"$T/pasted" 2>&1
is "the pasted command turns sampling on in that worker" \
	"$(jfield "$(cu "$U/internal/heap/settings?pid=$W2")" enabled)" true
post "$U/internal/heap/settings?enabled=false&pid=$W2" >/dev/null

# 2. pid=all.
r=$(post "$U/internal/heap/settings?enabled=true&lg_sample=14&pid=all")
is "POST enabled=true&pid=all: 200" "$(code)" 200
is "POST pid=all answers 200 for each process" \
	"$(jpy "$r" '" ".join("%d:%d" % (p["pid"], p["status"]) for p in sorted(d["processes"], key=lambda p: p["pid"]))')" \
	"$(for p in $ALL; do printf '%s:200 ' "$p"; done | sed 's/ $//')"
is "every process now samples" \
	"$(jpy "$(cu "$U/internal/heap/processes")" 'all(p["enabled"] for p in d["processes"]) and len(d["processes"])')" 5

# 3. ?pid=N on settings.
s=$(cu "$U/internal/heap/settings?pid=$W1")
is "settings?pid=W: 200" "$(code)" 200
is "settings?pid=W: pid is the worker's" "$(jfield "$s" pid)" "$W1"
is "settings?pid=W: listener_pid is the master's" "$(jfield "$s" listener_pid)" "$M"
is "settings?pid=W: enabled" "$(jfield "$s" enabled)" true
is "settings?pid=W: lg_sample 14" "$(jfield "$s" lg_sample)" 14
s=$(cu "$U/internal/heap/settings")
is "settings without pid: the master answers" "$(jfield "$s" pid)" "$M"
is "settings without pid: listener_pid" "$(jfield "$s" listener_pid)" "$M"

# 4. Every profile format for a worker: its own heap, not the master's.
hcmd "grow 20" '^grown|^failed'
has() { cu "$1" >"$T/p"; [ "$(code)" = 200 ] && grep -aq "$2" "$T/p"; }
check "the worker's folded profile names worker_churn" \
	wait_secs 20 has "$U/internal/heap?pid=$W1&format=folded" worker_churn
check "the worker's profile does not name the master's master_grow" nogrep master_grow "$T/p"
check "the sub-worker's folded profile names worker_churn" \
	wait_secs 20 has "$U/internal/heap?pid=$SUB&format=folded" worker_churn
cu "$U/internal/heap?format=folded" >"$T/mf"
check "the master's profile (no pid) names master_grow" grep -q master_grow "$T/mf"
check "the master's profile does not name worker_churn" nogrep worker_churn "$T/mf"
# A worker's allocated bytes as folded text, and its in-use objects.
total() { awk '{ s += $NF } END { print s + 0 }' "$1"; }
cu "$U/internal/heap?pid=$W1&format=folded" >"$T/w1.inuse"
cu "$U/internal/heap?pid=$W1&format=folded&sample_type=alloc_space" >"$T/w1.alloc"
is "folded&sample_type=alloc_space for a worker: 200" "$(code)" 200
check "it names worker_churn" grep -q worker_churn "$T/w1.alloc"
check "allocated ($(total "$T/w1.alloc")) at least what is in use ($(total "$T/w1.inuse"))" \
	[ "$(total "$T/w1.alloc")" -ge "$(total "$T/w1.inuse")" ]
cu "$U/internal/heap?pid=$W1&format=folded&sample_type=inuse_objects" >"$T/w1.objs"
objs=$(total "$T/w1.objs")
check "sample_type=inuse_objects counts objects ($objs), fewer than bytes" \
	sh -c '[ "$1" -gt 0 ] && [ "$1" -lt "$2" ]' - "$objs" "$(total "$T/w1.inuse")"
b=$(cu "$U/internal/heap?pid=$W1&format=flame&sample_type=alloc_space")
is "sample_type with the page: 400" "$(code)" 400
# jeprof-raw's URL form for a worker: HOST/?pid=W is that worker's dump.
"$B/jeprof-raw" "$U/?pid=$W1" >"$T/w1.raw" 2>"$T/w1.err"; st=$?
is "jeprof-raw HOST/?pid=W: exit 0 ($(head -c 200 "$T/w1.err"))" "$st" 0
"$B/symbolize" "$T/w1.raw" 2>/dev/null | "$B/to-folded" >"$T/w1.folded"
check "and it is the worker's heap (worker_churn)" grep -q worker_churn "$T/w1.folded"
cu "$U/internal/heap?pid=$M&format=folded" >"$T/mf2"
check "pid=MASTER is the master's profile" grep -q master_grow "$T/mf2"
for f in flame symbolized; do
	cu "$U/internal/heap?pid=$W1&format=$f" >"$T/w.$f"
	is "pid=W format=$f: 200" "$(code)" 200
	check "pid=W format=$f names worker_churn" grep -q worker_churn "$T/w.$f"
done
cu "$U/internal/heap?pid=$W1&format=raw" >"$T/w.raw"
is "pid=W format=raw: 200" "$(code)" 200
check "pid=W format=raw is a dump" grep -q '^heap_v2/' "$T/w.raw"
for r in "internal/heap?pid=$W1" "debug/pprof/heap?pid=$W1" "debug/pprof/allocs?pid=$W1"; do
	cu "$U/$r" >"$T/w.pb"
	is "$r: 200" "$(code)" 200
	check "$r is a pprof that names worker_churn" sh -c "gzip -dc '$T/w.pb' | grep -aq worker_churn"
done
tl() { cu "$U/internal/heap/timeline?pid=$W1&format=json" >"$T/tl"; [ "$(code)" = 200 ]; }
check "timeline?pid=W: 200 once the worker has a snapshot" wait_secs 20 tl
is "timeline?pid=W: JSON with snapshots" "$(jpy "$(cat "$T/tl")" 'len(d["snapshots"]) > 0')" true
sn=$(post "$U/internal/heap/snapshot?pid=$W1")
is "POST snapshot?pid=W: 200" "$(code)" 200
id=$(jfield "$sn" id)
cu "$U/internal/heap?pid=$W1&snapshot=$id&format=folded" >"$T/ws"
is "the worker's snapshot $id: 200" "$(code)" 200
check "the worker's snapshot names worker_churn" grep -q worker_churn "$T/ws"

# 5. A pid not in the list: 404 with a sentence, on every route.
for p in 1 999999999; do
	for r in "internal/heap/settings" "internal/heap?format=folded" "internal/heap" \
		"debug/pprof/heap" "debug/pprof/allocs" "internal/heap/timeline?format=json"; do
		case $r in *\?*) u="$U/$r&pid=$p" ;; *) u="$U/$r?pid=$p" ;; esac
		b=$(cu "$u")
		is "GET $r with pid=$p (not a member): 404" "$(code)" 404
	done
	b=$(post "$U/internal/heap/settings?enabled=true&pid=$p")
	is "POST settings with pid=$p: 404" "$(code)" 404
	b=$(post "$U/internal/heap/snapshot?pid=$p")
	is "POST snapshot with pid=$p: 404" "$(code)" 404
	like "the 404 says why in a sentence" "$b" '^[A-Za-z].{10,}'
	check "the 404 is one line" [ "$(printf '%s\n' "$b" | wc -l)" = 1 ]
done

# 6. A worker that exits leaves the list; a new worker joins it.
kill -TERM "$W2"
t=$(t0)
check "a worker killed leaves the list" wait_secs 10 lacks "$W2"
took=$(since "$t")
check "within 2 s (took $took s; up to $SLACK s allowed on a loaded machine)" le "$took" "$SLACK"
hcmd spawn '^spawned'
NW=$(last '^spawned' | awk '{ print $2 }')
PIDS="$PIDS $NW"
t=$(t0)
joined() { case " $(listed) " in *" $1 "*) return 0 ;; esac; return 1; }
check "a new worker joins the list" wait_secs 10 joined "$NW"
took=$(since "$t")
check "within 2 s of its fork (took $took s; up to $SLACK s allowed on a loaded machine)" le "$took" "$SLACK"
s=$(cu "$U/internal/heap/settings?pid=$NW")
is "the new worker answers for itself" "$(jfield "$s" pid)" "$NW"

# 7. A child that execs (a shell-out) is not a member.
hcmd shell '^shell'
SH=$(last '^shell' | awk '{ print $2 }')
PIDS="$PIDS $SH"
hcmd spawn '^spawned'
NW2=$(last '^spawned' | awk '{ print $2 }')
PIDS="$PIDS $NW2"
check "a worker forked after the shell-out joins" wait_secs 10 joined "$NW2"
check "the exec'd child (sleep) is not in the list" lacks "$SH"
cu "$U/internal/heap/settings?pid=$SH" >/dev/null
is "settings?pid=EXECD: 404" "$(code)" 404

# 8. pid=all turns every member off.
r=$(post "$U/internal/heap/settings?enabled=false&pid=all")
is "POST enabled=false&pid=all: 200" "$(code)" 200
is "every member answered 200" "$(jpy "$r" 'all(p["status"] == 200 for p in d["processes"]) and len(d["processes"])')" \
	"$(listed | wc -w)"
is "no process samples" "$(jpy "$(cu "$U/internal/heap/processes")" 'any(p["enabled"] for p in d["processes"])')" false

hcmd quit '^bye'
end_host
is "the master exits 0" "$HOST_ST" 0
for w in $workers $NW $NW2; do
	check "worker $w ends with its master" wait_secs 10 gone "$w"
done
