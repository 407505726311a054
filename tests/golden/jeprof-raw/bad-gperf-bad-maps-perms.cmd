jeprof-raw fixtures/bad/dump-gperf-bad-maps-perms.prof
