symbolize --sysroot fixtures/sysroot fixtures/bad/dump-total-overflow.prof
