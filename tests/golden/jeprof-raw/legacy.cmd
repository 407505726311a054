jeprof-raw fixtures/good/legacy.prof
