to-pprof -h
