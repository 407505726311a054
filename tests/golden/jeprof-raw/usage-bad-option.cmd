jeprof-raw --bogus
