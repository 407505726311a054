symbolize --sysroot fixtures/sysroot fixtures/dumps/fk-basic.prof 2>/dev/null | to-folded
