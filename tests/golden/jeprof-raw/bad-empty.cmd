jeprof-raw fixtures/bad/dump-empty.prof
