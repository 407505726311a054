# SPDX-License-Identifier: MIT
# check/: libfkcheck.a (profiles as allocation sites, sizes and budget
# files, the checks, the text/markdown/JUnit reports) and heap-check, the
# memory gate for CI (man/heap-check.1). It reads every format through the
# readers and folded writers below it, so it links encode/ and symbolize/.
CHK_SRC := sites.c budget.c budget_match.c verdict.c figures.c report.c junit.c run.c
CHK_OBJ := $(CHK_SRC:%.c=$(B)/%.o)
OBJS    += $(CHK_OBJ) $(B)/heap_check_main.o
LIBS    += $(B)/libfkcheck.a
PROGS   += $(B)/heap-check

$(CHK_OBJ): $(B)/profile.pb-c.h
$(CHK_OBJ): CPPFLAGS += $(SYM_CFLAGS) $(ENC_CFLAGS)

$(B)/libfkcheck.a: $(CHK_OBJ)
	$(AR) rcs $@ $^
$(B)/heap-check: $(B)/heap_check_main.o $(B)/libfkcheck.a $(B)/libfkenc.a $(B)/libfksym.a \
		$(B)/libfkcli.a $(B)/libfkcore.a
	$(CC) $(LDFLAGS) -o $@ $^ $(ENC_LIBS) $(SYM_LDLIBS) $(CORE_LDLIBS)

# libFuzzer target for the budget-file parser and its matching.
FUZZ += fuzz_budget
$(B)/fuzz_budget: $(B)/fuzz_budget.o $(B)/budget.o $(B)/budget_match.o $(B)/libfkcore.a
	$(FUZZ_LINK) $(CORE_LDLIBS)

# check/ sees encode/, symbolize/ and core/; its tool also cli/.
$(call layer,$(CHK_OBJ),check encode symbolize core)
$(call layer,$(B)/heap_check_main.o,check cli core)

# Unit tests of the library (tests/unit/test_check.c).
UNIT += $(B)/test_check
OBJS += $(B)/test_check.o
$(B)/test_check.o: CPPFLAGS += -Itests/unit
$(B)/test_check: $(B)/test_check.o $(B)/libfkcheck.a $(B)/libfkenc.a $(B)/libfksym.a $(B)/libfkcore.a
	$(CC) $(LDFLAGS) -o $@ $^ $(ENC_LIBS) $(SYM_LDLIBS) $(CORE_LDLIBS)
