# -o naming a directory: one line naming it, exit 1, nothing written (the
# directory stays empty, no temporary file beside it).
top=$PWD
cd "$T"
mkdir out
if render-flame -o out "$top/fixtures/folded/one.folded"; then exit 3; fi 2>/dev/null
ls -A . out
render-flame -o out "$top/fixtures/folded/one.folded"
