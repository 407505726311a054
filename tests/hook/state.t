#!/bin/sh
# SPDX-License-Identifier: MIT
# The hook's state across exec (issue 20 item 10): the hook keeps no
# state descriptor in the host, so a child the host starts with system(3)
# sees no flamekit descriptor and cannot change the hook's settings,
# while a host that execs itself in the same pid keeps what a request set
# (enabled and lg_sample), through more than one exec.
. "$(dirname "$0")/svclib.sh"

port=$(free_port); U=http://127.0.0.1:$port
# Every image starts at lg 11 (MALLOC_CONF), so a thread's first sample,
# which comes after a wait drawn at the starting rate, is soon; the
# requests set other rates, which the checks tell from the start's.
start_fp "FLAMEKIT_HTTP=127.0.0.1:$port MALLOC_CONF=lg_prof_sample:11" reexec
check "host serves" wait_http "$U/"
is "the host's table holds only its own 0 1 2 (it holds $(fd_links "$HOST_PID"))" \
	"$(fd_list "$HOST_PID")" "0 1 2"

s=$(post "$U/internal/heap/settings?enabled=true&lg_sample=13")
is "enable at lg 13" "$(code)" 200

# 1. A system(3) child: which descriptors it inherits, and what it can do
#    with them (it overwrites any named flamekit, as a hostile child could).
hcmd system '^system '
is "the system() child ran" "$(last '^system ')" "system 0"
is "the exec'd child inherits no flamekit descriptor ($(grep '^fd ' "$HOST_OUT" | tr '\n' ' '))" \
	"$(last '^flamekit-fds')" "flamekit-fds 0 tampered 0"
is "the exec'd child inherits 0 1 2 only" \
	"$(grep '^fd ' "$HOST_OUT" | awk '{ print $2 }' | sort -n | tr '\n' ' ')" "0 1 2 "
s=$(cu "$U/internal/heap/settings")
is "after the child: still enabled" "$(jfield "$s" enabled)" true
is "after the child: lg_sample still 13" "$(jfield "$s" lg_sample)" 13

# 2. The host execs itself (same pid): the settings survive.
hcmd exec '^ready .* gen 2$'
is "the same pid runs generation 2" "$(last '^ready' | awk '{ print $2 }')" "$HOST_PID"
check "generation 2 serves" wait_http "$U/"
s=$(cu "$U/internal/heap/settings")
is "after exec: enabled kept" "$(jfield "$s" enabled)" true
is "after exec: lg_sample 13 kept" "$(jfield "$s" lg_sample)" 13
is "after exec: the host's table holds only 0 1 2 (it holds $(fd_links "$HOST_PID"))" \
	"$(fd_list "$HOST_PID")" "0 1 2"
hcmd "grow 20" '^grown|^failed'
cu "$U/internal/heap?format=folded" >"$T/folded"
check "after exec: the profile names reexec_grow" grep -q reexec_grow "$T/folded"

# 3. A request in generation 2, a child, another exec: the new values win.
s=$(post "$U/internal/heap/settings?enabled=false&lg_sample=15")
is "disable at lg 15 in generation 2" "$(code)" 200
hcmd system '^system '
is "generation 2's exec'd child inherits no flamekit descriptor" \
	"$(last '^flamekit-fds')" "flamekit-fds 0 tampered 0"
hcmd exec '^ready .* gen 3$'
check "generation 3 serves" wait_http "$U/"
s=$(cu "$U/internal/heap/settings")
is "generation 3: disabled kept" "$(jfield "$s" enabled)" false
is "generation 3: lg_sample 15 kept" "$(jfield "$s" lg_sample)" 15
is "generation 3: the host's table holds only 0 1 2 (it holds $(fd_links "$HOST_PID"))" \
	"$(fd_list "$HOST_PID")" "0 1 2"

hcmd quit '^bye'
end_host
is "the host exits 0" "$HOST_ST" 0
check "nothing on stderr ($(head -c 200 "$HOST_ERR"))" [ ! -s "$HOST_ERR" ]
