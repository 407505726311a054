jeprof-raw fixtures/bad/dump-gperf-missing-at.prof
