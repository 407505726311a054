# A symbolized profile whose recorded build-id no longer matches the file:
# symbolizing it again refuses the file rather than give wrong names.
symbolize --sysroot fixtures/sysroot fixtures/dumps/fk-inline.prof 2>/dev/null >"$T/sym"
sed 's/^=build-id [0-9a-f]*\t\/opt\/fk\/bin\/fk-inline$/=build-id 0123456789abcdef\t\/opt\/fk\/bin\/fk-inline/' \
	"$T/sym" >"$T/wrong"
symbolize --sysroot fixtures/sysroot "$T/wrong"
