jeprof-raw fixtures/bad/dump-missing-bracket.prof
