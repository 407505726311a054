t=$(mktemp) && to-pprof --threads fixtures/dumps/fk-threads.prof >$t && go tool pprof -symbolize=none -raw $t 2>&1 | sed -n "/^Samples/,/^Locations/p"; rm -f $t
