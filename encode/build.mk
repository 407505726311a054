# SPDX-License-Identifier: MIT
# encode/: libfkenc.a (pprof encoder and decoder, folded writer) and the
# programs to-pprof, from-pprof, to-folded. See DESIGN.md.
#
# profile.proto is compiled by protoc-c into $(B)/profile.pb-c.[ch] at build
# time; every object of this folder includes the generated header.
ENC_SRC := profile.pb-c.c gzbuf.c foldacc.c addrname.c round.c \
           pprof_dec.c pprof_folded.c pprof_enc.c pprof_gzip.c pprof_limit.c folded_enc.c series_enc.c \
           life_enc.c json_enc.c waste_enc.c \
           legacy.c legacy_build.c legacy_text.c legacy_heap.c legacy_cpu.c \
           legacy_contention.c legacy_thread.c legacy_count.c legacy_java.c
ENC_OBJ := $(ENC_SRC:%.c=$(B)/%.o)
ENC_MAINS := to_pprof_main from_pprof_main to_folded_main heap_series_main heap_lifetimes_main \
             heap_waste_main
OBJS    += $(ENC_OBJ) $(ENC_MAINS:%=$(B)/%.o) $(B)/test_pprof.o $(B)/test_foldenc.o
LIBS    += $(B)/libfkenc.a
PROGS   += $(B)/to-pprof $(B)/from-pprof $(B)/to-folded $(B)/heap-series $(B)/heap-lifetimes \
           $(B)/heap-waste
UNIT    += $(B)/test_pprof $(B)/test_foldenc
FUZZ    += fuzz_pprof fuzz_legacy

ENC_CFLAGS = $(call pkg,libprotobuf-c,--cflags,libprotobuf-c-dev) $(call pkg,zlib,--cflags,zlib1g-dev)
ENC_LIBS   = $(call pkg,libprotobuf-c,--libs,libprotobuf-c-dev) $(call pkg,zlib,--libs,zlib1g-dev) -lm

$(B)/profile.pb-c.c $(B)/profile.pb-c.h &: encode/profile.proto | $(B)
	protoc-c --c_out=$(B) --proto_path=encode profile.proto

$(ENC_OBJ) $(ENC_MAINS:%=$(B)/%.o) $(B)/test_pprof.o $(B)/test_foldenc.o $(B)/fuzz_pprof.o $(B)/fuzz_legacy.o: \
	$(B)/profile.pb-c.h
$(ENC_OBJ) $(ENC_MAINS:%=$(B)/%.o) $(B)/test_pprof.o $(B)/test_foldenc.o $(B)/fuzz_pprof.o $(B)/fuzz_legacy.o: \
	CFLAGS += $(ENC_CFLAGS)

$(B)/libfkenc.a: $(ENC_OBJ)
	$(AR) rcs $@ $^

$(B)/to-pprof: $(B)/to_pprof_main.o $(B)/libfkenc.a $(B)/libfkcli.a $(B)/libfkcore.a
	$(CC) $(LDFLAGS) -o $@ $^ $(ENC_LIBS)
$(B)/from-pprof: $(B)/from_pprof_main.o $(B)/libfkenc.a $(B)/libfkcli.a $(B)/libfkcore.a
	$(CC) $(LDFLAGS) -o $@ $^ $(ENC_LIBS)
$(B)/to-folded: $(B)/to_folded_main.o $(B)/libfkenc.a $(B)/libfkcli.a $(B)/libfkcore.a
	$(CC) $(LDFLAGS) -o $@ $^ $(ENC_LIBS)

# heap-series symbolizes each dump, so it links symbolize/'s library too.
$(B)/heap_series_main.o: CPPFLAGS += $(SYM_CFLAGS)
$(B)/heap-series: $(B)/heap_series_main.o $(B)/libfkenc.a $(B)/libfksym.a $(B)/libfkcli.a $(B)/libfkcore.a
	$(CC) $(LDFLAGS) -o $@ $^ $(ENC_LIBS) $(SYM_LDLIBS) $(CORE_LDLIBS)

# heap-lifetimes symbolizes a view: symbolize/'s library too.
$(B)/heap_lifetimes_main.o: CPPFLAGS += $(SYM_CFLAGS)
$(B)/heap-lifetimes: $(B)/heap_lifetimes_main.o $(B)/libfkenc.a $(B)/libfksym.a $(B)/libfkcli.a \
		$(B)/libfkcore.a
	$(CC) $(LDFLAGS) -o $@ $^ $(ENC_LIBS) $(SYM_LDLIBS) $(CORE_LDLIBS)

# heap-waste symbolizes the dump: symbolize/'s library too.
$(B)/heap_waste_main.o: CPPFLAGS += $(SYM_CFLAGS)
$(B)/heap-waste: $(B)/heap_waste_main.o $(B)/libfkenc.a $(B)/libfksym.a $(B)/libfkcli.a \
		$(B)/libfkcore.a
	$(CC) $(LDFLAGS) -o $@ $^ $(ENC_LIBS) $(SYM_LDLIBS) $(CORE_LDLIBS)

$(B)/test_pprof: $(B)/test_pprof.o $(B)/libfkenc.a $(B)/libfkcore.a
	$(CC) $(LDFLAGS) -o $@ $^ $(ENC_LIBS)
$(B)/test_foldenc: $(B)/test_foldenc.o $(B)/libfkenc.a $(B)/libfkcore.a
	$(CC) $(LDFLAGS) -o $@ $^ $(ENC_LIBS)

$(B)/fuzz_pprof: $(B)/fuzz_pprof.o $(B)/libfkenc.a $(B)/libfkcore.a
	$(CC) $(LDFLAGS) -fsanitize=fuzzer -o $@ $^ $(ENC_LIBS)
$(B)/fuzz_legacy: $(B)/fuzz_legacy.o $(B)/libfkenc.a $(B)/libfkcore.a
	$(CC) $(LDFLAGS) -fsanitize=fuzzer -o $@ $^ $(ENC_LIBS)

# encode/ sees core/; its tools also cli/.
$(call layer,$(ENC_OBJ),encode core)
$(call layer,$(B)/to_pprof_main.o $(B)/from_pprof_main.o $(B)/to_folded_main.o,encode cli core)
# heap-series is a tool over two libraries: it sees symbolize/ as well.
$(call layer,$(B)/heap_series_main.o,encode symbolize cli core)
$(call layer,$(B)/heap_lifetimes_main.o,encode symbolize cli core)
$(call layer,$(B)/heap_waste_main.o,encode symbolize cli core)
