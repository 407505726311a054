# SPDX-License-Identifier: MIT
# A write/delete load on redis (tests/hook/waste.t, bench/waste.sh): N SETs
# of values of 20 to 400 bytes, then seven in ten of the keys deleted, at
# random (fixed seed), pipelined 5000 commands a batch. Usage: PORT N
import socket, sys, random
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=60)
n = int(sys.argv[2]); rnd = random.Random(1)
def batch(cmds):
    s.sendall(b"".join(cmds) + b"PING\r\n")
    buf = b""
    while not buf.endswith(b"+PONG\r\n"):
        b = s.recv(1 << 20)
        if not b: sys.exit(1)
        buf += b
cmds = []
for i in range(n):
    cmds.append(b"SET key:%d %s\r\n" % (i, b"x" * rnd.choice([20, 50, 100, 200, 400])))
    if len(cmds) == 5000: batch(cmds); cmds = []
if cmds: batch(cmds); cmds = []
for i in range(n):
    if rnd.random() < 0.7:
        cmds.append(b"DEL key:%d\r\n" % i)
    if len(cmds) == 5000: batch(cmds); cmds = []
if cmds: batch(cmds)
