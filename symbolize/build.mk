# SPDX-License-Identifier: MIT
# symbolize/: libfksym.a (address -> module -> function, file:line, inline
# chain, with elfutils) and the `symbolize` tool. See DESIGN.md.
SYM_SRC := span.c modmap.c smod.c elfsym.c symname.c rustv0.c dwfile.c dwunits.c \
           dwinline.c ehframe.c debugfind.c debuginfod.c dinfod_cache.c zsect.c modpool.c symfind.c rootpath.c symcache.c \
           symbolize.c
SYM_OBJ := $(SYM_SRC:%.c=$(B)/%.o)
OBJS    += $(SYM_OBJ) $(B)/symbolize_main.o
LIBS    += $(B)/libfksym.a
PROGS   += $(B)/symbolize

# What a program linking libfksym.a adds to its link line (the hook too):
# libdw/libelf, libiberty (static, position-independent: libiberty-dev) for
# the demanglers, libdeflate and liblzma for zsect.c, threads for modpool.c.
SYM_LDLIBS = $(call pkg,libdw,--libs,libdw-dev) $(call pkg,libelf,--libs,libelf-dev) -liberty \
             $(call pkg,libdeflate,--libs,libdeflate-dev) $(call pkg,liblzma,--libs,liblzma-dev) \
             -pthread
SYM_CFLAGS = $(call pkg,libdw,--cflags,libdw-dev) $(call pkg,libdeflate,--cflags,libdeflate-dev) \
             $(call pkg,liblzma,--cflags,liblzma-dev)
# debuginfod.c: libcurl's header only; the library is dlopen'd (by its
# soname, libcurl4's libcurl.so.4) when a debuginfod server is asked,
# never linked.
$(B)/debuginfod.o: CPPFLAGS += $(call pkg,libcurl,--cflags,libcurl4-openssl-dev)

$(SYM_OBJ) $(B)/symbolize_main.o: CPPFLAGS += $(SYM_CFLAGS)

$(B)/libfksym.a: $(SYM_OBJ)
	$(AR) rcs $@ $^
$(B)/symbolize: $(B)/symbolize_main.o $(B)/libfksym.a $(B)/libfkcli.a $(B)/libfkcore.a
	$(CC) $(LDFLAGS) -o $@ $^ $(SYM_LDLIBS) $(CORE_LDLIBS)

# Unit tests against the library and ELF files (tests/unit/): test_symbolize
# (fk_symbolize), test_symfind (fk_symbolize_find_func), test_rootpath
# (opening the files a dump names), test_symmod (a module's life cycle, the
# two phases of resolving).
SYM_UNITS := test_symbolize test_symfind test_rootpath test_symmod
UNIT += $(SYM_UNITS:%=$(B)/%)
OBJS += $(SYM_UNITS:%=$(B)/%.o)
$(SYM_UNITS:%=$(B)/%.o): CPPFLAGS += $(SYM_CFLAGS) -Itests/unit
$(SYM_UNITS:%=$(B)/%): $(B)/%: $(B)/%.o $(B)/libfksym.a $(B)/libfkcore.a
	$(CC) $(LDFLAGS) -o $@ $^ $(SYM_LDLIBS) $(CORE_LDLIBS)

# libFuzzer target for the symbolized-profile reader.
FUZZ += fuzz_symprof
$(B)/fuzz_symprof: $(B)/fuzz_symprof.o $(B)/libfkcore.a
	$(FUZZ_LINK) $(CORE_LDLIBS)


# libFuzzer target for symbol names and the demanglers.
FUZZ += fuzz_symname
$(B)/fuzz_symname.o: CPPFLAGS += $(SYM_CFLAGS)
$(B)/fuzz_symname: $(B)/fuzz_symname.o $(B)/symname.o $(B)/rustv0.o
	$(FUZZ_LINK) -liberty

# symbolize/ sees core/; its tool also cli/.
$(call layer,$(SYM_OBJ),symbolize core)
$(call layer,$(B)/symbolize_main.o,symbolize cli core)

# test_symcache: the module cache, checked against the uncached path's
# symbolized profile and pprof bytes (so it links the encoder too).
UNIT += $(B)/test_symcache
OBJS += $(B)/test_symcache.o
$(B)/test_symcache.o: CPPFLAGS += $(SYM_CFLAGS) $(ENC_CFLAGS) -Itests/unit -Iencode
$(B)/test_symcache: $(B)/test_symcache.o $(B)/libfksym.a $(B)/libfkenc.a $(B)/libfkcore.a
	$(CC) $(LDFLAGS) -o $@ $^ $(SYM_LDLIBS) $(ENC_LIBS) $(CORE_LDLIBS)

# scrape-bench (bench/scrape.sh): a raw dump parsed, symbolized through
# the module cache and encoded, round after round; not installed.
units: $(B)/scrape-bench
OBJS += $(B)/scrape_bench.o
$(B)/scrape_bench.o: bench/scrape_bench.c | $(B)
	$(CC) $(CPPFLAGS) $(SYM_CFLAGS) $(ENC_CFLAGS) $(INCS) -Iencode $(ALL_CFLAGS) -c -o $@ $<
$(B)/scrape-bench: $(B)/scrape_bench.o $(B)/libfksym.a $(B)/libfkenc.a $(B)/libfkcore.a
	$(CC) $(LDFLAGS) -o $@ $^ $(SYM_LDLIBS) $(ENC_LIBS) $(CORE_LDLIBS)
