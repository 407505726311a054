sed 's|/opt/fk/bin/fk-inline$|/opt/fk/lib/libfkshared.so (deleted)|' fixtures/dumps/fk-inline.prof | symbolize --sysroot fixtures/sysroot 2>&1 >/dev/null | grep -v /usr/lib/
