symbolize --sysroot fixtures/sysroot fixtures/dumps/fk-basic.prof
