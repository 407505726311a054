#!/bin/sh
# SPDX-License-Identifier: MIT
# The timeline's page takes the flame graph's options (issue 22 item 9: it
# ignored minwidth and colors without a word): the hook's page with
# colors, minwidth and inverted is render-flame's with the same options on
# the same series after the page's origin; a bad value is 400, and folded or json refuse them.
. "$(dirname "$0")/hooklib.sh"
port=$(free_port)
U=http://127.0.0.1:$port
start_host 127.0.0.1:$port FLAMEKIT_SNAPSHOT_S=0 MALLOC_CONF=lg_prof_sample:12
check "host started" wait_http "$U/internal/heap/settings"
check "sampling on" enable "$U"
snap() { cu -X POST -H 'X-Flamekit: 1' "$U/internal/heap/snapshot" >/dev/null; [ "$(code)" = 200 ]; }
check "host allocates" host_cmd "grow 20" '^grown 20'
check "snapshot" snap
check "host allocates more" host_cmd "grow 20" '^grown 40'
check "snapshot" snap
q="colors=mem&minwidth=2%25&inverted=true"
# The hook's thread may add a peak snapshot at any time: the page counts
# when the series read before and after it is the same.
same=1; k=0
while [ $k -lt 5 ]; do
	cu "$U/internal/heap/timeline?format=folded" >"$T/tl.folded"
	cu "$U/internal/heap/timeline?$q" >"$T/opts.svg"
	st=$(code)
	cu "$U/internal/heap/timeline?format=folded" >"$T/tl2.folded"
	cmp -s "$T/tl.folded" "$T/tl2.folded" && { same=0; break; }
	k=$((k + 1))
done
check "the series held still around a page" [ $same = 0 ]
is "the page with options: 200" "$st" 200
# The page's origin (the program, pid, host, time, sampling) as render-flame
# reads it: '# info:' lines before the series.
page_meta fkinfo "$T/opts.svg" | sed 's/^/# info: /' | cat - "$T/tl.folded" >"$T/tl.input"
"$B/render-flame" --title "Heap over time" --colors mem --minwidth 2% --inverted "$T/tl.input" >"$T/rf.svg"
check "it is render-flame's page with the same options" cmp -s "$T/opts.svg" "$T/rf.svg"
cu "$U/internal/heap/timeline" >"$T/plain.svg"
check "and not the page without them" sh -c "! cmp -s '$T/plain.svg' '$T/opts.svg'"
cu "$U/internal/heap/timeline?minwidth=x" >"$T/bad"
is "a bad minwidth is 400" "$(code)" 400
like "naming it" "$(cat "$T/bad")" "bad minwidth 'x'"
cu "$U/internal/heap/timeline?format=folded&colors=mem" >"$T/bad"
is "colors with format=folded is 400" "$(code)" 400
like "with a sentence" "$(cat "$T/bad")" "'colors' shapes the timeline's page \\(format=flame\\), not format=folded"
cu "$U/internal/heap/timeline?format=json&minwidth=1" >"$T/bad"
is "minwidth with format=json is 400" "$(code)" 400
check "host exits cleanly" stop_host
echo "1..$tn"
