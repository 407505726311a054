# jeprof-raw (capture/jeprof_raw.c): links only core and the hook's fetcher.
PROGS += $(B)/jeprof-raw
OBJS  += $(B)/jeprof_raw.o
$(B)/jeprof-raw: $(B)/jeprof_raw.o $(B)/fetch.o $(B)/libfkcli.a $(B)/libfkcore.a
	$(CC) $(LDFLAGS) -o $@ $^ -lm
