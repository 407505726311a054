# SPDX-License-Identifier: MIT
# capture/: libflamekit-hook.so (see DESIGN.md, "The hook", and
# man/libflamekit-hook.3, man/flamekit-hook-reference.7) and fetch.o, the
# hook client jeprof-raw links.
# jeprof-raw itself is built by capture/jeprof_raw.mk.
# The hook is two libraries (hook_private.h, "the serving half"): the resident
# half, which a host maps while idle and which needs nothing but libc, and
# the serving half, which it loads on first use, with every library of the
# pipeline linked in.
HOOK_SRC := hook_main.c hook_loop.c hook_jemalloc.c hook_find.c hook_elf.c hook_state.c \
            hook_addr.c hook_signal.c hook_group.c hook_proc.c hook_log.c hook_arena.c \
            hook_sampling.c hook_unwind.c hook_env.c hook_serve.c hook_atexit.c hook_recent.c hook_answer.c \
            hook_sockets.c hook_holder.c
SERVE_SRC := serve_ops.c serve_http.c serve_defer.c serve_guard.c serve_peer.c serve_routes.c \
             serve_settings.c serve_params.c serve_reply.c \
             serve_origin.c serve_profile.c serve_memo.c serve_timeline.c serve_snap.c \
             serve_procs.c serve_recent.c serve_stream.c serve_waste.c serve_ask.c serve_handle.c
HOOK_OBJ  := $(HOOK_SRC:%.c=$(B)/%.o)
SERVE_OBJ := $(SERVE_SRC:%.c=$(B)/%.o)
# The library is libflamekit-hook.so.0 (its soname; the ABI its symbol
# version FLAMEKIT_HOOK_0 names), with the development link
# libflamekit-hook.so beside it, which LD_PRELOAD and -l use; the serving
# half is libflamekit-hook-serve.so.0, in the same folder.
HOOK_SONAME := libflamekit-hook.so.0
HOOK_REAL := $(B)/$(HOOK_SONAME)
HOOK_SO  := $(B)/libflamekit-hook.so
SERVE_SONAME := libflamekit-hook-serve.so.0
SERVE_SO := $(B)/$(SERVE_SONAME)
OBJS     += $(HOOK_OBJ) $(SERVE_OBJ) $(B)/fetch.o
LIBS     += $(HOOK_SO) $(SERVE_SO) $(B)/flamekit-hook.pc

# The serving half runs the same library code as the tools, linked in
# statically (every object is built -fPIC); it exports only its table
# (capture/serve.map) and reaches the resident half through that one's
# private symbol version (capture/hook.map), which -z defs checks here.
SERVE_ALIBS  = $(B)/libfkrender.a $(B)/libfkenc.a $(B)/libfksym.a $(B)/libfkcore.a
HOOK_CFLAGS = $(call pkg,libmicrohttpd,--cflags,libmicrohttpd-dev)
# zlib is linked in statically, its symbols local to the library: a host
# that exports a zlib of its own (varnishd exports its patched copy's
# deflate and inflate, not deflateBound) would otherwise get the hook's
# calls, and every pprof failed with "cannot start zlib compression".
HOOK_ZLIB   = -l:libz.a
SERVE_LDLIBS = $(call pkg,libmicrohttpd,--libs,libmicrohttpd-dev) $(XML_LIBS) \
               $(HOOK_ZLIB) $(ENC_LIBS) $(SYM_LDLIBS) -ldl -lpthread -lm

$(HOOK_OBJ) $(SERVE_OBJ): OBJ_CFLAGS += $(HOOK_CFLAGS)
# The resident half's symbols are visible, for its version script to
# choose: the API, and the private version the serving half links to.
$(HOOK_OBJ): OBJ_CFLAGS += -fvisibility=default
# The backtrace takes its caller's registers from its own frame.
$(B)/hook_unwind.o: OBJ_CFLAGS += -fno-omit-frame-pointer

$(HOOK_REAL): $(HOOK_OBJ) $(B)/libfkcore.a capture/hook.map
	$(CC) $(LDFLAGS) -shared -Wl,-soname,$(HOOK_SONAME) \
		-Wl,--version-script=capture/hook.map -Wl,-z,defs -Wl,-z,now \
		-o $@ $(HOOK_OBJ) $(B)/libfkcore.a -ldl -lpthread
$(HOOK_SO): $(HOOK_REAL)
	ln -sf $(HOOK_SONAME) $@
$(SERVE_SO): $(SERVE_OBJ) $(SERVE_ALIBS) $(HOOK_REAL) capture/serve.map
	$(CC) $(LDFLAGS) -shared -Wl,-soname,$(SERVE_SONAME) \
		-Wl,--version-script=capture/serve.map -Wl,-z,defs -Wl,-z,now \
		-o $@ $(SERVE_OBJ) $(SERVE_ALIBS) $(HOOK_REAL) $(SERVE_LDLIBS)

$(B)/flamekit-hook.pc: capture/flamekit-hook.pc.in Makefile | $(B)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
		-e 's|@VERSION@|$(VERSION)|' $< > $@

# ---- the hook as one static archive, both halves (rust/flamekit) ----
# A program that links the hook in (the Rust crate's build.rs makes this
# target) ships no library of ours: $(B)/libflamekit-hook.a holds the
# resident half with hook_serve.c built to reach the serving half's table
# directly (FK_SERVE_STATIC), the serving half and the pipeline's
# libraries; the program links the system libraries HOOK_STATIC_LIBS names
# (printed by `make hook-static-libs`), zlib among them dynamically.
HOOK_STATIC := $(B)/libflamekit-hook.a
HOOK_STATIC_OBJ := $(filter-out $(B)/hook_serve.o,$(HOOK_OBJ)) $(B)/hook_serve_static.o $(SERVE_OBJ)
HOOK_STATIC_LIBS = $(filter-out $(HOOK_ZLIB),$(SERVE_LDLIBS)) $(call pkg,zlib,--libs,zlib1g-dev)
$(B)/hook_serve_static.o: capture/hook_serve.c | $(B)
	$(CC) $(CPPFLAGS) $(INCS) $(ALL_CFLAGS) $(HOOK_CFLAGS) -fvisibility=default \
		-DFK_SERVE_STATIC -c -o $@ $<
$(call layer,$(B)/hook_serve_static.o,capture core)
OBJS += $(B)/hook_serve_static.o
$(HOOK_STATIC): $(HOOK_STATIC_OBJ) $(SERVE_ALIBS)
	rm -f $@ $@.tmp
	$(AR) rcs $@.tmp $(HOOK_STATIC_OBJ)
	# The libraries' members go in as they are (file names are unique).
	for a in $(SERVE_ALIBS); do $(AR) t $$a | sed 's|^|$(B)/|' | xargs $(AR) rs $@.tmp; done
	mv $@.tmp $@
.PHONY: hook-static hook-static-libs
hook-static: $(HOOK_STATIC)
hook-static-libs:
	@echo $(HOOK_STATIC_LIBS)

# ---- jeprof-raw: its program rule lives in capture/jeprof_raw.mk ----

# ---- tests (tests/hook/*.t use these; tests/unit/test_hook_*.c) ----
# Test-only programs, built from tests/hook/*.c into $(B):
#   hook-alloc-prog  allocates on command in named functions (run preloaded)
#   hook-api-prog    links libflamekit-hook.so and drives its C API
#   hook-bench-prog  the workloads of bench/hook.sh (from bench/hook_bench.c)
#   series-prog      grows a cache, spikes and frees (heap over time)
#   hook-fork-prog   forks often, keeps workers, daemonizes, closes every
#                    descriptor or execs itself (the shapes of services)
#   conf-own-prog    hook-alloc-prog with a malloc_conf of its own, linked
#                    with libjemalloc.so.2 (knot-resolver's kresd)
#   fk-jestatic-stripped, -keep, .debug  the static-jemalloc fixture
#                    stripped of .symtab, stripped but for mallctl, and its
#                    debug file (tests/hook/conf.t)
#   fk-rjem-hook-stripped  the fixture that hands _rjem_mallctl over, stripped
#   unwind-bench-prog  the workloads of bench/unwind.sh (bench/unwind_bench.c)
#   hook-jit-prog    allocates from generated code without unwind information
#                    (tests/hook/jit.t)
HOOK_TPROGS := $(B)/hook-alloc-prog $(B)/hook-api-prog $(B)/hook-bench-prog $(B)/series-prog \
               $(B)/hook-fork-prog $(B)/conf-own-prog $(B)/fk-jestatic-stripped $(B)/fk-jestatic-keep \
               $(B)/fk-jestatic.debug $(B)/fk-rjem-hook-stripped $(B)/hook-jit-prog \
               $(B)/unwind-bench-prog $(B)/peer-bench
#   life-prog        allocates memory that lives a known time: freed at
#                    once, after 2 s, never (tests/hook/lifetimes.t)
#   dl-prog          loads, uses and unloads libfk-dl-alpha.so and
#                    libfk-dl-beta.so (one source, two function names)
HOOK_TPROGS += $(B)/life-prog $(B)/forkdump-prog
#   waste-prog       fragments the 64-byte class beside a site that fills
#                    its slabs (tests/hook/waste.t, fixtures/waste/)
HOOK_TPROGS += $(B)/waste-prog
HOOK_TPROGS += $(B)/dl-prog $(B)/libfk-dl-alpha.so $(B)/libfk-dl-beta.so
#   handle-prog      mounts the routes through fk_hook_handle (tests/hook/handle.t)
HOOK_TPROGS += $(B)/handle-prog
OBJS += $(B)/handle_prog.o
UNIT     += $(B)/test_hook_addr $(B)/test_hook_fetch $(B)/test_hook_peer $(B)/test_hook_sampling \
            $(B)/test_hook_params
# test_hook_env: the settings' table; --print-settings for tests/docs/hook-env.t
UNIT     += $(B)/test_hook_env
OBJS     += $(B)/test_hook_env.o
OBJS     += $(B)/conf_own.o $(B)/hook_alloc_prog.o $(B)/hook_api_prog.o $(B)/series_prog.o $(B)/hook_bench.o $(B)/peer_bench.o $(B)/forkdump_prog.o $(B)/test_hook_addr.o \
            $(B)/test_hook_fetch.o $(B)/test_hook_peer.o $(B)/test_hook_sampling.o $(B)/test_hook_params.o $(B)/fork_prog.o $(B)/jit_prog.o $(B)/unwind_bench.o
units: $(HOOK_TPROGS)

# Frame pointers and no inlining, so the allocation sites the tests look
# for stay distinct frames.
$(B)/hook_alloc_prog.o $(B)/hook_api_prog.o $(B)/forkdump_prog.o: $(B)/%.o: tests/hook/%.c | $(B)
	$(CC) $(CPPFLAGS) $(INCS) $(ALL_CFLAGS) -O1 -fno-inline -fno-omit-frame-pointer -c -o $@ $<
# series-prog runs under a preloaded jemalloc also in a sanitizer build
# (heap-series.t makes its dumps there), so it is built without one: a
# fixture, not code under test.
NOSAN = $(filter-out -fsanitize=% -fno-sanitize-recover=%,$(1))
$(B)/series_prog.o: tests/hook/series_prog.c | $(B)
	$(CC) $(CPPFLAGS) $(INCS) $(call NOSAN,$(ALL_CFLAGS)) -O1 -fno-inline -fno-omit-frame-pointer -c -o $@ $<
# hook-fork-prog runs preloaded with the hook and jemalloc, as a service
# does: a fixture, built without a sanitizer.
$(B)/fork_prog.o: tests/hook/fork_prog.c | $(B)
	$(CC) $(CPPFLAGS) $(INCS) $(call NOSAN,$(ALL_CFLAGS)) -O1 -fno-inline -fno-omit-frame-pointer \
		-fno-optimize-sibling-calls -c -o $@ $<
$(B)/hook-fork-prog: $(B)/fork_prog.o
	$(CC) $(call NOSAN,$(LDFLAGS)) -o $@ $^

$(B)/hook_bench.o: bench/hook_bench.c | $(B)
	$(CC) $(CPPFLAGS) $(INCS) $(ALL_CFLAGS) -O1 -fno-inline -fno-omit-frame-pointer \
		-fno-optimize-sibling-calls -c -o $@ $<
$(B)/unwind_bench.o: bench/unwind_bench.c | $(B)
	$(CC) $(CPPFLAGS) $(INCS) $(call NOSAN,$(ALL_CFLAGS)) -O1 -fno-inline -fno-omit-frame-pointer \
		-fno-optimize-sibling-calls -c -o $@ $<
$(B)/unwind-bench-prog: $(B)/unwind_bench.o
	$(CC) $(call NOSAN,$(LDFLAGS)) -o $@ $^ -ldl

$(B)/hook-bench-prog: $(B)/hook_bench.o
	$(CC) $(LDFLAGS) -o $@ $^
# peer-bench: what finding a connection's user costs (bench/peer.sh).
$(B)/peer_bench.o: bench/peer_bench.c | $(B)
	$(CC) $(CPPFLAGS) $(INCS) $(HOOK_CFLAGS) $(ALL_CFLAGS) -c -o $@ $<
$(B)/peer-bench: $(B)/peer_bench.o $(B)/serve_peer.o $(B)/hook_proc.o $(B)/libfkcore.a
	$(CC) $(LDFLAGS) -o $@ $^ -lm

$(B)/dl-prog: tests/hook/dl_prog.c | $(B)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -O1 -fno-omit-frame-pointer $(LDFLAGS) -o $@ $< -ldl
$(B)/libfk-dl-alpha.so $(B)/libfk-dl-beta.so: $(B)/libfk-dl-%.so: tests/hook/dl_lib.c | $(B)
	$(CC) $(CPPFLAGS) $(call NOSAN,$(ALL_CFLAGS)) -O1 -fno-inline -fno-omit-frame-pointer \
		-DFKDL_FUNC=dl_$*_alloc -shared $(call NOSAN,$(LDFLAGS)) -o $@ $<
# hook-jit-prog runs preloaded, its generated code on a stack of its own:
# a fixture, built without a sanitizer.
$(B)/jit_prog.o: tests/hook/jit_prog.c | $(B)
	$(CC) $(CPPFLAGS) $(INCS) $(call NOSAN,$(ALL_CFLAGS)) -O1 -c -o $@ $<
$(B)/hook-jit-prog: $(B)/jit_prog.o
	$(CC) $(call NOSAN,$(LDFLAGS)) -o $@ $^

# life-prog runs preloaded: a fixture, built without a sanitizer.
$(B)/life_prog.o: tests/hook/life_prog.c | $(B)
	$(CC) $(CPPFLAGS) $(INCS) $(call NOSAN,$(ALL_CFLAGS)) -O1 -fno-inline -fno-omit-frame-pointer \
		-fno-optimize-sibling-calls -c -o $@ $<
$(B)/life-prog: $(B)/life_prog.o
	$(CC) $(call NOSAN,$(LDFLAGS)) -o $@ $^ -lpthread
OBJS += $(B)/life_prog.o

# waste-prog runs preloaded too: a fixture, built without a sanitizer.
$(B)/waste_prog.o: tests/hook/waste_prog.c | $(B)
	$(CC) $(CPPFLAGS) $(INCS) $(call NOSAN,$(ALL_CFLAGS)) -O1 -fno-inline -fno-omit-frame-pointer \
		-fno-optimize-sibling-calls -c -o $@ $<
$(B)/waste-prog: $(B)/waste_prog.o
	$(CC) $(call NOSAN,$(LDFLAGS)) -o $@ $^ -ldl
OBJS += $(B)/waste_prog.o

$(B)/hook-alloc-prog: $(B)/hook_alloc_prog.o
	$(CC) $(LDFLAGS) -o $@ $^ -lpthread
$(B)/conf_own.o: tests/hook/conf_own.c | $(B)
	$(CC) $(CPPFLAGS) $(INCS) $(ALL_CFLAGS) -c -o $@ $<
$(B)/conf-own-prog: $(B)/conf_own.o $(B)/hook_alloc_prog.o
	$(CC) $(LDFLAGS) -o $@ $^ -ljemalloc -lpthread
FK_FX := fixtures/sysroot/opt/fk/bin
$(B)/fk-jestatic-stripped: $(FK_FX)/fk-jestatic | $(B)
	strip --strip-all -o $@ $<
$(B)/fk-jestatic-keep: $(FK_FX)/fk-jestatic | $(B)
	strip --strip-all --keep-symbol=mallctl -o $@ $<
$(B)/fk-jestatic.debug: $(FK_FX)/fk-jestatic | $(B)
	objcopy --only-keep-debug $< $@
$(B)/fk-rjem-hook-stripped: $(FK_FX)/fk-rjem-hook | $(B)
	strip --strip-all -o $@ $<
$(B)/series-prog: $(B)/series_prog.o
	$(CC) $(call NOSAN,$(LDFLAGS)) -o $@ $^ -ldl
# forkdump-prog forks while fk_hook_dump and scrapes run (fork-dump.t).
$(B)/forkdump-prog: $(B)/forkdump_prog.o $(HOOK_SO) $(SERVE_SO)
	$(CC) $(LDFLAGS) -o $@ $(B)/forkdump_prog.o -L$(B) -lflamekit-hook \
		-Wl,-rpath,'$$ORIGIN' -ljemalloc -lpthread
# handle-prog: a C program mounting the routes through fk_hook_handle
# (tests/hook/handle.t), the serving half loaded by the shared library
# (in HOOK_TPROGS above).
$(B)/handle_prog.o: tests/hook/handle_prog.c | $(B)
	$(CC) $(CPPFLAGS) $(INCS) $(ALL_CFLAGS) -O1 -fno-inline -fno-omit-frame-pointer -c -o $@ $<
$(B)/handle-prog: $(B)/handle_prog.o $(HOOK_SO) $(SERVE_SO)
	$(CC) $(LDFLAGS) -o $@ $(B)/handle_prog.o -L$(B) -lflamekit-hook \
		-Wl,-rpath,'$$ORIGIN' -ljemalloc
$(B)/hook-api-prog: $(B)/hook_api_prog.o $(HOOK_SO) $(SERVE_SO)
	$(CC) $(LDFLAGS) -o $@ $(B)/hook_api_prog.o -L$(B) -lflamekit-hook \
		-Wl,-rpath,'$$ORIGIN' -ljemalloc -lpthread

$(B)/test_hook_addr.o: CFLAGS += $(HOOK_CFLAGS)
$(B)/test_hook_addr: $(B)/test_hook_addr.o $(B)/hook_addr.o $(B)/hook_holder.o $(B)/hook_proc.o \
		$(B)/hook_log.o $(B)/libfkcore.a
	$(CC) $(LDFLAGS) -o $@ $^ -lm
$(B)/test_hook_peer.o: CFLAGS += $(HOOK_CFLAGS)
$(B)/test_hook_peer: $(B)/test_hook_peer.o $(B)/serve_peer.o $(B)/hook_proc.o $(B)/libfkcore.a
	$(CC) $(LDFLAGS) -o $@ $^ -lm
$(B)/test_hook_env: $(B)/test_hook_env.o $(B)/hook_env.o $(B)/libfkcore.a
	$(CC) $(LDFLAGS) -o $@ $^ -lm
$(B)/test_hook_sampling.o: CFLAGS += $(HOOK_CFLAGS)
$(B)/test_hook_sampling: $(B)/test_hook_sampling.o $(B)/hook_sampling.o $(B)/hook_arena.o $(B)/libfkcore.a
	$(CC) $(LDFLAGS) -o $@ $^ -lpthread -lm
$(B)/test_hook_params.o: CFLAGS += $(HOOK_CFLAGS)
$(B)/test_hook_params: $(B)/test_hook_params.o $(B)/serve_params.o $(B)/libfkcore.a
	$(CC) $(LDFLAGS) -o $@ $^ -lm
$(B)/test_hook_fetch: $(B)/test_hook_fetch.o $(B)/fetch.o $(B)/libfkcore.a
	$(CC) $(LDFLAGS) -o $@ $^ $(CURL_LIBS) -lpthread -lm

# libFuzzer: the query parameter checker alone (serve_params.c).
FUZZ     += fuzz_params
$(B)/fuzz_params: $(B)/fuzz_params.o $(B)/serve_params.o $(B)/libfkcore.a ; $(FUZZ_LINK)
# libFuzzer: what the peer lookup reads (serve_peer.c).
FUZZ     += fuzz_peer
$(B)/fuzz_peer: $(B)/fuzz_peer.o $(B)/serve_peer.o $(B)/hook_proc.o $(B)/libfkcore.a ; $(FUZZ_LINK)
# libFuzzer: what the listener reads from a worker (hook_answer.c).
FUZZ     += fuzz_answer
$(B)/fuzz_answer: $(B)/fuzz_answer.o $(B)/hook_answer.o $(B)/libfkcore.a ; $(FUZZ_LINK)

# The serving half sees every library (it serves their formats), the
# resident half core/ alone, neither cli/; jeprof-raw and its fetcher see
# core/ (and cli/ for the tool).
$(call layer,$(HOOK_OBJ),capture core)
$(call layer,$(SERVE_OBJ),capture symbolize encode render core)
$(call layer,$(B)/fetch.o,capture core)
