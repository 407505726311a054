t=$(mktemp) && to-pprof fixtures/good/accum.prof >$t && go tool pprof -symbolize=none -raw $t 2>&1; rm -f $t
