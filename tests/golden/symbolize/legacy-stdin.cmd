symbolize --sysroot fixtures/sysroot - < fixtures/dumps/fk-basic-legacy.prof
