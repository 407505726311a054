# core/: the profile model and text formats; libc only.
CORE_SRC := err.c arena.c strtab.c num.c io.c profile.c maps.c heapdump.c \
            heapdump_write.c symprof.c folded.c diff.c
CORE_OBJ := $(CORE_SRC:%.c=$(B)/%.o)
# cli.c: the tools' shared main-side helpers (usage, printing errors); the
# only core file that prints, so it is a library of its own, never linked
# into the hook.
CLI_OBJ  := $(B)/cli.o
OBJS     += $(CORE_OBJ) $(CLI_OBJ)

$(B)/libfkcore.a: $(CORE_OBJ)
	$(AR) rcs $@ $^
$(B)/libfkcli.a: $(CLI_OBJ)
	$(AR) rcs $@ $^
