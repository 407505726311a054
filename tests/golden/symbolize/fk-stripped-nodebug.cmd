symbolize --sysroot fixtures/sysroot fixtures/dumps/fk-stripped.prof
