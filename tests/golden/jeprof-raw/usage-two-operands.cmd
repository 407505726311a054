jeprof-raw fixtures/good/tiny.prof fixtures/good/tiny.prof
