jeprof-raw fixtures/bad/dump-bad-maps-inode.prof
