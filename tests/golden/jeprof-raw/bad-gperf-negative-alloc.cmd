jeprof-raw fixtures/bad/dump-gperf-negative-alloc.prof
