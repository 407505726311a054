/* SPDX-License-Identifier: MIT */
/* Writing a heap profile as folded stacks ("root;caller;leaf VALUE", the
 * format of flamegraph.pl and inferno); see man/to-folded.1. */
#ifndef FK_FOLDED_ENC_H
#define FK_FOLDED_ENC_H

#include <stddef.h>
#include <stdint.h>
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
	int lines;                     /* a frame whose file and line are known is
	                                  "NAME (FILE:LINE)": one frame a line of a
	                                  function, not one a function */
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

/* The names of the value columns fk_folded_write writes with o->columns
 * for p, as on its "# columns:" line: in-use space and objects, then, when
 * p has accumulated counts, allocated space and objects. Static text. */
const char *fk_folded_columns(const struct fk_profile *p);

/* Told one stack of fk_folded_each_stack: its n frames, root first
 * (names[i] of lens[i] bytes, not NUL-terminated, valid during the call),
 * and its values v: v[0] (not 0), or with o->columns one a column of
 * fk_folded_columns(p) (not all 0). Returns 0, or -1 with err to stop the
 * walk. */
typedef int (*fk_folded_stack_fn)(void *ctx, const char *const *names, const size_t *lens,
				  size_t n, const int64_t *v, struct fk_err *err);

/* Gives fn, stack by stack, what fk_folded_write would write with o (NULL
 * for the defaults), as a reader of that text finds it: the same frames
 * (named, escaped and split as on the line, the blanks at its end
 * dropped) and values, one call a stack of p, before equal lines merge
 * (values adding up in a flame graph's tree do the same) and in p's order,
 * not sorted (a tree's page does not depend on it). So a flame graph is
 * built from a profile without writing its text and parsing it back (the
 * hook's ?format=flame, every column of o->columns through
 * fk_flame_add_stack_cols). Returns 0, or -1 with err (fn's, or
 * fk_folded_write's). */
int fk_folded_each_stack(const struct fk_profile *p, const struct fk_folded_opts *o,
			 fk_folded_stack_fn fn, void *ctx, struct fk_err *err);

#endif
