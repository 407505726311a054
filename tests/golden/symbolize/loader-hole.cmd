# The loader's one-page PROT_NONE hole between two segments of a library
# (libLLVM-14.so.1) must not make the library unusable.
sed '/^7ffff7fbf000-7ffff7fc0000 rw-p .*libfkshared.so$/a 7ffff7fc0000-7ffff7fc1000 ---p 00002000 fe:00 1132322                    /opt/fk/lib/libfkshared.so' \
	fixtures/dumps/fk-basic.prof >"$T/hole.prof"
symbolize --sysroot fixtures/sysroot "$T/hole.prof" | grep '^=sym 0x00007ffff7fb'
