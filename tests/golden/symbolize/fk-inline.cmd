symbolize --sysroot fixtures/sysroot fixtures/dumps/fk-inline.prof
