/* SPDX-License-Identifier: MIT */
/* The "heap profile:" forms of gperftools, tcmalloc and Go that jemalloc 3
 * does not write (heapz_v2/R, growthz, growth, heap/R): see
 * core/heapdump_gperf.c and man/jeprof-raw.1, FORMAT. */
#ifndef FK_HEAPDUMP_GPERF_H
#define FK_HEAPDUMP_GPERF_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"

/* True when the first line s[0..n) (without newline) is a "heap profile:"
 * header whose type is one this reader takes. */
int fk_heapdump_gperf_header(const char *s, size_t n);

/* Parses the profile data[0..len), whose first line passed
 * fk_heapdump_gperf_header, into the new profile p, numbering lines from
 * first_line. data must outlive p. Returns 0, or -1 with err naming the
 * line. */
int fk_heapdump_gperf_parse(struct fk_profile *p, const char *data, size_t len,
			    uint64_t first_line, struct fk_err *err);

#endif
