jeprof-raw fixtures/bad/dump-thread-before-total.prof
