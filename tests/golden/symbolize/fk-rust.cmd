symbolize --sysroot fixtures/sysroot fixtures/dumps/fk-rust.prof
