jeprof-raw -o /nonexistent-dir/out.prof fixtures/good/tiny.prof
