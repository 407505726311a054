# jemalloc 5.3.1's prof_bt_max makes stacks of any depth. A stack of 1500
# frames keeps its 1024 innermost and one [truncated] root; beside it, a
# stack of exactly 128 frames is whole (the dump was not cut at 5.3.0's
# 128), so it gets no [truncated] root. The cut dump reads back the same.
python3 - fixtures/good/tiny.prof "$T/deep.prof" <<'PY'
import sys
src, dst = sys.argv[1], sys.argv[2]
out = []
for l in open(src).read().split('\n'):
    if l.startswith('@ 0x55d0c0a01234 '):
        l = '@ ' + ' '.join(['0x55d0c0a01234'] + ['0x55d0c0a01300'] * 1498 + ['0x55d0c0a01310'])
    elif l.startswith('@ 0x55d0c0a01240 '):
        l = '@ ' + ' '.join(['0x55d0c0a01240'] + ['0x55d0c0a01300'] * 126 + ['0x55d0c0a01320'])
    out.append(l)
open(dst, 'w').write('\n'.join(out))
PY
# Runs of one frame shown as "FRAME xN" with their count.
runs() { perl -pe 's/;(tiny\+0x1300)((?:;\1)+)/";$1 x".(1 + ($2 =~ tr|;||))/e'; }
jeprof-raw --check --stats "$T/deep.prof" 2>&1 | grep '^max_depth'
to-folded "$T/deep.prof" 2>/dev/null | runs
jeprof-raw "$T/deep.prof" >"$T/cut.prof"
awk '/^@/ { print NF - 1, $NF }' "$T/cut.prof"
jeprof-raw "$T/cut.prof" | cmp - "$T/cut.prof" && echo same
