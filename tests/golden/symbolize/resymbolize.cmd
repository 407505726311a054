symbolize --sysroot fixtures/sysroot fixtures/dumps/fk-inline.prof 2>/dev/null | symbolize --sysroot fixtures/sysroot 2>/dev/null | grep '^=sym'
