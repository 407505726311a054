jeprof-raw fixtures/bad/dump-bad-thread-id.prof
