jeprof-raw fixtures/bad/dump-zero-mismatch.prof
