/* SPDX-License-Identifier: MIT */
/* Lines and tokens of the heap dump readers (see dumplex.h). */
#include "dumplex.h"

#include <stdio.h>
#include <string.h>

#include "limits.h"

int fk_dumplex_syntax(struct fk_err *err, uint64_t line, const char *what,
		      const char *s, size_t n)
{
	char q[64];

	return fk_err_set(err, FK_ESYNTAX, line, "%s '%s'", what,
			  fk_err_quote(q, sizeof q, s, n));
}

const char *fk_dumplex_blanks(const char *s, const char *end)
{
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	return s;
}

int fk_dumplex_expect(struct fk_err *err, uint64_t line, const char **sp,
		      const char *end, char c)
{
	const char *s = fk_dumplex_blanks(*sp, end);

	if (s >= end || *s != c) {
		char what[32];

		snprintf(what, sizeof what, "expected '%c' at", c);
		return fk_dumplex_syntax(err, line, what, s, (size_t)(end - s));
	}
	*sp = s + 1;
	return 0;
}

int fk_dumplex_next(const char **cur, const char *end, uint64_t *lineno,
		    struct fk_err *err, const char **s, size_t *n)
{
	const char *nl;

	if (*cur >= end)
		return 0;
	++*lineno;
	nl = memchr(*cur, '\n', (size_t)(end - *cur));
	*s = *cur;
	*n = nl ? (size_t)(nl - *cur) : (size_t)(end - *cur);
	*cur = nl ? nl + 1 : end;
	if (*n > FK_MAX_LINE)
		return fk_err_set(err, FK_ELIMIT, *lineno, "line longer than %d bytes",
				  FK_MAX_LINE);
	if (*n > 0 && (*s)[*n - 1] == '\r')
		return fk_err_set(err, FK_ESYNTAX, *lineno,
				  "carriage return at end of line (CRLF line endings)");
	if (!nl)
		return fk_dumplex_syntax(err, *lineno,
					 "last line not terminated (truncated dump?)", *s, *n);
	return 1;
}

int fk_dumplex_terminated(const char *cur, const char *end, uint64_t lineno,
			  struct fk_err *err)
{
	const char *last;

	if (cur == end || end[-1] == '\n')
		return 0;
	last = end - 1;
	while (last > cur && last[-1] != '\n')
		last--;
	lineno++;
	while (cur < last)
		if (*cur++ == '\n')
			lineno++;
	return fk_dumplex_syntax(err, lineno, "last line not terminated (truncated dump?)",
				 last, (size_t)(end - last));
}
