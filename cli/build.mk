# SPDX-License-Identifier: MIT
# cli/: libfkcli.a, what every tool's main links above core: the program
# name, usage and the one-line error format, loading a profile, the
# all-or-nothing output, heap tuning. It prints and exits, so it is never
# linked into the hook or any library.
CLI_OBJ := $(B)/cli.o
OBJS    += $(CLI_OBJ)
LIBS    += $(B)/libfkcli.a

$(B)/libfkcli.a: $(CLI_OBJ)
	$(AR) rcs $@ $^

$(call layer,$(CLI_OBJ),cli core)
