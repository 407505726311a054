jeprof-raw --check --stats fixtures/good/accum.prof
