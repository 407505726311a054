from-pprof a b
