jeprof-raw fixtures/bad/dump-maps-without-marker.prof
