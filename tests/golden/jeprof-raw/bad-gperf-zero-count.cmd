jeprof-raw fixtures/bad/dump-gperf-zero-count.prof
