jeprof-raw fixtures/bad/dump-bad-period.prof
