jeprof-raw --base fixtures/good/old.prof fixtures/good/new.prof
