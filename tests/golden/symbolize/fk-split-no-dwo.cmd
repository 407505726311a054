# fk-split without its .dwo: lines only, and one warning naming it.
mkdir -p "$T/root/opt/fk/bin"
cp fixtures/sysroot/opt/fk/bin/fk-split "$T/root/opt/fk/bin/"
symbolize --sysroot "$T/root" fixtures/dumps/fk-split.prof 2>"$T/err" | grep '^=sym.*fk-inline.c'
grep 'split DWARF' "$T/err"
