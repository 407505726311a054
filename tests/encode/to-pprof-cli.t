#!/bin/sh
# SPDX-License-Identifier: MIT
# to-pprof's command-line contract: it refuses to write binary data to a
# terminal unless -f, writes nothing on a malformed input (also with -o, where
# no file is left behind), and every encode tool answers --help, --version
# and bad usage as STYLE.md says.
. "$(dirname "$0")/../lib/tap.sh"
command -v script >/dev/null || { echo "not ok 1 - script(1) (util-linux) is needed for a terminal"; exit 1; }

script -qec "to-pprof fixtures/good/tiny.prof" /dev/null >"$tmp/tty" 2>&1; st=$?
t "to-pprof refuses a terminal (status 1)" [ "$st" = 1 ]
t "and says why" grep -q "refusing to write binary data to a terminal" "$tmp/tty"
script -qec "to-pprof -f fixtures/good/tiny.prof" /dev/null >"$tmp/forced" 2>&1
t "to-pprof -f writes gzip to a terminal" [ "$(head -c 2 "$tmp/forced" | od -An -tx1 | tr -d ' ')" = 1f8b ]

to-pprof fixtures/bad/dump-bad-hex.prof >"$tmp/out" 2>/dev/null; st=$?
t "malformed dump: status 1" [ "$st" = 1 ]
t "malformed dump: nothing on standard output" [ ! -s "$tmp/out" ]
mkdir "$tmp/d"
to-pprof -o "$tmp/d/x.pb.gz" fixtures/bad/dump-bad-hex.prof 2>/dev/null
t "malformed dump with -o: no file left" [ -z "$(ls -A "$tmp/d")" ]
to-pprof -o "$tmp/x.pb.gz" fixtures/good/tiny.prof
to-pprof -o "$tmp/y.pb.gz" - <fixtures/good/tiny.prof
t "-o FILE and standard input" [ -s "$tmp/x.pb.gz" ]
from-pprof "$tmp/x.pb.gz" >"$tmp/a"
from-pprof "$tmp/y.pb.gz" >"$tmp/b"
t "same stacks from a file and from standard input" cmp -s "$tmp/a" "$tmp/b"

for tool in to-pprof from-pprof to-folded; do
	"$tool" --help >"$tmp/help" 2>"$tmp/err"; st=$?
	t "$tool --help: status 0, usage on stdout only" [ "$st" = 0 -a -s "$tmp/help" -a ! -s "$tmp/err" ]
	"$tool" --version >"$tmp/v" 2>&1; st=$?
	t "$tool --version" sh -c "[ $st = 0 ] && grep -q '^$tool (flamekit) ' '$tmp/v'"
	"$tool" --no-such-option >"$tmp/o" 2>"$tmp/err"; st=$?
	t "$tool bad option: status 2, usage on stderr, nothing on stdout" [ "$st" = 2 -a -s "$tmp/err" -a ! -s "$tmp/o" ]
	t "$tool has a man page that passes mandoc -T lint" sh -c "[ -f man/$tool.1 ] && [ -z \"\$(mandoc -T lint -W warning man/$tool.1 2>&1)\" ]"
	t "$tool: every long option of --help is in the man page" sh -c "
		for o in \$(grep -o -- '--[a-z][a-z-]*' '$tmp/help' | sort -u); do
			grep -q -- \"Fl -\${o#--}\" man/$tool.1 || { echo \"# \$o missing\"; exit 1; }
		done"
done
# -o onto a device writes into it, never renames a file over it (as root,
# renaming over /dev/null replaced the machine's /dev/null with a file).
mkfifo "$tmp/fifo"
( cat "$tmp/fifo" >"$tmp/fromfifo" ) &
to-pprof -o "$tmp/fifo" fixtures/dumps/fk-basic.prof 2>/dev/null
wait
t "-o onto a FIFO writes into it" [ -s "$tmp/fromfifo" ]
t "and the FIFO is still a FIFO" [ -p "$tmp/fifo" ]
to-pprof -o /dev/null fixtures/dumps/fk-basic.prof
t "-o /dev/null leaves a character device" [ -c /dev/null ]
echo "1..$n"
