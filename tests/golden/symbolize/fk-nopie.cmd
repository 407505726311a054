# A stripped position-dependent program (loaded at 0x400000): its frames get
# fallback names at the ELF virtual address of their function's start, the
# address nm, addr2line and objdump use, as its separate symbol table shows.
symbolize --sysroot fixtures/sysroot fixtures/dumps/fk-nopie.prof 2>/dev/null | to-folded
nm fixtures/debug/fk-nopie.debug | grep -E ' T (main|fk_hidden_words|fk_hidden_pages)$' | sort
