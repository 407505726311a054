cp fixtures/debug/fk-stripped.debug "$T/"
symbolize --sysroot fixtures/sysroot --debug-dir "$T" fixtures/dumps/fk-stripped.prof 2>/dev/null | grep "^=sym"
