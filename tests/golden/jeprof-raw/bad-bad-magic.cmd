jeprof-raw fixtures/bad/dump-bad-magic.prof
