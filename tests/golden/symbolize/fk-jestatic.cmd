symbolize --sysroot fixtures/sysroot fixtures/dumps/fk-jestatic.prof
