jeprof-raw fixtures/bad/dump-gperf-brief-junk.prof
