jeprof-raw fixtures/bad/dump-maps-unterminated.prof
