jeprof-raw fixtures/good/legacy-unsampled.prof
