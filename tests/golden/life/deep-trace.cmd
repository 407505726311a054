# A lifetimes record whose trace is deeper than 1024 frames (jemalloc
# 5.3.1's prof_bt_max) keeps its innermost frames and a [truncated] root.
python3 - fixtures/life/basic.life "$T/deep.life" <<'PY'
import re, sys
src, dst = sys.argv[1], sys.argv[2]
t = open(src).read()
m = re.search(r'"alloc_trace":\[([^]]*)\]', t)
a = m.group(1).split(',')
# The program's leaf frame (after 4 of jemalloc's), as a recursion 1100
# calls deep.
deep = a[:4] + [a[4]] * 1100 + a[5:]
t = t[:m.start(1)] + ','.join(deep) + t[m.end(1):]
open(dst, 'w').write(t)
PY
# The frames of the cut stack: how many, the root, the one below, the leaf.
heap-lifetimes --sysroot fixtures/sysroot --format folded "$T/deep.life" |
	awk -F';' '/^\[truncated\];/ { print NF, $1, $2, $NF }'
