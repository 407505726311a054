jeprof-raw fixtures/bad/dump-long-line.prof
