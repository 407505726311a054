/* SPDX-License-Identifier: MIT */
/* Lines, hex addresses and the memory map section of the legacy text
 * profiles google/pprof reads (profile/legacy_profile.go): the pieces every
 * legacy text reader shares. */
#include "encode_int.h"

#include <stdlib.h>
#include <string.h>

#include "limits.h"
#include "num.h"

void fk_lines_init(struct fk_lines *l, const char *data, size_t len, struct fk_err *err)
{
	l->cur = data;
	l->end = data + len;
	l->lineno = 0;
	l->err = err;
}

int fk_lines_begin(struct fk_lines *l, const char *data, size_t len, struct fk_lb **b,
		   uint64_t **addrs, struct fk_err *err)
{
	fk_lines_init(l, data, len, err);
	*b = fk_lb_new();
	*addrs = malloc(FK_MAX_DEPTH_ANY * sizeof **addrs);
	if (!*b || !*addrs)
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	return 0;
}

int fk_lines_attr(struct fk_lines *l, const char *s, size_t n, const char *v, size_t vn,
		  int64_t max, int64_t *out)
{
	uint64_t u;

	if (fk_parse_u64(v, vn, &u) < 0 || u > (uint64_t)max)
		return fk_lines_bad(l, "bad attribute value", s, n);
	*out = (int64_t)u;
	return 0;
}

void fk_lines_end(struct fk_lb *b, uint64_t *addrs)
{
	free(addrs);
	fk_lb_free(b);
}

int fk_lines_bad(struct fk_lines *l, const char *what, const char *s, size_t n)
{
	char q[64];

	return fk_err_set(l->err, FK_ESYNTAX, l->lineno, "%s '%s'", what,
			  fk_err_quote(q, sizeof q, s, n));
}

int fk_lines_next(struct fk_lines *l, const char **s, size_t *n)
{
	const char *a = l->cur, *nl, *b;

	if (l->cur >= l->end)
		return 0;
	l->lineno++;
	nl = memchr(a, '\n', (size_t)(l->end - a));
	b = nl ? nl : l->end;
	l->cur = nl ? nl + 1 : l->end;
	if ((size_t)(b - a) > FK_MAX_LINE)
		return fk_err_set(l->err, FK_ELIMIT, l->lineno, "line longer than %d bytes",
				  FK_MAX_LINE);
	if (memchr(a, '\0', (size_t)(b - a)))
		return fk_err_set(l->err, FK_ESYNTAX, l->lineno, "NUL byte in line");
	while (a < b && (*a == ' ' || *a == '\t'))
		a++;
	while (b > a && (b[-1] == ' ' || b[-1] == '\t' || b[-1] == '\r'))
		b--;
	*s = a;
	*n = (size_t)(b - a);
	return 1;
}

const char *fk_lines_rest(const struct fk_lines *l, size_t *n, uint64_t *first_line)
{
	*n = (size_t)(l->end - l->cur);
	*first_line = l->lineno + 1;
	return l->cur;
}

static int hexdigit(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

int fk_lines_hexes(struct fk_lines *l, const char *s, size_t n, uint64_t *addrs,
		   size_t *count)
{
	const char *end = s + n, *t;

	*count = 0;
	while (end - s >= 3) {
		if (!(s[0] == '0' && s[1] == 'x' && hexdigit(s[2]))) {
			s++;
			continue;
		}
		for (t = s + 2; t < end && hexdigit(*t); t++)
			;
		if (*count == FK_MAX_DEPTH_ANY)
			return fk_err_set(l->err, FK_ELIMIT, l->lineno,
					  "stack deeper than %d frames", FK_MAX_DEPTH_ANY);
		if (fk_parse_hex(s, (size_t)(t - s), 1, &addrs[*count]) < 0)
			return fk_lines_bad(l, "bad address", s, (size_t)(t - s));
		(*count)++;
		s = t;
	}
	return 0;
}

int fk_lines_starts(const char *s, size_t n, const char *p)
{
	size_t k = strlen(p);

	return n >= k && memcmp(s, p, k) == 0;
}

int fk_lines_contains(const char *s, size_t n, const char *p)
{
	size_t k = strlen(p), i;

	for (i = 0; i + k <= n; i++)
		if (memcmp(s + i, p, k) == 0)
			return 1;
	return 0;
}

int fk_lines_is_maps(const char *s, size_t n)
{
	return fk_lines_contains(s, n, "--- Memory map: ---") ||
	       fk_lines_contains(s, n, "MAPPED_LIBRARIES:");
}

int fk_lines_maps(struct fk_lines *l, struct fk_lb *b)
{
	const char *s, *rest;
	size_t n;
	uint64_t first;
	int rc;

	while ((rc = fk_lines_next(l, &s, &n)) > 0)
		if (fk_lines_is_maps(s, n))
			break;
	if (rc < 0)
		return -1;
	if (rc == 0)
		return 0;
	rest = fk_lines_rest(l, &n, &first);
	return fk_lb_maps(b, rest, n, first, l->err);
}

int fk_lines_finish(struct fk_lines *l, int r, const char *s, size_t n, struct fk_lb *b,
		    uint8_t **out, size_t *outlen, struct fk_err *err)
{
	if (r < 0)
		return -1;
	if (r > 0 && fk_lines_is_maps(s, n)) {
		uint64_t first;
		const char *rest = fk_lines_rest(l, &n, &first);

		if (fk_lb_maps(b, rest, n, first, err) < 0)
			return -1;
	} else if (r > 0 && fk_lines_maps(l, b) < 0) {
		return -1;
	}
	return fk_lb_finish(b, out, outlen, err);
}
