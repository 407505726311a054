/* SPDX-License-Identifier: MIT */
/* libFuzzer target: heap-check's budget-file parser and its matching. A
 * file parses or fails at a line; a parsed budget holds NUL-terminated
 * patterns and sizes >= 0 on increasing lines. One matcher takes the
 * input itself as a stack, then each of its lines: each answer is the
 * first line whose pattern fnmatch(3) finds a frame for, as the
 * definition says (no earlier line matches any frame), whatever the
 * matcher kept from the stacks before. Sizes and growth limits are
 * parsed from each line too. */
#include <fnmatch.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "heapcheck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Whether pattern matches a frame of stack[0..len), of which f is a copy
 * with its ';'s made NULs: each frame read up to its first NUL, as
 * fnmatch reads it. */
static int any_frame(const char *pattern, const char *stack, const char *f, size_t len)
{
	const char *semi;
	size_t s = 0;

	for (;;) {
		if (fnmatch(pattern, f + s, 0) == 0)
			return 1;
		if (!(semi = memchr(stack + s, ';', len - s)))
			return 0;
		s = (size_t)(semi - stack) + 1;
	}
}

static void check(const struct fk_budget *b, struct fk_budget_match *m, const char *stack,
		  size_t len)
{
	long r = fk_budget_match_stack(m, stack, len), i;
	char *f;

	if (r < -2 || r >= (long)b->n)
		abort();
	/* The definition costs lines times frames: small inputs only. */
	if (r == -2 || b->n * len > 100000 || !(f = malloc(len + 1)))
		return;
	memcpy(f, stack, len);
	f[len] = '\0';
	for (i = 0; (size_t)i < len; i++)
		if (f[i] == ';')
			f[i] = '\0';
	for (i = 0; i < (r < 0 ? (long)b->n : r); i++)
		if (any_frame(b->v[i].pattern, stack, f, len))
			abort();
	if (r >= 0 && !any_frame(b->v[r].pattern, stack, f, len))
		abort();
	free(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* A copy of exactly size bytes, so reads past the end are caught. */
	char *copy = malloc(size ? size : 1);
	struct fk_budget b;
	struct fk_budget_match *m = NULL;
	struct fk_err err;
	const char *p, *e;
	uint64_t last = 0;
	int64_t v;
	int pct, parsed;
	size_t i;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	fk_err_init(&err, "fuzz");
	if (!(parsed = fk_budget_parse(&b, copy, size, &err) == 0)) {
		if (err.code == FK_OK || err.msg[0] == '\0' || b.n != 0)
			abort();
	} else {
		for (i = 0; i < b.n; i++) {
			if (b.v[i].limit < 0 || b.v[i].lineno <= last || !b.v[i].pattern ||
			    strlen(b.v[i].pattern) > size)
				abort();
			last = b.v[i].lineno;
		}
		if ((m = fk_budget_match_new(&b)))
			check(&b, m, copy, size);
	}
	for (p = copy; p < copy + size; p = e + 1) {
		e = memchr(p, '\n', (size_t)(copy + size - p));
		if (!e)
			e = copy + size;
		if (m)
			check(&b, m, p, (size_t)(e - p));
		if (fk_limit_parse(p, (size_t)(e - p), &v, NULL) == 0 && v < 0)
			abort();
		if (fk_limit_parse(p, (size_t)(e - p), &v, &pct) == 0 && v < 0)
			abort();
	}
	if (parsed) {
		fk_budget_match_free(m);
		fk_budget_release(&b);
	}
	free(copy);
	return 0;
}
