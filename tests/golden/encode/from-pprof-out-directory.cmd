# -o naming a directory: one line naming it, exit 1, nothing written (the
# directory stays empty, no temporary file beside it).
top=$PWD
cd "$T"
mkdir out
if from-pprof -o out "$top/fixtures/pprof/go-cpu.pb.gz"; then exit 3; fi 2>/dev/null
ls -A . out
from-pprof -o out "$top/fixtures/pprof/go-cpu.pb.gz"
