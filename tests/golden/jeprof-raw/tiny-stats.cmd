jeprof-raw --check --stats fixtures/good/tiny.prof
