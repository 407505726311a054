# Two stacks whose callers lie in a module unloaded before the dump (no
# mapping holds them), at different addresses: one [unmapped] frame, so
# the two stacks merge into one line.
sed -e 's/^@ 0x55d0c0a01234 0x55d0c0a01300 0x7f0000100010$/@ 0x55d0c0a01240 0x7e0000001234/' \
	-e 's/^@ 0x55d0c0a01240 0x55d0c0a01300$/@ 0x55d0c0a01240 0x7e0000005678/' \
	fixtures/good/tiny.prof >"$T/unloaded.prof"
symbolize "$T/unloaded.prof" 2>/dev/null | to-folded
