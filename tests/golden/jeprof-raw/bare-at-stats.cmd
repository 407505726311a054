jeprof-raw --check --stats fixtures/good/bare-at.prof
