#!/bin/sh
# SPDX-License-Identifier: MIT
# A file the process mapped whole besides the loader's segments (libelf
# maps the ELF files it reads "rw-p" from offset 0, so every dump taken
# while the hook symbolizes shows its libraries twice) is no view of a
# segment: symbolize must read the module as without it. Before the fix
# the module was refused ("the file's segments do not match").
. "$(dirname "$0")/../lib/tap.sh"
T=$tmp
for d in fk-basic fk-inline fk-rust; do
	f=fixtures/dumps/$d.prof
	bin=$(awk '/^MAPPED_LIBRARIES:/ { m = 1; next } m && $2 ~ /x/ { print $6; exit }' "$f")
	awk -v bin="$bin" '/^MAPPED_LIBRARIES:/ { print; print "7e0000000000-7e0000400000 rw-p 00000000 fe:00 1 " bin; print "7e0000800000-7e0000c00000 r--p 00000000 fe:00 1 " bin; next } { print }' "$f" >"$T/x.prof"
	"$B/symbolize" --sysroot fixtures/sysroot "$f" 2>"$T/e1" | grep -v '^[0-9a-f]*-[0-9a-f]* ' >"$T/a"
	"$B/symbolize" --sysroot fixtures/sysroot "$T/x.prof" 2>"$T/e2" | grep -v '^[0-9a-f]*-[0-9a-f]* ' >"$T/b"
	if cmp -s "$T/a" "$T/b"; then ok "$d: a whole-file mapping of $bin changes no name"; else nok "$d: names differ with a whole-file mapping of $bin"; fi
	if cmp -s "$T/e1" "$T/e2"; then ok "$d: and no new warning"; else nok "$d: new warnings: $(diff "$T/e1" "$T/e2" | head -3 | tr '\n' ' ')"; fi
done
echo "1..$n"
