symbolize --sysroot fixtures/sysroot fixtures/dumps/fk-threads.prof
