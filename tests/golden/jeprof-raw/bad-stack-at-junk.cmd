jeprof-raw fixtures/bad/dump-stack-at-junk.prof
