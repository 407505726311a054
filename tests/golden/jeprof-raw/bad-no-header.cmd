jeprof-raw fixtures/bad/dump-no-header.prof
