symbolize --sysroot fixtures/sysroot --keep-allocator-frames fixtures/dumps/fk-inline.prof
