# SPDX-License-Identifier: MIT
# jeprof-raw (capture/jeprof_raw_main.c): links only core and the fetcher
# (libcurl).
CURL_CFLAGS = $(call pkg,libcurl,--cflags,libcurl4-openssl-dev)
CURL_LIBS   = $(call pkg,libcurl,--libs,libcurl4-openssl-dev)
PROGS += $(B)/jeprof-raw
OBJS  += $(B)/jeprof_raw_main.o
$(B)/fetch.o: CPPFLAGS += $(CURL_CFLAGS)
$(B)/jeprof-raw: $(B)/jeprof_raw_main.o $(B)/fetch.o $(B)/libfkcli.a $(B)/libfkcore.a
	$(CC) $(LDFLAGS) -o $@ $^ $(CURL_LIBS) -lm

$(call layer,$(B)/jeprof_raw_main.o,capture cli core)
