jeprof-raw --keep-negative fixtures/good/tiny.prof
