/* SPDX-License-Identifier: MIT */
/* The jemalloc heap dump ("raw profile"): reader and writer.
 * Format: jemalloc src/prof_data.c (heap_v2/R, t*: and tN: lines, @ lines,
 * MAPPED_LIBRARIES:), and the older "heap profile: ... @ heap_v2/R" form of
 * jemalloc 3 and gperftools. See man/jeprof-raw.1, FORMAT. */
#ifndef FK_HEAPDUMP_H
#define FK_HEAPDUMP_H

#include <stddef.h>
#include <stdio.h>

#include "profile.h"

/* Parses the dump in data[0..len) into p (which must be new and empty).
 * data must stay valid while p lives (hand it over with fk_profile_own).
 * Validates strictly: returns 0, or -1 with err naming the line. */
int fk_heapdump_parse(struct fk_profile *p, const char *data, size_t len,
		      struct fk_err *err);

/* Same, for a dump that starts at line first_line of a larger input
 * (the symbolized format's "--- heap" section), so messages carry the
 * line numbers of the whole input. */
int fk_heapdump_parse_at(struct fk_profile *p, const char *data, size_t len,
			 uint64_t first_line, struct fk_err *err);

/* Same, reading each stack line's addresses from m when it read that
 * text before (the hook's repeated dumps of one heap, stackmemo.h): p
 * borrows them from m, so it must be freed before m's next parse. Stacks
 * m held that data does not list are forgotten when the parse succeeds. */
struct fk_stackmemo;
int fk_heapdump_parse_memo(struct fk_profile *p, const char *data, size_t len,
			   struct fk_stackmemo *m, struct fk_err *err);

/* Writes p as a jemalloc dump (header totals recomputed from the stacks,
 * threads, names and maps as read) such that jeprof reads it as it read the
 * original. Returns 0, or -1 with err on a write error. */
int fk_heapdump_write(const struct fk_profile *p, FILE *out, struct fk_err *err);

#endif
