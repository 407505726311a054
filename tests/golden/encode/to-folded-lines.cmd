# A frame a source line: main calls from lines 51, 52 and 55 of fk-inline.c
# are three frames; frames with no line (libc, _start) keep their name.
symbolize --sysroot fixtures/sysroot fixtures/dumps/fk-inline.prof 2>/dev/null | to-folded --lines
