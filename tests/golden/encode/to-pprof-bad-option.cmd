to-pprof --bogus
