jeprof-raw fixtures/bad/dump-hex-overflow.prof
