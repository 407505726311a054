sed '0,/^@ /s/^@ \(.*\)$/@ \1 0x55555555a011 0x7ffff7fc8123 0x10/' fixtures/dumps/fk-basic.prof | symbolize --sysroot fixtures/sysroot 2>/dev/null | grep -e vdso -e unmapped -e anon
