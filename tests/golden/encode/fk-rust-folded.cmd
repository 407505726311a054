symbolize --sysroot fixtures/sysroot fixtures/dumps/fk-rust.prof 2>/dev/null | to-folded
