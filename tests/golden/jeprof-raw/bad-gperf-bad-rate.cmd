jeprof-raw fixtures/bad/dump-gperf-bad-rate.prof
