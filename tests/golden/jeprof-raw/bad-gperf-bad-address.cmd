jeprof-raw fixtures/bad/dump-gperf-bad-address.prof
