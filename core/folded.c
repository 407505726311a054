/* SPDX-License-Identifier: MIT */
/* Folded stacks (flamegraph.pl's stackcollapse output): reading lines of
 * "frame;frame;frame VALUE" and writing frame names that stay one frame. */
#include <string.h>

#include "folded.h"
#include "limits.h"
#include "num.h"

/* Splits one line (without its newline) into stack and value. Returns 0, or
 * -1 with err set at lineno. */
static int parse_line(const char *s, size_t n, uint64_t lineno,
		      struct fk_folded_line *l, struct fk_err *err)
{
	char q[64];
	size_t end = n, vstart;

	if (n > FK_MAX_FOLDED_LINE)
		return fk_err_set(err, FK_ELIMIT, lineno,
				  "line longer than %zu bytes", (size_t)FK_MAX_FOLDED_LINE);
	while (end > 0 && (s[end - 1] == ' ' || s[end - 1] == '\t'))
		end--;
	vstart = end;
	while (vstart > 0 && s[vstart - 1] != ' ' && s[vstart - 1] != '\t')
		vstart--;
	if (vstart == 0) {
		fk_err_quote(q, sizeof q, s, end);
		return fk_err_set(err, FK_ESYNTAX, lineno, "missing value in '%s'", q);
	}
	if (fk_parse_i64(s + vstart, end - vstart, &l->value) < 0) {
		fk_err_quote(q, sizeof q, s + vstart, end - vstart);
		return fk_err_set(err, FK_ESYNTAX, lineno, "bad value '%s'", q);
	}
	/* The separator may be a run of blanks; the stack keeps inner spaces. */
	l->len = vstart;
	while (l->len > 0 && (s[l->len - 1] == ' ' || s[l->len - 1] == '\t'))
		l->len--;
	if (l->len == 0)
		return fk_err_set(err, FK_ESYNTAX, lineno, "empty stack");
	l->stack = s;
	l->lineno = lineno;
	return 0;
}

int fk_folded_each(const char *data, size_t len, int skip_bad,
		   int (*fn)(void *ctx, const struct fk_folded_line *l),
		   void (*fn_bad)(void *ctx, const struct fk_err *e),
		   void *ctx, struct fk_err *err)
{
	uint64_t lineno = 0;

	return fk_folded_each_from(data, len, &lineno, skip_bad, fn, fn_bad, ctx, err);
}

int fk_folded_each_from(const char *data, size_t len, uint64_t *linep,
			int skip_bad,
			int (*fn)(void *ctx, const struct fk_folded_line *l),
			void (*fn_bad)(void *ctx, const struct fk_err *e),
			void *ctx, struct fk_err *err)
{
	const char *p = data, *end = data + len;
	uint64_t lineno = *linep;
	int rc = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		struct fk_folded_line l;
		size_t n;
		const char *s = p;

		lineno++;
		p = nl ? nl + 1 : end;
		if (le > s && le[-1] == '\r')
			le--;
		n = (size_t)(le - s);
		/* Blank lines (only spaces and tabs) are skipped. */
		{
			size_t i = 0;
			while (i < n && (s[i] == ' ' || s[i] == '\t'))
				i++;
			if (i == n)
				continue;
		}
		if (parse_line(s, n, lineno, &l, err) < 0) {
			if (!skip_bad) {
				rc = -1;
				break;
			}
			if (fn_bad)
				fn_bad(ctx, err);
			fk_err_init(err, err->path);
			continue;
		}
		if (fn(ctx, &l) < 0) {
			rc = -1;
			break;
		}
	}
	*linep = lineno;
	return rc;
}

void fk_folded_put_frame(FILE *out, const char *name)
{
	const unsigned char *s = (const unsigned char *)name;

	for (; *s; s++) {
		int c = *s;
		if (c == ';')
			c = ':';
		else if (c < 0x20 || c == 0x7f)
			c = ' ';
		putc(c, out);
	}
}
