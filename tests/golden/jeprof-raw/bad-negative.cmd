jeprof-raw fixtures/bad/dump-negative.prof
