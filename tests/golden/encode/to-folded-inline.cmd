symbolize --sysroot fixtures/sysroot fixtures/dumps/fk-inline.prof 2>/dev/null | to-folded
