# A device that never ends, holding NUL bytes: refused after one read, in
# bounded memory (was: read to twice the 4 GiB limit, 8.4 GB and 7-16 s).
to-pprof /dev/zero
