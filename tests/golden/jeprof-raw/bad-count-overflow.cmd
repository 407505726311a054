jeprof-raw fixtures/bad/dump-count-overflow.prof
