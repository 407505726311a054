jeprof-raw fixtures/bad/dump-bad-maps-range.prof
