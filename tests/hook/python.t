#!/bin/sh
# SPDX-License-Identifier: MIT
# The hook in a real program nobody here wrote: python3.11 with
# PYTHONMALLOC=malloc under LD_PRELOAD. Enable with curl, allocate, then
# every format names the allocation site (PyByteArray_Resize, exported by
# the stripped Debian python), go tool pprof reads the URL itself, and
# jeprof-raw URL | symbolize | to-pprof works against the live process.
. "$(dirname "$0")/hooklib.sh"
PY=/usr/bin/python3.11
SITE=PyByteArray_Resize
export PPROF_TMPDIR=$T HOME=$T

port=$(free_port)
U=http://127.0.0.1:$port
mkfifo "$T/in"
HOST_OUT=$T/py.out
env PYTHONMALLOC=malloc FLAMEKIT_HTTP=127.0.0.1:$port LD_PRELOAD="$HOOK $JE" \
	"$PY" "$(dirname "$0")/python_prog.py" <"$T/in" >"$HOST_OUT" 2>"$T/py.err" &
HOST_PID=$!
PIDS="$HOST_PID"
exec 3>"$T/in"
check "python started" wait_line '^ready'
check "python serves" wait_http "$U/internal/heap/settings"

cu "$U/internal/heap" >/dev/null
is "pprof before enabling is 409" "$(code)" 409
# lg_sample 16 (one sample per 64 KiB): tight enough estimates for the
# totals checked below (about 7 % standard error on 300 blocks).
s=$(cu -X POST -H 'X-Flamekit: 1' "$U/internal/heap/settings?enabled=true&lg_sample=16")
like "enabled with curl" "$s" '"enabled":true'
check "python allocates 300 bytearrays" host_cmd "grow 300" '^grown 300'

cu "$U/internal/heap" >"$T/heap.pb.gz"
is "pprof (default format) is 200" "$(code)" 200
go tool pprof -unit=MB -top "$T/heap.pb.gz" >"$T/top" 2>&1
top=$(awk '/flat%/ { getline; print $NF; exit }' "$T/top")
is "go tool pprof -top: $SITE on top" "$top" "$SITE"
flat=$(awk '/flat%/ { getline; print $1; exit }' "$T/top")
# bytearray(65536) asks for 65537 bytes: jemalloc's 80 KiB size class,
# so 300 of them hold 24.6 MB.
like "$SITE holds about the 24.6 MB kept ($flat)" "$flat" '^(2[0-9])(\.[0-9]+)?MB$'

go tool pprof -top "$U/debug/pprof/heap" >"$T/top2" 2>&1
top=$(awk '/flat%/ { getline; print $NF; exit }' "$T/top2")
is "go tool pprof URL/debug/pprof/heap: $SITE on top" "$top" "$SITE"

cu "$U/internal/heap?format=flame&title=python%20heap&colors=hot&minwidth=0.5" >"$T/heap.svg"
is "flame is 200" "$(code)" 200
check "flame graph is valid XML (xmllint)" xmllint --noout "$T/heap.svg"
check "flame graph names $SITE" grep -q "$SITE" "$T/heap.svg"
check "flame graph takes the title" grep -q 'python heap' "$T/heap.svg"
cu "$U/internal/heap?format=flame&colors=nosuch" >/dev/null
is "flame with unknown colors is 400" "$(code)" 400
cu "$U/internal/heap?format=flame&inverted=1&minwidth=1%25" >"$T/inv.svg"
check "inverted flame with a % minwidth is valid XML" xmllint --noout "$T/inv.svg"

cu "$U/internal/heap?format=folded" >"$T/folded"
line=$(sort -t' ' -k2 -n "$T/folded" | tail -1)
like "folded: heaviest stack ends in $SITE" "$line" ";$SITE [0-9]+$"
cu "$U/internal/heap?format=symbolized" >"$T/sym"
check "symbolized starts with --- symbol" grep -q '^--- symbol' "$T/sym"
check "symbolized names $SITE" grep -q "$SITE" "$T/sym"

"$B/jeprof-raw" "$U" 2>"$T/e1" | "$B/symbolize" 2>"$T/e2" | "$B/to-pprof" >"$T/cli.pb.gz" 2>"$T/e3"
go tool pprof -top "$T/cli.pb.gz" >"$T/top3" 2>&1
top=$(awk '/flat%/ { getline; print $NF; exit }' "$T/top3")
is "jeprof-raw URL | symbolize | to-pprof: $SITE on top" "$top" "$SITE"
check "that pipeline printed no errors ($(cat "$T/e1" "$T/e2" "$T/e3" | head -c 300))" \
	sh -c '[ ! -s "$1" ] && [ ! -s "$2" ] && [ ! -s "$3" ]' _ "$T/e1" "$T/e2" "$T/e3"

# Growth over 2 s: allocate during the window, the delta names the site.
( sleep 0.5; echo "grow 100" >&3 ) &
cu "$U/debug/pprof/heap?seconds=2" >"$T/delta.pb.gz"
is "delta profile is 200" "$(code)" 200
go tool pprof -unit=MB -sample_index=alloc_space -top "$T/delta.pb.gz" >"$T/top4" 2>&1
top=$(awk '/flat%/ { getline; print $NF; exit }' "$T/top4")
is "window: $SITE on top of alloc_space" "$top" "$SITE"
flat=$(awk '/flat%/ { getline; print $1; exit }' "$T/top4")
like "window: $SITE allocated about the 8.2 MB of the window, not the 33 MB held ($flat)" "$flat" '^([6-9]|1[0-1])(\.[0-9]+)?MB$'

( sleep 0.5; echo "grow 100" >&3 ) &
go tool pprof -seconds 2 -sample_index=alloc_space -top "$U/debug/pprof/heap" >"$T/top5" 2>&1
check "go tool pprof -seconds 2 URL asks for ?seconds=2" grep -q 'heap?seconds=2' "$T/top5"
top=$(awk '/flat%/ { getline; print $NF; exit }' "$T/top5")
is "go tool pprof -seconds: $SITE on top of what the window allocated" "$top" "$SITE"

cu "$U/internal/heap?format=nonsense" >/dev/null
is "unknown format is 400" "$(code)" 400
s=$(cu -X POST -H 'X-Flamekit: 1' "$U/internal/heap/settings?enabled=false")
like "disable answers false" "$s" '"enabled":false'
like "settings says false" "$(cu "$U/internal/heap/settings")" '"enabled":false'
cu "$U/internal/heap" >"$T/off.pb.gz"
is "pprof after disabling is 200 (stop, then look)" "$(code)" 200
check "and names the site" sh -c "go tool pprof -top '$T/off.pb.gz' 2>/dev/null | grep -q '$SITE'"

echo quit >&3
exec 3>&-
i=0; while kill -0 "$HOST_PID" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
check "python exits on its own" gone "$HOST_PID"
wait "$HOST_PID"; st=$?
is "python's exit status" "$st" 0
check "nothing on python's stderr" [ ! -s "$T/py.err" ]
