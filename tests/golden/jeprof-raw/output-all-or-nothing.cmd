d=$(mktemp -d); jeprof-raw -o $d/out.prof fixtures/bad/dump-crlf.prof; ls $d; jeprof-raw -o $d/out.prof fixtures/good/tiny.prof && ls $d && cmp $d/out.prof fixtures/good/tiny.prof; rm -rf $d
