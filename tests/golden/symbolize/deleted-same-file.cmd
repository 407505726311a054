sed 's|/opt/fk/bin/fk-inline$|/opt/fk/bin/fk-inline (deleted)|' fixtures/dumps/fk-inline.prof | symbolize --sysroot fixtures/sysroot 2>/dev/null | grep '^=sym'
