/* SPDX-License-Identifier: MIT */
/* Limits (a size, core's fk_parse_bytes, or growth as "5%") and budget
 * files: one "PATTERN SIZE" a line, the pattern an fnmatch(3) glob matched
 * against whole frame names (man/heap-check.1, "Budget files"). */
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "grow.h"
#include "heapcheck.h"
#include "io.h"
#include "limits.h"
#include "num.h"
#include "strtab.h"
#include "u64map.h"

int fk_limit_parse(const char *s, size_t n, int64_t *out, int *pct)
{
	size_t d = 0, f = 0;
	uint64_t whole, frac = 0;

	if (pct)
		*pct = 0;
	if (!pct || n == 0 || s[n - 1] != '%') {
		if (fk_parse_bytes(s, n, INT64_MAX, &whole) < 0)
			return -1;
		*out = (int64_t)whole;
		return 0;
	}
	n--;
	while (d < n && (unsigned)s[d] - '0' < 10)
		d++;
	if (d == 0 || fk_parse_u64(s, d, &whole) < 0 || whole > 1000000)
		return -1;
	if (d < n) {
		/* Two decimals at most: the limit is kept in hundredths. */
		if (s[d] != '.' || n - d - 1 == 0 || n - d - 1 > 2 ||
		    fk_parse_u64(s + d + 1, n - d - 1, &frac) < 0)
			return -1;
		f = n - d - 1;
		if (f == 1)
			frac *= 10;
	}
	*out = (int64_t)(whole * 100 + frac);
	*pct = 1;
	return 0;
}

static int blank(char c)
{
	return c == ' ' || c == '\t';
}

void fk_budget_release(struct fk_budget *b)
{
	free(b->v);
	fk_arena_free(b->arena);
	memset(b, 0, sizeof *b);
}

/* What parsing keeps across lines: the patterns seen, by their interned
 * text, and the line of each, so a repeated pattern costs one lookup. */
struct seen {
	struct fk_strtab *text;
	struct fk_u64map line;         /* interned pattern -> index in b->v */
};

/* One line s[0..n) (no newline): skipped, or a pattern and its size. */
static int parse_line(struct fk_budget *b, struct seen *seen, const char *s, size_t n,
		      uint64_t lineno, struct fk_err *err)
{
	char q[64];
	size_t i, sz, pe;
	int64_t limit;
	const char *pat;
	uint32_t old;
	void *nv;
	int rc;

	for (i = 0; i < n; i++) {
		if (s[i] == '\0')
			return fk_err_set(err, FK_ESYNTAX, lineno, "NUL byte in the line");
		/* A comment starts the line or follows a blank. */
		if (s[i] == '#' && (i == 0 || blank(s[i - 1]))) {
			n = i;
			break;
		}
	}
	while (n > 0 && blank(s[n - 1]))
		n--;
	while (n > 0 && blank(*s)) {
		s++;
		n--;
	}
	if (n == 0)
		return 0;
	for (sz = n; sz > 0 && !blank(s[sz - 1]); sz--)
		;
	if (sz == 0) {
		fk_err_quote(q, sizeof q, s, n);
		return fk_err_set(err, FK_ESYNTAX, lineno, "'%s' is not PATTERN SIZE", q);
	}
	if (fk_limit_parse(s + sz, n - sz, &limit, NULL) < 0) {
		fk_err_quote(q, sizeof q, s + sz, n - sz);
		return fk_err_set(err, FK_ESYNTAX, lineno,
				  "bad size '%s': want bytes or a whole number of KiB, MiB or GiB", q);
	}
	for (pe = sz; pe > 0 && blank(s[pe - 1]); pe--)
		;
	if (pe > FK_MAX_NAME)
		return fk_err_set(err, FK_ELIMIT, lineno, "pattern longer than %d bytes",
				  FK_MAX_NAME);
	if (!(pat = fk_strtab_intern(seen->text, s, pe)) ||
	    (rc = fk_u64map_add(&seen->line, (uintptr_t)pat, (uint32_t)b->n, &old)) < 0)
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	if (rc == 0) {
		fk_err_quote(q, sizeof q, s, pe);
		return fk_err_set(err, FK_ESYNTAX, lineno, "pattern '%s' already on line %llu",
				  q, (unsigned long long)b->v[old].lineno);
	}
	if (b->n >= FK_MAX_BUDGET_LINES)
		return fk_err_set(err, FK_ELIMIT, lineno, "more than %d budget lines",
				  FK_MAX_BUDGET_LINES);
	if (!(nv = fk_grow(b->v, &b->cap, b->n, sizeof *b->v, 16)))
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	b->v = nv;
	b->v[b->n].pattern = pat;
	b->v[b->n].limit = limit;
	b->v[b->n].lineno = lineno;
	b->n++;
	return 0;
}

int fk_budget_parse(struct fk_budget *b, const char *data, size_t len,
		    struct fk_err *err)
{
	const char *p = data, *end = data + len;
	struct seen seen;
	uint64_t lineno = 0;
	int rc = 0;

	memset(b, 0, sizeof *b);
	fk_u64map_init(&seen.line);
	/* The patterns live in the arena, interned once each. */
	if (!(b->arena = fk_arena_new()) || !(seen.text = fk_strtab_new(b->arena))) {
		fk_budget_release(b);
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	}
	while (p < end && rc == 0) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;

		lineno++;
		if (le > p && le[-1] == '\r')
			le--;
		if ((size_t)(le - p) > FK_MAX_LINE)
			rc = fk_err_set(err, FK_ELIMIT, lineno, "line longer than %d bytes",
					FK_MAX_LINE);
		else
			rc = parse_line(b, &seen, p, (size_t)(le - p), lineno, err);
		p = nl ? nl + 1 : end;
	}
	fk_strtab_free(seen.text);
	fk_u64map_release(&seen.line);
	if (rc < 0)
		fk_budget_release(b);
	return rc;
}

int fk_budget_load(struct fk_budget *b, const char *path, struct fk_err *err)
{
	char *data;
	size_t len;
	int mapped, rc;

	memset(b, 0, sizeof *b);
	if (fk_map_text_input(path, &data, &len, &mapped, err) < 0)
		return -1;
	rc = fk_budget_parse(b, data, len, err);
	fk_release_input(data, len, mapped);
	return rc;
}
