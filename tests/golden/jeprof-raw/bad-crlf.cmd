jeprof-raw fixtures/bad/dump-crlf.prof
