# SPDX-License-Identifier: MIT
# flamekit — one non-recursive Makefile. Each folder adds its objects and
# programs through its own <folder>/build.mk fragment, included below.
#
#   make            build everything under build/
#   make test       install missing packages, build with -Werror, run all tests
#   make demo       install missing packages, build, run the demo pipeline
#   make gate-demo  the same for a memory gate: a test run checked by heap-check
#   make fuzz       build the libFuzzer targets (clang)
#   make SANITIZE=address,undefined test

CC       ?= cc
B        := build
PREFIX   ?= /usr/local
DESTDIR  ?=
# Libraries go where Debian's multiarch layout puts them
# (/usr/local/lib/x86_64-linux-gnu); set LIBDIR to choose.
MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)
LIBDIR   ?= $(PREFIX)/lib$(if $(MULTIARCH),/$(MULTIARCH))
VERSION  := 0.1.0

WARN     := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
            -Wformat=2 -Wvla -Wimplicit-fallthrough
OPT      ?= -O2 -g
CFLAGS   ?=
CPPFLAGS += -D_GNU_SOURCE -DFK_VERSION='"$(VERSION)"' -I$(B)
# Include paths follow the layers (DESIGN.md): a folder's objects see their
# own headers and those of the folders below, so the compiler rejects a
# call up or sideways. Each fragment sets INCS for its objects with
# `$(call layer,OBJECTS,FOLDERS)`; test programs and fuzz targets see all.
INCS = -Icore -Icli -Isymbolize -Iencode -Irender -Icapture -Icheck
layer = $(eval $(1): INCS = $(foreach f,$(2),-I$(f)))
# OBJ_CFLAGS: what a fragment adds for its own objects (symbols hidden
# unless it says otherwise). Never CFLAGS: one given on the command line
# (make CFLAGS=...) replaces every CFLAGS a fragment sets.
OBJ_CFLAGS = -fvisibility=hidden
ALL_CFLAGS = -std=c11 $(OPT) $(WARN) -fPIC $(OBJ_CFLAGS) -MMD -MP $(CFLAGS)
ifeq ($(WERROR),1)
ALL_CFLAGS += -Werror
endif
ifneq ($(SANITIZE),)
ALL_CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS    += -fsanitize=$(SANITIZE)
endif

# pkg-config, failing with the name of the Debian package that is missing.
# Expanded lazily, so that `make test` can install packages before it asks.
pkg = $(or $(shell pkg-config $(2) $(1) 2>/dev/null),$(if $(shell pkg-config --exists $(1) 2>/dev/null && echo y),,$(error missing package $(1) (Debian: $(3)); run scripts/install-deps)))

PROGS :=
LIBS  :=
OBJS  :=

# The fragments below define rules; `make` alone must still mean `make all`.
.DEFAULT_GOAL := all

include core/build.mk
include cli/build.mk
include symbolize/build.mk
include encode/build.mk
include render/build.mk
include capture/build.mk
include capture/jeprof_raw.mk
include check/build.mk
include tests/build.mk

.PHONY: all clean deps test check test-update demo gate-demo fuzz install uninstall
all: $(PROGS) $(LIBS)

# Sources are found by vpath; file names are unique across the tree.
vpath %.c core cli symbolize encode render capture check tests/unit tests/fuzz $(B)
$(B)/%.o: %.c | $(B)
	$(CC) $(CPPFLAGS) $(INCS) $(ALL_CFLAGS) -c -o $@ $<

$(B):
	mkdir -p $(B)

deps:
	@scripts/install-deps

# The README's test command: install, then build and test with -Werror.
test: deps
	@$(MAKE) --no-print-directory WERROR=1 check

test-update: all
	@tests/run-golden --update

demo: deps
	@$(MAKE) --no-print-directory all
	@scripts/demo

# A memory gate as a CI job runs it: a test run under the hook, the heap at
# exit, heap-check against demo/heap.budget, the flame graph of what went over.
gate-demo: deps
	@$(MAKE) --no-print-directory all
	@scripts/gate-demo

clean:
	rm -rf $(B)

# Installs the tools, the hook library with its header and pkg-config file,
# and the man pages under $(DESTDIR)$(PREFIX).
# The library is installed as libflamekit-hook.so.VERSION with the links
# libflamekit-hook.so.0 (its soname) and libflamekit-hook.so; its serving
# half, which it loads from its own folder, as libflamekit-hook-serve.so.0.
BINDIR  = $(DESTDIR)$(PREFIX)/bin
DLIBDIR = $(DESTDIR)$(LIBDIR)
INCDIR  = $(DESTDIR)$(PREFIX)/include
MANDIR  = $(DESTDIR)$(PREFIX)/share/man
install: all
	install -d $(BINDIR) $(DLIBDIR)/pkgconfig $(INCDIR) $(MANDIR)/man1 $(MANDIR)/man3 \
		$(MANDIR)/man7
	install -m 0755 $(PROGS) $(BINDIR)
	install -m 0755 $(HOOK_REAL) $(DLIBDIR)/libflamekit-hook.so.$(VERSION)
	ln -sf libflamekit-hook.so.$(VERSION) $(DLIBDIR)/$(HOOK_SONAME)
	ln -sf $(HOOK_SONAME) $(DLIBDIR)/libflamekit-hook.so
	install -m 0755 $(SERVE_SO) $(DLIBDIR)/$(SERVE_SONAME)
	install -m 0644 capture/flamekit_hook.h $(INCDIR)
	install -m 0644 $(B)/flamekit-hook.pc $(DLIBDIR)/pkgconfig
	install -m 0644 $(wildcard man/*.1) $(MANDIR)/man1
	install -m 0644 $(wildcard man/*.3) $(MANDIR)/man3
	install -m 0644 $(wildcard man/*.7) $(MANDIR)/man7

uninstall:
	rm -f $(addprefix $(BINDIR)/,$(notdir $(PROGS))) \
	      $(DLIBDIR)/libflamekit-hook.so.$(VERSION) $(DLIBDIR)/$(HOOK_SONAME) \
	      $(DLIBDIR)/libflamekit-hook.so $(DLIBDIR)/$(SERVE_SONAME) \
	      $(INCDIR)/flamekit_hook.h $(DLIBDIR)/pkgconfig/flamekit-hook.pc \
	      $(addprefix $(MANDIR)/man1/,$(notdir $(wildcard man/*.1))) \
	      $(addprefix $(MANDIR)/man3/,$(notdir $(wildcard man/*.3))) \
	      $(addprefix $(MANDIR)/man7/,$(notdir $(wildcard man/*.7)))

-include $(OBJS:.o=.d)
