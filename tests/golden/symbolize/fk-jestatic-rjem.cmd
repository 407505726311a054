symbolize --sysroot fixtures/sysroot fixtures/dumps/fk-jestatic-rjem.prof
