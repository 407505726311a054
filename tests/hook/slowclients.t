#!/bin/sh
# SPDX-License-Identifier: MIT
# Slow clients never take the hook's server: 100 connections sending their
# request a byte a second (reconnecting whenever they are cut) for
# FK_SLOW_SECONDS (20 by default; .ci/run runs the issue's 60) while a
# normal client asks for the settings. libflamekit-hook(3), LIMITS: a
# request must arrive whole within 10 seconds.
. "$(dirname "$0")/hooklib.sh"
secs=${FK_SLOW_SECONDS:-20}

port=$(free_port); U=http://127.0.0.1:$port
start_host 127.0.0.1:$port
check "host serves" wait_http "$U/"
cat >"$T/drip.py" <<'EOF'
import select, socket, sys, time
port, n, secs = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
head = b"GET /internal/heap/settings HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "
def conn():
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.setblocking(False)
    return [s, 0]
socks = [conn() for _ in range(n)]
end = time.time() + secs
cuts = 0
print("dripping", flush=True)
while time.time() < end:
    for c in socks:
        s = c[0]
        try:
            s.send(head[c[1]:c[1] + 1] if c[1] < len(head) else b"x")
            c[1] += 1
        except (BlockingIOError, InterruptedError):
            pass
        except OSError:
            s.close(); c[:] = conn(); cuts += 1
            continue
        r, _, _ = select.select([s], [], [], 0)
        if r:
            try:
                if not s.recv(4096):
                    raise OSError
            except (BlockingIOError, InterruptedError):
                pass
            except OSError:
                s.close(); c[:] = conn(); cuts += 1
    time.sleep(1)
print("cut %d" % cuts, flush=True)
EOF
python3 "$T/drip.py" "$port" 100 "$secs" >"$T/drip.out" 2>&1 &
dp=$!; PIDS="$PIDS $dp"
i=0; while ! grep -q dripping "$T/drip.out" && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
sleep 2
start=$(date +%s)
c=$(curl -s -o /dev/null -w '%{http_code}' --max-time $((secs - 3)) "$U/internal/heap/settings" 2>/dev/null)
took=$(( $(date +%s) - start ))
is "a normal client is served while 100 slow ones drip (in ${took} s)" "$c" 200
wait "$dp"
like "the slow clients were cut and came back" "$(cat "$T/drip.out")" '^cut [1-9]'
c=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$U/internal/heap/settings" 2>/dev/null)
is "once they are gone the server answers at once" "$c" 200
check "host exits cleanly" stop_host
check "hook printed nothing on stderr" [ ! -s "$T/host.err" ]
