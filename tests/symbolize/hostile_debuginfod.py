# SPDX-License-Identifier: MIT
"""A hostile debuginfod server on loopback, for debuginfod-hostile.t.

usage: python3 hostile_debuginfod.py MODE [FILE]
Prints its port on stdout, then answers every GET /buildid/HEX/debuginfo
after MODE:
  endless     a 200 without a length, then zeros as fast as they are read
  huge        the same, announcing a length of 5 GiB
  gzip        an endless gzip stream of zeros (Content-Encoding: gzip), as
              fast as it is read: 16 MiB for every 16 KiB sent
  gzip-mixed  the same of 1 KiB of random bytes and 20 KiB of zeros, again
              and again: about 19 bytes for every byte sent
  drip        a 200 without a length, then one byte a second, for ever
  trickle     the same, 256 KiB a second in pieces of 32 KiB (well above
              libdebuginfod's floor of 100 KiB per DEBUGINFOD_TIMEOUT=2 s)
  wrong       FILE whole (an ELF file of another build-id), with its length
  missing     a 404 (not a hostile one: the server has no such file)
Each request is logged on stderr as "GET PATH". It serves until killed."""
import http.server
import os
import sys
import time
import zlib

MODE = sys.argv[1]
BODY = open(sys.argv[2], "rb").read() if MODE == "wrong" else b""


def gzip_zeros(out):
    """The gzip header and a first deflate block of 16 MiB of zeros, then
    one block to repeat for ever (it refers back to zeros only)."""
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    out.write(z.compress(bytes(16 << 20)) + z.flush(zlib.Z_SYNC_FLUSH))
    block = z.compress(bytes(16 << 20)) + z.flush(zlib.Z_SYNC_FLUSH)
    while True:
        out.write(block)


def gzip_mixed(out):
    z = zlib.compressobj(6, zlib.DEFLATED, 31)
    while True:
        out.write(z.compress(os.urandom(1 << 10) + bytes(20 << 10)) +
                  z.flush(zlib.Z_SYNC_FLUSH))


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def log_message(self, fmt, *args):
        pass

    def do_GET(self):
        sys.stderr.write("GET %s\n" % self.path)
        sys.stderr.flush()
        if MODE == "missing" or not self.path.startswith("/buildid/"):
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        if MODE == "wrong":
            self.send_header("Content-Length", str(len(BODY)))
        elif MODE == "huge":
            self.send_header("Content-Length", str(5 << 30))
        elif MODE.startswith("gzip"):
            self.send_header("Content-Encoding", "gzip")
        self.end_headers()
        try:
            self.body()
        except OSError:
            pass

    def body(self):
        if MODE == "wrong":
            self.wfile.write(BODY)
        elif MODE in ("endless", "huge"):
            chunk = bytes(1 << 16)
            while True:
                self.wfile.write(chunk)
        elif MODE == "gzip":
            gzip_zeros(self.wfile)
        elif MODE == "gzip-mixed":
            gzip_mixed(self.wfile)
        else:
            piece, pause = (b"\x7f", 1) if MODE == "drip" else (bytes(32 << 10), 0.125)
            while True:
                self.wfile.write(piece)
                self.wfile.flush()
                time.sleep(pause)


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True


srv = Server(("127.0.0.1", 0), Handler)
print(srv.server_address[1], flush=True)
srv.serve_forever()
