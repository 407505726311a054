jeprof-raw fixtures/bad/dump-only-header.prof
