# The temporary view as pprof: go tool pprof reads it (its top function).
heap-lifetimes --sysroot fixtures/sysroot --view temporary -f pprof -o "$T/t.pb.gz" fixtures/life/basic.life
from-pprof "$T/t.pb.gz"
