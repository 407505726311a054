/* SPDX-License-Identifier: MIT */
/* The line and token helpers the heap dump readers share (heapdump.c for
 * jemalloc's forms, heapdump_gperf.c for gperftools' and Go's): one line
 * at a time with the same limits and messages, blanks, an expected
 * character, a quoted syntax error. Internal to core/'s dump readers. */
#ifndef FK_DUMPLEX_H
#define FK_DUMPLEX_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

/* Records "WHAT 'S'" (s[0..n) quoted) as a syntax error at line; -1. */
int fk_dumplex_syntax(struct fk_err *err, uint64_t line, const char *what,
		      const char *s, size_t n);

/* The first byte of s[0..end) that is not a space or a tab (or end). */
const char *fk_dumplex_blanks(const char *s, const char *end);

/* Skips blanks at *sp and then the character c, moving *sp past it: 0, or
 * -1 with "expected 'C' at '...'" at line. */
int fk_dumplex_expect(struct fk_err *err, uint64_t line, const char **sp,
		      const char *end, char c);

/* Takes the line at *cur (before end): counts it in *lineno, gives it in
 * *s, *n without its newline and moves *cur past it. Returns 1, 0 at the
 * end (*cur == end), or -1 with err set for a line longer than
 * FK_MAX_LINE, one ending in a carriage return, or a last line without
 * its newline. */
int fk_dumplex_next(const char **cur, const char *end, uint64_t *lineno,
		    struct fk_err *err, const char **s, size_t *n);

/* Checks that the rest of the input, cur[0..end) read from the line after
 * lineno on, ends in a newline: 0, or -1 with "last line not terminated"
 * at that last line. */
int fk_dumplex_terminated(const char *cur, const char *end, uint64_t lineno,
			  struct fk_err *err);

#endif
