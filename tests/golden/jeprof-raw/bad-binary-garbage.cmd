jeprof-raw fixtures/bad/dump-binary-garbage.prof
