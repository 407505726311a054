/* SPDX-License-Identifier: MIT */
/* Folded stacks, the format of flamegraph.pl and inferno: one stack a line,
 * frames root first joined by ';', a space, an integer value. */
#ifndef FK_FOLDED_H
#define FK_FOLDED_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "err.h"

/* One parsed line: frames point into the caller's buffer. */
struct fk_folded_line {
	const char *stack;             /* "a;b;c", not NUL-terminated */
	size_t len;
	int64_t value;
	uint64_t lineno;
};

/* Calls fn for each stack line of data[0..len) (CRLF tolerated, blank lines
 * skipped, spaces allowed inside names: the value is the last field).
 * A malformed line fails with err naming it, unless skip_bad, in which case
 * fn_bad (may be NULL) is told and reading goes on. fn returns 0 to go on or
 * -1 to stop (its error already in err). Returns 0 or -1. */
int fk_folded_each(const char *data, size_t len, int skip_bad,
		   int (*fn)(void *ctx, const struct fk_folded_line *l),
		   void (*fn_bad)(void *ctx, const struct fk_err *e),
		   void *ctx, struct fk_err *err);

/* The same for data that continues an input read in pieces: *lineno is
 * the number of lines before data and is advanced past each line read.
 * data must end at a line end or at the end of the input. */
int fk_folded_each_from(const char *data, size_t len, uint64_t *lineno,
			int skip_bad,
			int (*fn)(void *ctx, const struct fk_folded_line *l),
			void (*fn_bad)(void *ctx, const struct fk_err *e),
			void *ctx, struct fk_err *err);

/* Writes one frame name to out so it stays one frame of one line: ';' is
 * replaced by ':', CR/LF/TAB and other control bytes by a space. */
void fk_folded_put_frame(FILE *out, const char *name);

#endif
