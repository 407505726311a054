jeprof-raw fixtures/bad/dump-gperf-brief-bad-range.prof
