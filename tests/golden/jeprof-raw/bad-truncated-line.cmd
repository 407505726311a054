jeprof-raw fixtures/bad/dump-truncated-line.prof
