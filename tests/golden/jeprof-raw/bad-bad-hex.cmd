jeprof-raw fixtures/bad/dump-bad-hex.prof
