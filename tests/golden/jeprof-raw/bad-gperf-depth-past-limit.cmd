jeprof-raw fixtures/bad/dump-gperf-depth-past-limit.prof
