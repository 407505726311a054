/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the folded-stack reader, with and without skipping bad
 * lines; every delivered line must lie inside the input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "folded.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct span {
	const char *lo, *hi;
	uint64_t last;
};

static int on_line(void *ctx, const struct fk_folded_line *l)
{
	struct span *s = ctx;

	if (l->stack < s->lo || l->len == 0 || l->stack + l->len > s->hi || l->lineno <= s->last)
		abort();
	s->last = l->lineno;
	return 0;
}

static void on_bad(void *ctx, const struct fk_err *e)
{
	(void)ctx;
	if (e->line == 0 || e->msg[0] == '\0')
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* A copy of exactly size bytes, so reads past the end are caught. */
	char *copy = malloc(size ? size : 1);
	struct span s;
	struct fk_err err;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	s.lo = copy;
	s.hi = copy + size;
	s.last = 0;
	fk_err_init(&err, "fuzz");
	if (fk_folded_each(copy, size, 0, on_line, on_bad, &s, &err) < 0 &&
	    (err.code == FK_OK || err.line == 0))
		abort();
	s.last = 0;
	fk_err_init(&err, "fuzz");
	if (fk_folded_each(copy, size, 1, on_line, on_bad, &s, &err) < 0)
		abort();
	free(copy);
	return 0;
}
