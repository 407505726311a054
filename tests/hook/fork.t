#!/bin/sh
# SPDX-License-Identifier: MIT
# A host that forks often while sampling is on (issue 20 item 0): the
# hook's fork handlers and its dump and snapshot work must have no lock
# order a fork can invert. Under a CPU load of two busy processes, a host
# forks 20 times a second while it allocates, with interval snapshots
# every second and a client scraping every second; its children in turn
# _exit at once, exec /bin/true, or allocate for 0.3 s. It must run to its
# end, every child must exit 0, and every scrape must be answered.
# Then the same without any client, at the default rate, as in the issue.
. "$(dirname "$0")/svclib.sh"

load2

# storm_check NAME SECONDS CAP: waits for the storm's "done" line (at most
# CAP seconds), then checks it; on a hang says where the host's threads are.
has_done() { grep -q '^done ' "$HOST_OUT"; }
storm_check() {
	name=$1 secs=$2 cap=$3
	wait_secs "$cap" has_done
	dl=$(last "^done ")
	if [ -z "$dl" ]; then
		notok "$name: the host runs to its end: stuck after '$(last '^forks ')' ($(since "$start") s)"
		for t in /proc/"$HOST_PID"/task/*; do
			echo "# thread ${t##*/} $(cat "$t/comm" 2>/dev/null): $(cat "$t/wchan" 2>/dev/null)"
		done
		return 1
	fi
	ok "$name: the host runs to its end ($(since "$start") s for ${secs} s)"
	forks=$(printf "%s\n" "$dl" | sed -n 's/.*forks=\([0-9]*\).*/\1/p')
	want=$((secs * 20 * 2 / 3))
	check "$name: it forked $forks times (at least $want)" [ "${forks:-0}" -ge "$want" ]
	like "$name: every child exited 0, none stuck, no fork failed" "$dl" \
		"reaped=$forks bad=0 stuck=0 failed=0"
}

# 1. Sampled at lg 14, snapshots every second, scraped every second.
port=$(free_port); U=http://127.0.0.1:$port
start_fp "FLAMEKIT_HTTP=127.0.0.1:$port FLAMEKIT_SNAPSHOT_S=1 MALLOC_CONF=lg_prof_sample:14" storm 15 20
check "host serves" wait_http "$U/"
enable "$U"
is "sampling on" "$(code)" 200

cat >"$T/scrape.sh" <<'EOS'
#!/bin/sh
# Scrapes every second until told to stop: PATH CODE per line.
U=$1 out=$2
while [ ! -e "$out.stop" ]; do
	for r in "debug/pprof/heap" "internal/heap?format=folded" \
		"internal/heap/timeline?format=json" "debug/pprof/allocs"; do
		c=$(curl -s -o /dev/null -w '%{http_code}' --max-time 20 "$U/$r" 2>/dev/null)
		echo "$r ${c:-none}" >>"$out"
	done
	echo round >>"$out"
	sleep 1
done
EOS
chmod +x "$T/scrape.sh"
: >"$T/scrapes"
"$T/scrape.sh" "$U" "$T/scrapes" &
sp=$!; PIDS="$PIDS $sp"

start=$(t0)
echo go >&3
storm_check "storm, scraped" 15 60
touch "$T/scrapes.stop"
# A round of four requests ends within 4 x 20 s even when nothing answers;
# a stuck host is not waited for.
if has_done; then wait_secs 90 gone "$sp" || kill -9 "$sp"; else kill -9 "$sp"; fi
rounds=$(grep -c '^round' "$T/scrapes")
check "the client scraped $rounds rounds during the storm (at least 5)" [ "$rounds" -ge 5 ]
bad=$(grep -v -e '^round' -e ' 200$' "$T/scrapes" | grep -v '^internal/heap/timeline.* 409$' | sort | uniq -c | tr '\n' ' ')
is "every scrape answered 200 (the timeline 409 only before its first snapshot)" "${bad:-none}" none
tl=$(grep '^internal/heap/timeline' "$T/scrapes" | awk '{ print $2 }' | tr '\n' ' ')
like "the timeline never fails once it has answered" "$tl" '^(409 )*(200 )*$'
cu "$U/internal/heap/settings" >/dev/null
is "the endpoint answers after the storm" "$(code)" 200
end_host
is "the host exits 0" "$HOST_ST" 0

# 2. No client at all, the default rate, snapshots every second.
port=$(free_port); U=http://127.0.0.1:$port
start_fp "FLAMEKIT_HTTP=127.0.0.1:$port FLAMEKIT_SNAPSHOT_S=1" storm 8 20
check "host serves" wait_http "$U/"
enable "$U"
start=$(t0)
echo go >&3
storm_check "storm, no client" 8 50
end_host
is "the host exits 0" "$HOST_ST" 0
