jeprof-raw fixtures/bad/dump-legacy-missing-at.prof
