#!/bin/sh
# SPDX-License-Identifier: MIT
# The list of processes costs the workers a few bytes (issue 33): the
# listener asks each one over its registry connection, and the worker's
# resident half answers one line. Before, the listener asked every
# worker GET /internal/heap/settings on its socket, which loaded the
# serving half (libflamekit-hook-serve.so.0 and its libraries) into each,
# where it stayed: nginx's tree grew from 55.9 to 101.8 MB after one
# read-only list. The list still says what the settings said: enabled,
# and which jemalloc and mallctl.
. "$(dirname "$0")/svclib.sh"
WAIT_TENTHS=300
start_prefork "$(free_port)"
# serving PID: whether PID maps the serving half.
serving() { grep -q 'libflamekit-hook-serve' "/proc/$1/maps"; }
unmapped() { ! serving "$1"; }
check "the listener maps the serving half (it answered)" serving "$M"
for i in 1 2 3; do cu "$U/internal/heap/processes" >"$T/list"; done
is "the third list: 200" "$(code)" 200
# field PID KEY: KEY of PID's entry in the list's JSON in $T/list.
field() { jpy "$(cat "$T/list")" "[p.get('$2') for p in d['processes'] if p['pid'] == $1]"; }
je=$(field "$M" jemalloc)
like "the listener's jemalloc is named" "$je" 'mallctl in /'
for w in $workers; do
	check "worker $w does not map the serving half after the lists" unmapped "$w"
	is "worker $w: enabled false, as its settings say" "$(field "$w" enabled)" "[false]"
	is "worker $w: its jemalloc, as the listener's" "$(field "$w" jemalloc)" "$je"
	is "worker $w: no error" "$(field "$w" error)" "[null]"
done
# A worker that loaded its serving half (a scrape of it) answers the same.
W=$(echo $workers | cut -d' ' -f1)
cu "$U/internal/heap/settings?pid=$W" >/dev/null
is "a worker's settings through the listener: 200" "$(code)" 200
check "worker $W maps the serving half now" serving "$W"
cu "$U/internal/heap/processes" >"$T/list"
is "it is listed as before: enabled false" "$(field "$W" enabled)" "[false]"
is "with its jemalloc" "$(field "$W" jemalloc)" "$je"
post "$U/internal/heap/settings?enabled=true&pid=$W" >/dev/null
is "sampling turned on in worker $W alone: 200" "$(code)" 200
cu "$U/internal/heap/processes" >"$T/list"
is "the list says it: enabled true" "$(field "$W" enabled)" "[true]"
is "the listener's is still false" "$(field "$M" enabled)" "[false]"
echo quit >&3
end_host
is "the host exits 0" "$HOST_ST" 0
echo "1..$tn"
