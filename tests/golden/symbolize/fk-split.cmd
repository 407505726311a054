symbolize --sysroot fixtures/sysroot fixtures/dumps/fk-split.prof
