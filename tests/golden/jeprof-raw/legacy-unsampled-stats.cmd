jeprof-raw --check --stats fixtures/good/legacy-unsampled.prof
