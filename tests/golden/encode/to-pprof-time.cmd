to-pprof --time 1700000000000000000 fixtures/good/tiny.prof >"$T/p.pb.gz"
TZ=UTC go tool pprof -symbolize=none -top "$T/p.pb.gz" 2>&1 | sed -n 1,5p
