#!/bin/sh
# SPDX-License-Identifier: MIT
# Workers that are alive but do not answer (stopped by SIGSTOP, as a
# debugger attached to a PostgreSQL backend or an nginx worker stops it)
# cost the processes list at most its 1.5 s, however many (issue 32 item
# 4: each cost it 10 s, the list of two stopped workers took 20 s), and
# POST settings?pid=all at most its 10 s; they are listed with why (and
# that they are stopped) rather than left out as if they had exited. The
# others are answered as usual; once continued, the workers answer again.
. "$(dirname "$0")/svclib.sh"
WAIT_TENTHS=300
start_prefork "$(free_port)"
S=$(echo $workers | cut -d' ' -f1)
S2=$(echo $workers | cut -d' ' -f2)
kill -STOP "$S" "$S2"
# field PID KEY: KEY of PID's entry in the list's JSON in $T/list.
field() { jpy "$(cat "$T/list")" "[p.get('$2') for p in d['processes'] if p['pid'] == $1]"; }

t=$(t0)
cu "$U/internal/heap/processes" >"$T/list"
took=$(since "$t")
is "workers $S and $S2 stopped: the list is 200" "$(code)" 200
check "within 2 s ($took s; 10 s a stopped worker before)" le "$took" $((2 + SLACK))
for w in $S $S2; do
	is "the stopped worker $w is listed" "$(field "$w" pid)" "[$w]"
	like "with why it has no settings" "$(field "$w" error)" \
		"process $w did not answer within 1.5 s \\(it is stopped\\)"
	is "its enabled is unknown" "$(field "$w" enabled)" "[null]"
done
for w in $workers; do
	[ "$w" = "$S" ] || [ "$w" = "$S2" ] && continue
	is "worker $w answered as usual" "$(field "$w" enabled)" "[false]"
done

t=$(t0)
r=$(post "$U/internal/heap/settings?enabled=true&pid=all")
took=$(since "$t")
is "pid=all with a worker stopped: 200" "$(code)" 200
check "within its 10 s and some, for both ($took s)" le "$took" $((10 + 3 * SLACK))
is "the stopped workers' status is 0" \
	"$(jpy "$r" "[p['status'] for p in d['processes'] if p['pid'] in ($S, $S2)]")" "[0, 0]"
is "every other process was set" \
	"$(jpy "$r" "sorted(set(p['status'] for p in d['processes'] if p['pid'] not in ($S, $S2)))")" "[200]"

kill -CONT "$S" "$S2"
answers() {
	cu "$U/internal/heap/processes" >"$T/list"
	[ "$(field "$S" error)" = "[null]" ] && [ "$(field "$S2" error)" = "[null]" ]
}
check "continued, workers $S and $S2 answer again" wait_secs 30 answers
is "and their sampling is as it was (off: pid=all did not reach them)" \
	"$(field "$S" enabled) $(field "$S2" enabled)" "[false] [false]"
echo quit >&3
end_host
is "the host exits 0" "$HOST_ST" 0
echo "1..$tn"
