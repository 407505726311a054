printf '# columns: inuse_space/bytes inuse_objects/count\nmain;a 100 2\nmain;b;c 50 7\nmain;b 0 3\n' | render-flame | sh tests/golden/render/strip-assets
