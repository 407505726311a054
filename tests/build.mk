# SPDX-License-Identifier: MIT
# tests/: unit tests are linked by the fragment of the folder they test
# (UNIT += build/test_x); this runs them all with the golden and peer tests.
UNIT ?=
.PHONY: check check-fast units
units: $(UNIT)
check: all units
	@B=$(B) tests/run-all
# tests/rust/*.t build the crate rust/flamekit and its examples with cargo,
# offline, into $(B)/rust-target (the hook's C half into $(B) itself), so a
# second run rebuilds nothing.
# Unit tests and goldens only (well under a minute): the tier to run while
# editing; `make check` adds the peer, pipeline, browser and hook scripts.
check-fast: all units
	@FK_FAST=1 B=$(B) tests/run-all

# libFuzzer targets (tests/fuzz/fuzz_*.c), built by clang in build/fuzz with
# ASan and UBSan. A folder's fragment adds `FUZZ += fuzz_x` and a link rule
#   $(B)/fuzz_x: $(B)/fuzz_x.o $(B)/libfkcore.a ; $(FUZZ_LINK)
# Run one: build/fuzz/fuzz_x -max_total_time=60 CORPUS_DIR
FUZZ ?=
FUZZ_LINK = $(CC) $(LDFLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)
.PHONY: fuzz fuzz-targets
fuzz:
	@$(MAKE) --no-print-directory B=build/fuzz CC=clang SANITIZE=address,undefined \
		CFLAGS=-fsanitize=fuzzer-no-link fuzz-targets
fuzz-targets: $(FUZZ:%=$(B)/%)
