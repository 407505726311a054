jeprof-raw fixtures/bad/dump-unexpected-line.prof
