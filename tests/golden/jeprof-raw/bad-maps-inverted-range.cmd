jeprof-raw fixtures/bad/dump-maps-inverted-range.prof
