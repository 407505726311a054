jeprof-raw --check -o x fixtures/good/tiny.prof
