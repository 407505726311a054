jeprof-raw fixtures/bad/dump-thread-twice.prof
