to-pprof --time soon fixtures/good/tiny.prof
