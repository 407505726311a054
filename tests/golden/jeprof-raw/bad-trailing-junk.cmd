jeprof-raw fixtures/bad/dump-trailing-junk.prof
