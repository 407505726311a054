jeprof-raw --base fixtures/good/new.prof fixtures/good/old.prof | jeprof-raw --check --stats
