jeprof-raw fixtures/good/tiny.prof
