jeprof-raw fixtures/bad/dump-gzipped.prof
