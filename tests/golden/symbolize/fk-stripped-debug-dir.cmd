symbolize --sysroot fixtures/sysroot --debug-dir fixtures/debug fixtures/dumps/fk-stripped.prof
