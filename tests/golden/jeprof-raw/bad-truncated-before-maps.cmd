jeprof-raw fixtures/bad/dump-truncated-before-maps.prof
