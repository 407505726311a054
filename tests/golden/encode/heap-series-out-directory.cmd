# -o naming a directory: one line naming it, exit 1, nothing written (the
# directory stays empty, no temporary file beside it).
top=$PWD
cd "$T"
mkdir out
if heap-series -k -o out "$top/fixtures/good/tiny.prof"; then exit 3; fi 2>/dev/null
ls -A . out
heap-series -k -o out "$top/fixtures/good/tiny.prof"
