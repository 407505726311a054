jeprof-raw fixtures/good/bare-at.prof
