# SPDX-License-Identifier: MIT
# A workload for tests/hook/python.t: a real program nobody here wrote
# (CPython) allocating through malloc (PYTHONMALLOC=malloc). Commands on
# stdin, one a line: "grow N" keeps N more 64 KiB bytearrays (allocated by
# PyByteArray_Resize), "quit" ends.
import sys

keep = []


def grow(n):
    for _ in range(n):
        keep.append(bytearray(65536))


print("ready", flush=True)
for line in sys.stdin:
    w = line.split()
    if w and w[0] == "grow":
        grow(int(w[1]))
        print("grown", len(keep), flush=True)
    elif w and w[0] == "quit":
        break
print("bye", flush=True)
