jeprof-raw fixtures/bad/dump-bad-maps-offset.prof
