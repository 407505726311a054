jeprof-raw --check --stats fixtures/good/legacy.prof
