# SPDX-License-Identifier: MIT
# core/: the profile model and text formats; libc only.
CORE_SRC := $(notdir $(wildcard core/*.c))
CORE_OBJ := $(CORE_SRC:%.c=$(B)/%.o)
OBJS     += $(CORE_OBJ)

$(B)/libfkcore.a: $(CORE_OBJ)
	$(AR) rcs $@ $^

# What a program linking libfkcore.a adds to its link line.
CORE_LDLIBS := -lm

UNIT += $(B)/test_allocframes
$(B)/test_allocframes: $(B)/test_allocframes.o $(B)/libfkcore.a
	$(CC) $(LDFLAGS) -o $@ $^ $(CORE_LDLIBS)
$(B)/test_allocframes.o: CPPFLAGS += -Itests/unit

UNIT += $(B)/test_core
$(B)/test_core: $(B)/test_core.o $(B)/libfkcore.a
	$(CC) $(LDFLAGS) -o $@ $^ $(CORE_LDLIBS)
$(B)/test_core.o: CPPFLAGS += -Itests/unit
# Their dependency files too, so a header change rebuilds them.
OBJS += $(B)/test_allocframes.o $(B)/test_core.o

FUZZ += fuzz_heapdump
$(B)/fuzz_heapdump: $(B)/fuzz_heapdump.o $(B)/libfkcore.a
	$(FUZZ_LINK) $(CORE_LDLIBS)

FUZZ += fuzz_series
$(B)/fuzz_series: $(B)/fuzz_series.o $(B)/libfkcore.a
	$(FUZZ_LINK) $(CORE_LDLIBS)

FUZZ += fuzz_jestats fuzz_waste
OBJS += $(B)/fuzz_jestats.o $(B)/fuzz_waste.o
$(B)/fuzz_jestats: $(B)/fuzz_jestats.o $(B)/libfkcore.a
	$(FUZZ_LINK) $(CORE_LDLIBS)
$(B)/fuzz_waste: $(B)/fuzz_waste.o $(B)/libfkcore.a
	$(FUZZ_LINK) $(CORE_LDLIBS)

FUZZ += fuzz_life
OBJS += $(B)/fuzz_life.o
$(B)/fuzz_life: $(B)/fuzz_life.o $(B)/libfkcore.a
	$(FUZZ_LINK) $(CORE_LDLIBS)

# core/ sees only itself.
$(call layer,$(CORE_OBJ),core)
