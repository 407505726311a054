jeprof-raw fixtures/good/accum.prof
