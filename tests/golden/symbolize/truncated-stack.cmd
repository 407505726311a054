# Two stacks cut at jemalloc's 128 frames, with different outermost kept
# frames: each gets one [truncated] root (not posing as two roots), through
# to-folded on the raw dump, symbolize, and a jeprof-raw round trip.
python3 - fixtures/good/tiny.prof "$T/cut.prof" <<'PY'
import sys
src, dst = sys.argv[1], sys.argv[2]
lines = open(src).read().split('\n')
out = []
for l in lines:
    if l.startswith('@ 0x55d0c0a01234 '):
        l = '@ ' + ' '.join(['0x55d0c0a01234'] + ['0x55d0c0a01300'] * 126 + ['0x55d0c0a01310'])
    elif l.startswith('@ 0x55d0c0a01240 '):
        l = '@ ' + ' '.join(['0x55d0c0a01240'] + ['0x55d0c0a01300'] * 126 + ['0x55d0c0a01320'])
    out.append(l)
open(dst, 'w').write('\n'.join(out))
PY
# Runs of one frame shown as "FRAME xN".
runs() { sed -E 's/;(tiny\+0x[0-9a-f]+)(;\1)+/;\1 xN/'; }
to-folded "$T/cut.prof" 2>/dev/null | runs
symbolize "$T/cut.prof" 2>/dev/null | to-folded | runs
jeprof-raw "$T/cut.prof" | grep -c ' 0xffffffffffffffff$'
jeprof-raw "$T/cut.prof" | jeprof-raw --check --stats 2>&1 | grep '^max_depth'
