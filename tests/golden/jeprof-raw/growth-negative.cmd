jeprof-raw --base fixtures/good/new.prof --keep-negative --stats fixtures/good/old.prof
