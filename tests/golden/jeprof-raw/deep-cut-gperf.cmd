# gperftools' form cuts a stack past 1024 frames as jemalloc's does: its
# innermost frames and one [truncated] root, never a refused profile.
python3 - fixtures/dumps/fk-basic-gperftools.prof "$T/deep.prof" <<'PY'
import sys
src, dst = sys.argv[1], sys.argv[2]
lines = open(src).read().split('\n')
for i, l in enumerate(lines):
    if ' @ 0x' in l:
        head, addrs = l.split(' @ ', 1)
        a = addrs.split()
        lines[i] = head + ' @ ' + ' '.join([a[0]] + [a[1]] * 1200 + a[2:])
        break
open(dst, 'w').write('\n'.join(lines))
PY
jeprof-raw --check --stats "$T/deep.prof" 2>&1 | grep '^max_depth'
to-folded "$T/deep.prof" 2>/dev/null | grep -c '^\[truncated\];'
