jeprof-raw fixtures/bad/dump-depth-past-limit.prof
