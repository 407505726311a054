to-pprof fixtures/bad/dump-bad-magic.prof
