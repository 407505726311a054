jeprof-raw --base fixtures/good/new.prof --keep-negative fixtures/good/old.prof | jeprof-raw --stats --check
