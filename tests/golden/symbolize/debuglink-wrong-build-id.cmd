# The debug file beside the debug folder has one bit of its build-id
# flipped: it must not be used, so fk-stripped's frames keep no names.
python3 -c 'import sys; b=open(sys.argv[1],"rb").read(); i=b.index(bytes.fromhex("5351cf1049250f31641101140300abf05a150996")); b=b[:i]+bytes([b[i]^1])+b[i+1:]; open(sys.argv[2],"wb").write(b)' \
	fixtures/debug/fk-stripped.debug "$T/fk-stripped.debug"
symbolize --sysroot fixtures/sysroot --debug-dir "$T" fixtures/dumps/fk-stripped.prof 2>/dev/null |
	grep "^=sym.*fk-stripped"
