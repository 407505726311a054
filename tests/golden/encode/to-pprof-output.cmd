to-pprof -o /tmp/fk-golden-to-pprof.pb.gz fixtures/good/tiny.prof && from-pprof /tmp/fk-golden-to-pprof.pb.gz; rm -f /tmp/fk-golden-to-pprof.pb.gz
