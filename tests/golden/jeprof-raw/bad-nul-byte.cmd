jeprof-raw fixtures/bad/dump-nul-byte.prof
