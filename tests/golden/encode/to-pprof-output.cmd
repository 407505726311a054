to-pprof -o "$T/out.pb.gz" fixtures/good/tiny.prof
from-pprof "$T/out.pb.gz"
