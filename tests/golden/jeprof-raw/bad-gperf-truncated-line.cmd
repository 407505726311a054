jeprof-raw fixtures/bad/dump-gperf-truncated-line.prof
