#!/bin/sh
# SPDX-License-Identifier: MIT
# The hook's snapshots over time on series-prog (a cache that grows, a
# spike that comes and goes): interval, peak and requested snapshots, the
# timeline as JSON, folded series and page, a snapshot and the growth
# between two in every format, the ring's budget; and heap-series on the
# same run's jemalloc interval dumps naming the same top sites.
. "$(dirname "$0")/hooklib.sh"
export PPROF_TMPDIR=$T HOME=$T
nok=0
# step CMD: sends a command to series-prog and waits for its answer.
step() {
	nok=$((nok + 1))
	echo "$1" >&3
	i=0
	while [ "$(grep -c '^ok$' "$HOST_OUT")" -lt $nok ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	[ "$(grep -c '^ok$' "$HOST_OUT")" -ge $nok ]
}
snap() { cu -X POST -H 'X-Flamekit: 1' "$U/internal/heap/snapshot" >/dev/null; [ "$(code)" = 200 ]; }
json() { cu "$U/internal/heap/timeline?format=json"; }
# jq_py EXPR: evaluates a Python expression over the timeline JSON (d).
jq_py() { json | python3 -c "import json,sys; d=json.load(sys.stdin); s=d['snapshots']; print($1)"; }
# top FILE: the leaf of the heaviest line of a folded file.
top() { grep -v '^#' "$1" | sort -t' ' -k2 -n | tail -1 | sed 's/ [0-9]*$//; s/.*;//'; }
# folded_has FILE NAME: NAME is a frame of some line with a positive value.
folded_has() { grep -v '^#' "$1" | awk -v n="$2" '{ v = $NF; sub(/ [0-9]+$/, ""); if ((";" $0 ";") ~ (";" n ";") && v > 0) f = 1 } END { exit !f }'; }

port=$(free_port)
U=http://127.0.0.1:$port
rm -f "$T/in"; mkfifo "$T/in"; HOST_OUT=$T/host.out; : >"$HOST_OUT"
mkdir -p "$T/dumps"
env LD_PRELOAD="$HOOK $JE" FLAMEKIT_HTTP=127.0.0.1:$port FLAMEKIT_SNAPSHOT_S=0 \
	MALLOC_CONF="prof:true,prof_active:false,prof_accum:true,lg_prof_sample:12,prof_prefix:$T/dumps/series,lg_prof_interval:20" \
	"$B/series-prog" <"$T/in" >"$HOST_OUT" 2>"$T/host.err" &
HOST_PID=$!; PIDS="$PIDS $HOST_PID"
exec 3>"$T/in"
check "host serves" wait_http "$U/internal/heap/settings"
s=$(cu "$U/internal/heap/settings")
is "settings: no interval snapshots with FLAMEKIT_SNAPSHOT_S=0" "$(jfield "$s" snapshot_seconds)" 0
is "settings: the default budget, 64 MiB" "$(jfield "$s" snapshot_budget)" 67108864
is "settings: no snapshot while sampling is off" "$(jfield "$s" snapshots)" 0
cu "$U/internal/heap/timeline" >/dev/null
is "timeline before any snapshot is 409" "$(code)" 409
cu -X POST -H 'Sec-Fetch-Site: cross-site' "$U/internal/heap/snapshot" >/dev/null
is "a browser's cross-site POST snapshot is refused" "$(code)" 403
cu -X POST -H 'X-Flamekit: 1' "$U/internal/heap/settings?enabled=true" >/dev/null
is "sampling on" "$(code)" 200

check "grow the cache 1 MiB" step "grow 16"
check "snapshot on request" snap
check "grow the cache 1 MiB more" step "grow 16"
check "snapshot on request" snap
first=$(jq_py 's[0]["id"]')
check "spike: 6 MiB in spike_alloc" step "spike 96"
# The hook's thread sees stats.allocated pass its maximum by 10 % (no
# interval snapshot here to take the spike first).
i=0
while [ "$(jq_py 'sum(1 for x in s if x["why"] == "peak" and x["sampled_bytes"] > 6000000)')" -lt 1 ] && [ $i -lt 300 ]; do
	sleep 0.1; i=$((i + 1))
done
check "a peak snapshot caught the spike by itself" \
	[ "$(jq_py 'sum(1 for x in s if x["why"] == "peak" and x["sampled_bytes"] > 6000000)')" -ge 1 ]
check "free the spike" step "unspike"
check "grow the cache 1 MiB" step "grow 16"
check "grow the cache 1 MiB" step "grow 16"
check "snapshot on request" snap
last=$(jq_py 's[-1]["id"]')

j=$(json)
check "timeline JSON is JSON" sh -c "printf '%s' '$j' | python3 -c 'import json,sys; json.load(sys.stdin)'"
peak=$(jq_py 'd["peak"]')
check "the peak is the spike: the highest sampled heap ($peak)" \
	[ "$(jq_py 'max(x["sampled_bytes"] for x in s) == [x for x in s if x["id"] == d["peak"]][0]["sampled_bytes"]')" = True ]
check "the timeline shows the growth: the last snapshot holds more than the first" \
	[ "$(jq_py 's[-1]["sampled_bytes"] > s[0]["sampled_bytes"] + 3000000')" = True ]
check "and the spike: the peak holds 2 MiB more than the last, after 2 MiB more of cache" \
	[ "$(jq_py '[x for x in s if x["id"] == d["peak"]][0]["sampled_bytes"] > s[-1]["sampled_bytes"] + 2000000')" = True ]
check "every snapshot has jemalloc's figures and the RSS, in order rss >= resident >= active >= allocated" \
	[ "$(jq_py 'all(x["rss"] >= x["resident"] >= x["active"] >= x["allocated"] > 0 and x["mapped"] > 0 and x["metadata"] > 0 and x["retained"] is not None for x in s)')" = True ]

cu "$U/internal/heap?snapshot=$peak&format=folded" >"$T/peak.folded"
is "?snapshot=PEAK is 200" "$(code)" 200
is "the peak snapshot's top site is spike_alloc" "$(top "$T/peak.folded")" spike_alloc
cu "$U/internal/heap?base=$first&snapshot=$last&format=folded" >"$T/growth.folded"
is "?base=FIRST&snapshot=LAST is 200" "$(code)" 200
is "the growth's top site is grow_cache" "$(top "$T/growth.folded")" grow_cache
check "and spike_alloc, freed, is not in it" sh -c "! grep -q spike_alloc '$T/growth.folded'"
cu "$U/internal/heap?base=$first&snapshot=$last" >"$T/growth.pb.gz"
is "growth as pprof: 200" "$(code)" 200
go tool pprof -top "$T/growth.pb.gz" >"$T/gtop" 2>&1
is "go tool pprof reads the growth: grow_cache on top" "$(awk '/flat%/ { getline; print $NF; exit }' "$T/gtop")" grow_cache
cu "$U/internal/heap?base=$first&format=folded" >"$T/now.folded"
is "?base=FIRST (to now) is 200, grow_cache on top" "$(code) $(top "$T/now.folded")" "200 grow_cache"
cu "$U/internal/heap?snapshot=$peak&format=flame" >"$T/peak.svg"
check "a snapshot as a flame graph is valid XML" xmllint --noout "$T/peak.svg"
# A snapshot's page says whose heap it was and when: the snapshot's time;
# its columns are the in-use space and objects a snapshot keeps.
is "the snapshot's page: its pid, its program" \
	"$(page_info pid "$T/peak.svg") $(page_info program "$T/peak.svg")" "$HOST_PID $(readlink "/proc/$HOST_PID/exe")"
is "the snapshot's page: the snapshot's time" "$(page_info time "$T/peak.svg")" \
	"$(jq_py 'int([x for x in s if x["id"] == d["peak"]][0]["time"])')"
is "the snapshot's page: the sample period (lg 12)" "$(page_info sample_period "$T/peak.svg")" 4096
is "the snapshot's page: in-use space and objects" "$(page_meta fkcols "$T/peak.svg")" \
	"inuse_space/bytes inuse_objects/count"
cu "$U/internal/heap?base=$first&snapshot=$last&format=flame" >"$T/growth.svg"
is "the growth's page: 200" "$(code)" 200
is "the growth's page: in-use space at the last snapshot's time, one column" \
	"$(page_info sample_type "$T/growth.svg") $(page_info time "$T/growth.svg") $(page_meta fkcols "$T/growth.svg")" \
	"inuse_space $(jq_py 'int(s[-1]["time"])') "
cu "$U/internal/heap?snapshot=$peak&format=raw" >/dev/null
is "a snapshot as raw is 400" "$(code)" 400
cu "$U/internal/heap?snapshot=99999" >/dev/null
is "an unknown snapshot is 404" "$(code)" 404
cu "$U/internal/heap?snapshot=x" >/dev/null
is "a malformed snapshot id is 400" "$(code)" 400

cu "$U/internal/heap/timeline?format=folded" >"$T/series.folded"
is "timeline folded: 200" "$(code)" 200
n=$(jq_py 'len(s)')
is "one column a snapshot" "$(head -1 "$T/series.folded" | wc -w)" $((n + 2))
is "one series line a snapshot" "$(grep -c '^# series: s' "$T/series.folded")" "$n"
check "series lines carry the figures" grep -q '^# series: s[0-9]* time=[0-9.]* allocated=[0-9]* active=[0-9]* resident=[0-9]* mapped=[0-9]* retained=[0-9]* metadata=[0-9]* rss=[0-9]* hook=[0-9]* sampling=[0-9]* tcache=[0-9]* slab_holes=[0-9]* slab_tails=[0-9]* large_pad=[0-9]* dirty=[0-9]* muzzy=[0-9]* metadata_resident=[0-9]* files=[0-9]* waste=[0-9]*$' "$T/series.folded"
cu "$U/internal/heap/timeline" >"$T/timeline.svg"
is "timeline page: 200" "$(code)" 200
check "timeline page is valid XML" xmllint --noout "$T/timeline.svg"
check "timeline page holds the series" grep -q 'spike_alloc' "$T/timeline.svg"
is "timeline page: its pid, its sample type and period" \
	"$(page_info pid "$T/timeline.svg") $(page_info sample_type "$T/timeline.svg") $(page_info sample_period "$T/timeline.svg")" \
	"$HOST_PID inuse_space 4096"
"$B/render-flame" "$T/series.folded" >"$T/offline.svg" 2>"$T/rf.err"
check "render-flame draws the same series" [ -s "$T/offline.svg" ]
cp "$T/timeline.svg" "${FK_TIMELINE_SVG:-/dev/null}" 2>/dev/null || true

# heap-series on the interval dumps jemalloc wrote during the same run.
echo quit >&3; exec 3>&-
i=0; while ! gone "$HOST_PID" && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
check "host exits" gone "$HOST_PID"
ls "$T"/dumps/series.*.heap >"$T/dumplist" 2>/dev/null
check "jemalloc wrote interval dumps ($(wc -l <"$T/dumplist"))" [ "$(wc -l <"$T/dumplist")" -ge 4 ]
"$B/heap-series" "$T"/dumps/series.*.heap >"$T/off.folded" 2>"$T/hs.err"
check "heap-series reads them ($(head -c 300 "$T/hs.err"))" [ -s "$T/off.folded" ]
# The column with the largest total is the offline peak.
python3 - "$T/off.folded" >"$T/offtop" <<'EOF'
import sys
cols = None
lines = []
for l in open(sys.argv[1]):
    if l.startswith('#'):
        if l.startswith('# columns:'):
            cols = len(l.split()) - 2
        continue
    parts = l.rstrip('\n').split(' ')
    vals = [int(v) for v in parts[-cols:]]
    lines.append((' '.join(parts[:-cols]), vals))
tot = [sum(v[k] for _, v in lines) for k in range(cols)]
pk = tot.index(max(tot))
leaf = lambda s: s.split(';')[-1]
print(leaf(max(lines, key=lambda x: x[1][pk])[0]))
print(leaf(max(lines, key=lambda x: x[1][-1] - x[1][0])[0]))
EOF
is "offline: the peak dump's top site is spike_alloc, as the hook's" "$(sed -n 1p "$T/offtop")" spike_alloc
is "offline: the growth's top site is grow_cache, as the hook's" "$(sed -n 2p "$T/offtop")" grow_cache

# The budget: many snapshots in 1 MiB keep the first and the peak.
port=$(free_port)
U=http://127.0.0.1:$port
rm -f "$T/in"; mkfifo "$T/in"; : >"$HOST_OUT"; nok=0
env LD_PRELOAD="$HOOK $JE" FLAMEKIT_HTTP=127.0.0.1:$port FLAMEKIT_SNAPSHOT_S=0.5 FLAMEKIT_SNAPSHOT_MB=1 \
	MALLOC_CONF=prof:true,prof_active:true,lg_prof_sample:0 \
	"$B/hook-bench-prog" stacks 9 <"$T/in" >"$HOST_OUT" 2>"$T/host.err" &
HOST_PID=$!; PIDS="$PIDS $HOST_PID"
exec 3>"$T/in"
check "a host with 512 stacks serves" wait_http "$U/internal/heap/settings"
# Interval snapshots come by themselves: wait for two (an event, capped;
# the hook may take peak snapshots too, which are not what is counted).
i=0
while [ "$(jq_py 'sum(1 for x in s if x["why"] == "interval")')" -lt 2 ] && [ $i -lt 300 ]; do
	sleep 0.1; i=$((i + 1))
done
is "settings: interval 0.5 s from FLAMEKIT_SNAPSHOT_S" "$(jfield "$(cu "$U/internal/heap/settings")" snapshot_seconds)" 0.5
check "interval snapshots are taken by themselves ($(jq_py 'len(s)'))" \
	[ "$(jq_py 'sum(1 for x in s if x["why"] == "interval")')" -ge 2 ]
k=0
while [ $k -lt 150 ]; do snap || break; k=$((k + 1)); done
is "150 snapshots requested" "$k" 150
# Interval snapshots stop with sampling: the newest is then the last asked.
cu -X POST -H 'X-Flamekit: 1' "$U/internal/heap/settings?enabled=false" >/dev/null
snap
newest=$(jq_py 's[-1]["id"]')
s=$(cu "$U/internal/heap/settings")
check "the ring stays within its 1 MiB ($(jfield "$s" snapshot_bytes) bytes)" [ "$(jfield "$s" snapshot_bytes)" -le 1048576 ]
check "it thinned ($(jfield "$s" snapshots) left)" [ "$(jfield "$s" snapshots)" -lt 150 ]
is "the first snapshot is kept" "$(jq_py 's[0]["id"]')" 1
is "the newest is kept" "$(jq_py 's[-1]["id"]')" "$newest"
check "ids went past 150 (interval snapshots among them)" [ "$newest" -gt 151 ]
curl -s --max-time 60 "$U/internal/heap/timeline" >"$T/thin.svg"
check "the timeline of the thinned ring is served" xmllint --noout "$T/thin.svg"
exec 3>&-

echo "1..$tn"
