t=$(mktemp) && to-pprof --time 1700000000000000000 fixtures/good/tiny.prof >$t && TZ=UTC go tool pprof -symbolize=none -top $t 2>&1 | sed -n 1,5p; rm -f $t
