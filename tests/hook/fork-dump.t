#!/bin/sh
# SPDX-License-Identifier: MIT
# Forks while the hook works (issue 33): a program linked with the hook
# forks on one thread while another dumps through fk_hook_dump, a third
# allocates and a client scrapes pprofs over HTTP. A lock of the hook's
# held by another thread at the fork would be copied held into the
# child, which would hang as soon as it took it (the arena's, sampling's:
# the fork handlers take every short lock, hook_main.c). Every child must
# exit, every dump succeed, the scrapes be answered.
. "$(dirname "$0")/hooklib.sh"

P=$B/forkdump-prog
[ -x "$P" ] || { echo "not ok 1 - $P is not built (make)"; exit 1; }
port=$(free_port); U=http://127.0.0.1:$port
HOST_OUT=$T/out
"$P" "127.0.0.1:$port" "${FK_FORKDUMP_SECONDS:-12}" >"$HOST_OUT" 2>"$T/err" &
HOST_PID=$!
PIDS="$PIDS $HOST_PID"
check "the program serves" wait_line '^ready'
: >"$T/codes"
# Scrapes until the program is done (each bounded by curl's own timeout).
while kill -0 "$HOST_PID" 2>/dev/null && ! grep -q '^done' "$HOST_OUT"; do
	curl -s -o /dev/null -w '%{http_code}\n' --max-time 30 "$U/internal/heap?format=pprof" >>"$T/codes"
done
WAIT_TENTHS=600 wait_line '^done'
res=$(grep '^done' "$HOST_OUT")
check "the program finished ($(tail -1 "$HOST_OUT"))" [ -n "$res" ]
forks=$(printf '%s' "$res" | sed -n 's/.*forks=\([0-9]*\).*/\1/p')
check "it forked (forks=$forks)" [ "${forks:-0}" -gt 10 ]
like "no child was stuck" "$res" ' stuck=0 '
like "every dump succeeded" "$res" ' failed=0$'
like "dumps were made" "$res" ' dumps=[1-9]'
check "scrapes were answered ($(sort "$T/codes" | uniq -c | tr '\n' ' '))" grep -q '^200$' "$T/codes"
# The last may have met the server stopping at the program's end.
sed '$d' "$T/codes" >"$T/codes1"
check "no scrape failed but the last" sh -c "! grep -qv '^200\$' \"\$1\"" - "$T/codes1"
wait "$HOST_PID"
is "the program exits 0" "$?" 0
check "nothing on stderr ($(head -c 300 "$T/err"))" [ ! -s "$T/err" ]
echo "1..$tn"
