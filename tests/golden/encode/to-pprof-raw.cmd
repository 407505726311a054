t=$(mktemp) && to-pprof fixtures/good/tiny.prof >$t && go tool pprof -symbolize=none -raw $t 2>&1; rm -f $t
