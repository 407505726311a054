jeprof-raw fixtures/bad/dump-legacy-bad-type.prof
