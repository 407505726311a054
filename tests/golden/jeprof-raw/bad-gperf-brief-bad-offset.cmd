jeprof-raw fixtures/bad/dump-gperf-brief-bad-offset.prof
