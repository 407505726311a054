# A rejected input leaves no output file; a good one is written whole.
if jeprof-raw -o "$T/out.prof" fixtures/bad/dump-crlf.prof; then exit 3; fi
ls "$T"
jeprof-raw -o "$T/out.prof" fixtures/good/tiny.prof
ls "$T"
cmp "$T/out.prof" fixtures/good/tiny.prof
