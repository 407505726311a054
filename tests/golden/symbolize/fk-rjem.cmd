symbolize --sysroot fixtures/sysroot fixtures/dumps/fk-rjem.prof
