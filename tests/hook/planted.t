#!/bin/sh
# SPDX-License-Identifier: MIT
# Names another user can plant (issue 32 item 1): the settings carried
# across exec live in a folder of the host's user alone, made and checked
# by the hook; a name squatted by another user costs the carry-over and
# one line on stderr, never a hung hook or a host that cannot start. The
# host runs as the second user; root, as the other user here, plants.
. "$(dirname "$0")/svclib.sh"

if ! other_user; then
	echo "ok 1 # skip no second user (run as root to make $OTHER)"
	exit 0
fi
uid=$(id -u "$OTHER")
DIR=/dev/shm/flamekit-hook.$uid
[ -w /dev/shm ] || DIR=${TMPDIR:-/tmp}/flamekit-hook.$uid
RUN_AS=$AS_OTHER
cleanup_dir() { rm -rf "$DIR" /dev/shm/flamekit-hook-state."$uid".* 2>/dev/null; }
cleanup_dir
trap 'cleanup_dir; cleanup' EXIT

# start PORT: the host, as the second user, re-executing itself on "exec".
start() {
	port=$1; U=http://127.0.0.1:$port
	start_fp "FLAMEKIT_HTTP=127.0.0.1:$port" reexec && wait_http "$U/"
}
stop() { hcmd quit '^bye'; end_host; }

# 1. Squatted before the host starts: a FIFO, a symbolic link to a good
#    folder, a folder of root's open to all. The host starts, serves,
#    says so once, and an exec still reaches main (without the settings).
mkdir -m 0700 "$T/good"; chown "$OTHER" "$T/good"
for kind in fifo link folder; do
	cleanup_dir
	case $kind in
	fifo) mkfifo -m 0666 "$DIR" ;;
	link) ln -s "$T/good" "$DIR" ;;
	folder) mkdir -m 0777 "$DIR" ;;
	esac
	check "$kind squat: the host starts and serves" start "$(free_port)"
	is "$kind squat: one line on stderr ($(head -c 300 "$HOST_ERR"))" \
		"$(grep -c "flamekit-hook: $DIR is not a private folder of this user's.*will not survive an exec" "$HOST_ERR")" 1
	post "$U/internal/heap/settings?enabled=true" >/dev/null
	is "$kind squat: a POST is answered" "$(code)" 200
	check "$kind squat: an exec reaches main" hcmd exec '^ready .* gen 2$'
	check "$kind squat: generation 2 serves" wait_http "$U/"
	s=$(cu "$U/internal/heap/settings")
	is "$kind squat: no carry-over" "$(jfield "$s" enabled)" false
	is "$kind squat: generation 2 says so once too" "$(grep -c 'not a private folder' "$HOST_ERR")" 2
	stop
	is "$kind squat: the host exits 0" "$HOST_ST" 0
done
cleanup_dir

# 2. FIFOs planted while it runs: at the name of the state file the hook
#    used before (in /dev/shm itself), and inside its own folder (root can
#    write there). No open blocks; the save replaces the FIFO.
check "the host starts" start "$(free_port)"
check "nothing on stderr ($(head -c 300 "$HOST_ERR"))" [ ! -s "$HOST_ERR" ]
check "its folder is the user's, mode 0700, a real folder" \
	[ "$(stat -c '%F %U %a' "$DIR")" = "directory $OTHER 700" ]
start_t=$(awk '{ print $22 }' "/proc/$HOST_PID/stat")
mkfifo -m 0666 "/dev/shm/flamekit-hook-state.$uid.$HOST_PID.$start_t" 2>/dev/null
mkfifo -m 0600 "$DIR/state.$HOST_PID.$start_t"
chown "$OTHER" "$DIR/state.$HOST_PID.$start_t"
mkfifo -m 0600 "$DIR/state.$HOST_PID.$start_t.tmp"
post "$U/internal/heap/settings?enabled=true&lg_sample=13" >/dev/null
is "a POST with FIFOs planted is answered" "$(code)" 200
check "the state file is a regular file now" [ -f "$DIR/state.$HOST_PID.$start_t" ]
mkfifo -m 0600 "$DIR/state.$HOST_PID.$start_t.x"
check "an exec reaches main" hcmd exec '^ready .* gen 2$'
check "generation 2 serves" wait_http "$U/"
s=$(cu "$U/internal/heap/settings")
is "the settings survived the exec: enabled" "$(jfield "$s" enabled)" true
is "the settings survived the exec: lg_sample 13" "$(jfield "$s" lg_sample)" 13
stop
is "the host exits 0" "$HOST_ST" 0
check "its state file is gone at exit" [ ! -e "$DIR/state.$HOST_PID.$start_t" ]
check "nothing on stderr ($(head -c 300 "$HOST_ERR"))" [ ! -s "$HOST_ERR" ]

# 3. A FIFO planted at the state file's name before an exec's constructor
#    reads it: the next image reaches main.
check "the host starts again" start "$(free_port)"
start_t=$(awk '{ print $22 }' "/proc/$HOST_PID/stat")
post "$U/internal/heap/settings?enabled=true" >/dev/null
rm -f "$DIR/state.$HOST_PID.$start_t"
mkfifo -m 0600 "$DIR/state.$HOST_PID.$start_t"
chown "$OTHER" "$DIR/state.$HOST_PID.$start_t"
check "an exec over a planted FIFO reaches main" hcmd exec '^ready .* gen 2$'
check "and serves" wait_http "$U/"
stop
is "the host exits 0" "$HOST_ST" 0
echo "1..$tn"
