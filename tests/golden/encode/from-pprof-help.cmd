from-pprof --help
