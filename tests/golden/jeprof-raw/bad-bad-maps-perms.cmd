jeprof-raw fixtures/bad/dump-bad-maps-perms.prof
