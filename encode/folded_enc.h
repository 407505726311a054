/* SPDX-License-Identifier: MIT */
/* Writing a heap profile as folded stacks ("root;caller;leaf VALUE", the
 * format of flamegraph.pl and inferno); see man/to-folded.1. */
#ifndef FK_FOLDED_ENC_H
#define FK_FOLDED_ENC_H

#include <stdio.h>

#include "err.h"
#include "profile.h"

enum fk_folded_value {
	FK_FOLDED_BYTES,               /* space (the default) */
	FK_FOLDED_OBJECTS,             /* object count */
};

struct fk_folded_opts {
	enum fk_folded_value value;
	int alloc;                     /* accumulated (allocated) instead of in use */
	int threads;                   /* a root frame "[thread N NAME]" per thread */
	int columns;                   /* every sample type, one column each, under a
	                                  "# columns:" header (value, alloc ignored) */
};

/* Writes p's stacks root first: inline frames expanded (caller before
 * callee), unresolved addresses as "module+0xOFFSET" ("[anon]+0xADDR"
 * outside file mappings), values unbiased per stack (per thread with
 * threads) and rounded before equal lines merge; lines sorted bytewise,
 * zero totals left out. o may be NULL for the defaults (in-use bytes). The
 * whole output is built in memory first. Returns 0, or -1 with err (alloc
 * asked of a profile without accumulated data, out of memory, write
 * error). */
int fk_folded_write(const struct fk_profile *p, const struct fk_folded_opts *o,
		    FILE *out, struct fk_err *err);

#endif
