#!/bin/sh
# SPDX-License-Identifier: MIT
# Debian's nginx under the hook: a master and two pre-forked workers
# (which drop to nobody when the master runs as root) serving static
# files on loopback, with libjemalloc.so.2 preloaded after the hook. The
# workers join the processes list, sampling turned on with pid=all reaches
# them, a worker holding open connections has a profile in nginx's own
# functions (pprof read by go tool pprof, the flame page by xmllint, the
# folded text), and a worker killed or replaced by a reload leaves the
# list as its successor joins it. The master does none of the requests'
# work and a worker frees each request's memory when it ends: there the
# folded text has no line, and the hook says so in a 409 with where to
# look (it answered an empty 200). QUIT ends every process with status 0,
# and no socket or state file of the hook is left behind.
. "$(dirname "$0")/svclib.sh"

NG=$(command -v nginx || echo /usr/sbin/nginx)
if [ ! -x "$NG" ]; then
	echo "ok 1 - nginx under the hook # skip $NG is not installed (scripts/install-deps installs nginx-light)"
	echo "1..1"
	exit 0
fi
command -v go >/dev/null || { notok "go is not installed (scripts/install-deps)"; echo "1..$tn"; exit 1; }
command -v xmllint >/dev/null || { notok "xmllint is not installed (scripts/install-deps)"; echo "1..$tn"; exit 1; }

# Workers that run as nobody read the files under $T.
chmod 711 "$T"
mkdir -m 755 "$T/www"
i=0
while [ $i -lt 20 ]; do
	head -c 20000 /dev/zero | tr '\0' x >"$T/www/f$i.txt"
	i=$((i + 1))
done
chmod 644 "$T"/www/*
NPORT=$(free_port) HPORT=$(free_port)
U=http://127.0.0.1:$HPORT
cat >"$T/nginx.conf" <<EOF
daemon off;
master_process on;
worker_processes 2;
pid $T/nginx.pid;
error_log $T/error.log info;
events { worker_connections 128; }
http {
	access_log off;
	client_body_temp_path $T/ngx-body;
	proxy_temp_path $T/ngx-proxy;
	fastcgi_temp_path $T/ngx-fastcgi;
	uwsgi_temp_path $T/ngx-uwsgi;
	scgi_temp_path $T/ngx-scgi;
	server {
		listen 127.0.0.1:$NPORT;
		root $T/www;
		large_client_header_buffers 4 16k;
	}
}
EOF

# traffic N: N requests over a few connections; prints how many were 200.
file_url() { echo "http://127.0.0.1:$NPORT/f$(($1 % 20)).txt?k=$1"; }
traffic() { get_many "$1" file_url; }
serving() { [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 3 "http://127.0.0.1:$NPORT/f0.txt")" = 200 ]; }
workers_of() { pgrep -P "$1" -f 'nginx: worker' | sort -n | tr '\n' ' ' | sed 's/ $//'; }
nworkers() { [ "$(workers_of "$MP" | wc -w)" -eq 2 ]; }
listed() { jpy "$(cu "$U/internal/heap/processes")" '" ".join(str(p["pid"]) for p in d["processes"])'; }
# same_set A B: the same words, in any order.
same_set() { [ "$(printf '%s\n' $1 | sort -n | tr '\n' ' ')" = "$(printf '%s\n' $2 | sort -n | tr '\n' ' ')" ]; }
lists_workers() { same_set "$(listed)" "$MP $(workers_of "$MP")"; }

# start_nginx ENV...: nginx in the foreground with ENV added; sets MP.
start_nginx() {
	: >"$T/error.log"
	env "$@" "$NG" -e "$T/error.log" -p "$T" -c "$T/nginx.conf" >"$T/nginx.out" 2>&1 &
	MP=$!
	PIDS="$PIDS $MP"
}
# stop_nginx: QUIT to the master; MST is its status, or "stuck".
all_gone() { gone "$MP" && for w in $WS; do gone "$w" || return 1; done; }
stop_nginx() {
	WS=$(workers_of "$MP")
	kill -QUIT "$MP" 2>/dev/null
	if wait_secs 30 all_gone; then
		wait "$MP"; MST=$?
	else
		MST=stuck
		kill -9 "$MP" $WS 2>/dev/null
	fi
}

# 1. Without the hook: what QUIT does.
start_nginx FLAMEKIT_UNUSED=1
check "plain: nginx serves" wait_secs 20 serving
check "plain: two workers" wait_secs 10 nworkers
stop_nginx
base_st=$MST
check "plain: QUIT ends the master and its workers (status $base_st)" [ "$base_st" != stuck ]

# 2. Under the hook, sampling from the first KiB (lg 10) once it is on.
start_nginx LD_PRELOAD="$HOOK $JE" FLAMEKIT_HTTP=127.0.0.1:$HPORT \
	MALLOC_CONF=prof:true,prof_active:false,prof_accum:true,lg_prof_sample:10
check "nginx serves under the hook" wait_secs 20 serving
check "two workers" wait_secs 10 nworkers
check "the endpoint answers" wait_secs 10 wait_http "$U/"
s=$(cu "$U/internal/heap/settings")
is "the master serves the endpoint" "$(jfield "$s" pid)" "$MP"
is "one jemalloc in the master" \
	"$(awk '/libjemalloc/ { print $6 }' /proc/"$MP"/maps 2>/dev/null | sort -u | wc -l)" 1
check "the processes list holds the master and both workers" wait_secs 10 lists_workers
W1=$(workers_of "$MP" | cut -d' ' -f1)
if [ "$(id -u)" = 0 ]; then
	is "the workers dropped to nobody" "$(ps -o user= -p "$W1")" nobody
fi
cu "$U/internal/heap?format=folded" >/dev/null
is "before sampling: the master's folded text is 409" "$(code)" 409

# Sampling on in the master alone: the master does none of the requests'
# work, so its folded text has no line; the answer says where to look.
post "$U/internal/heap/settings?enabled=true" >/dev/null
is "sampling on in the master" "$(code)" 200
is "200 requests, 200 answered 200" "$(traffic 200)" 200
b=$(cu "$U/internal/heap?format=folded")
is "the master's folded text without a line is 409, not an empty 200" "$(code)" 409
like "it says nothing sampled is in use there and names a worker to ask" "$b" \
	"(no sampled allocation is in use|nothing has been sampled yet) in process $MP.*\\?pid=[0-9]+.*pid=all"
b=$(cu "$U/internal/heap?pid=$W1&format=folded")
is "a worker's, sampling off there: 409" "$(code)" 409
like "it says nothing was sampled there" "$b" '^nothing has been sampled'

r=$(post "$U/internal/heap/settings?enabled=true&pid=all")
is "sampling on everywhere (pid=all)" "$(code)" 200
is "every process answered 200" \
	"$(jpy "$r" 'sorted(set(p["status"] for p in d["processes"]))')" "[200]"
is "the list says each is on" \
	"$(jpy "$(cu "$U/internal/heap/processes")" 'all(p["enabled"] for p in d["processes"])')" true
is "300 requests, 300 answered 200" "$(traffic 300)" 300

# Forty connections, each halfway through a request with 6 KB of
# headers, keep memory of a worker in use (its connection pools and
# large header buffers) until they close. hold.in ends them.
hold_conns "$NPORT" /f0.txt 6000
check "forty connections held open" wait_secs 20 held

# Each worker: its folded text has lines, or is a 409 with a sentence;
# never an empty 200. The worker that holds connections names nginx's
# functions (Debian's nginx exports them to its modules).
has=""
for w in $(workers_of "$MP"); do
	cu "$U/internal/heap?pid=$w&format=folded" >"$T/w$w.folded"
	c=$(code)
	if [ "$c" = 200 ]; then
		check "worker $w: its folded text (200) has lines" [ -s "$T/w$w.folded" ]
		grep -q 'ngx_' "$T/w$w.folded" && has="$has $w"
	else
		like "worker $w: folded is 409 with a sentence" "$c $(cat "$T/w$w.folded")" "^409 (no sampled allocation is in use|nothing has been sampled yet) in process $w"
	fi
done
check "a worker's in-use heap names nginx's functions (in${has:- none})" [ -n "$has" ]
W=${has# }; W=${W%% *}; [ -n "$W" ] || W=$W1
s=$(cu "$U/internal/heap/settings?pid=$W")
is "worker $W: its settings answer for it" "$(jfield "$s" pid)" "$W"
is "worker $W: the master serves its address" "$(jfield "$s" listener_pid)" "$MP"
is "worker $W: sampling on" "$(jfield "$s" enabled)" true
cu "$U/debug/pprof/heap?pid=$W" >"$T/w.pb.gz"
is "worker $W: /debug/pprof/heap 200" "$(code)" 200
go tool pprof -top "$T/w.pb.gz" >"$T/w.top" 2>"$T/w.top.err"
is "worker $W: go tool pprof -top reads it" "$?" 0
like "worker $W: its top has nginx's functions" "$(cat "$T/w.top")" 'ngx_[a-z_]+'
cu "$U/debug/pprof/allocs?pid=$W" >"$T/wa.pb.gz"
is "worker $W: /debug/pprof/allocs 200" "$(code)" 200
like "worker $W: what it allocated, by go tool pprof" "$(go tool pprof -top "$T/wa.pb.gz" 2>&1)" 'Type: alloc_space'
cu "$U/internal/heap?pid=$W&format=flame" >"$T/w.svg"
is "worker $W: the flame page 200" "$(code)" 200
check "worker $W: the flame page is XML" xmllint --noout "$T/w.svg"
check "worker $W: the flame page names nginx's functions" grep -q 'ngx_' "$T/w.svg"
cu "$U/internal/heap?format=flame" >"$T/m.svg"
is "the master's flame page 200" "$(code)" 200
check "the master's flame page is XML" xmllint --noout "$T/m.svg"
is "nginx serves while the connections are held" "$(traffic 50)" 50

exec 4>&-
check "the held connections end" wait_secs 20 gone "$HOLD"
wait "$HOLD"
is "each held request was answered" "$?" 0

# A worker killed: nginx starts another, which joins the list as the dead
# one leaves it, sampling on (inherited from the master).
pre=$(workers_of "$MP")
kill -9 "$W1"
respawned() { nworkers && ! gone "$MP" && case " $(workers_of "$MP") " in *" $W1 "*) return 1 ;; esac; }
check "nginx replaces the killed worker" wait_secs 20 respawned
check "the list follows: the new worker in, the dead one out" wait_secs 10 lists_workers
N=$(for w in $(workers_of "$MP"); do case " $pre " in *" $w "*) ;; *) echo "$w" ;; esac; done | head -n 1)
is "the new worker $N: sampling on" "$(jfield "$(cu "$U/internal/heap/settings?pid=$N")" enabled)" true

# A reload: new workers, the old ones leave once they are done.
old=$(workers_of "$MP")
kill -HUP "$MP"
reloaded() { nworkers && for o in $old; do case " $(workers_of "$MP") " in *" $o "*) return 1 ;; esac; done; }
check "HUP: nginx replaces both workers" wait_secs 20 reloaded
check "the list holds the new workers only" wait_secs 10 lists_workers
is "after the reload, 100 requests answered 200" "$(traffic 100)" 100

stop_nginx
check "QUIT ends the master and its workers (status $MST)" [ "$MST" != stuck ]
is "with the status it has without the hook" "$MST" "$base_st"
silent() { curl -s -o /dev/null --max-time 3 "$U/"; [ $? = 7 ]; }
check "then nothing listens on the endpoint" wait_secs 10 silent
is "no abstract socket of the program's group is left" \
	"$(grep -c "@flamekit-hook/$MP-" /proc/net/unix)" 0
left=""
for f in /dev/shm/flamekit-hook.*/state."$MP".* /tmp/flamekit-hook.*/state."$MP".*; do
	[ -e "$f" ] && left="$left $f"
done
is "no state file of the master is left" "$left" ""
check "nothing in nginx's log says emerg, crit or an alert but the killed worker's" \
	sh -c "! grep -E '\\[(emerg|crit|alert)\\]' '$T/error.log' | grep -v 'exited on signal 9'"
check "the hook said nothing on standard error" sh -c "! grep -q flamekit-hook '$T/nginx.out'"
echo "1..$tn"
