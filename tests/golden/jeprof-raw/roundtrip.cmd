jeprof-raw fixtures/good/tiny.prof | jeprof-raw | cmp - fixtures/good/tiny.prof; jeprof-raw fixtures/good/tiny.prof | jeprof-raw | jeprof-raw --check --stats
