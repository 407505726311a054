/* SPDX-License-Identifier: MIT */
/* libFuzzer target: heap-check's budget-file parser and its matching. A
 * file parses or fails at a line; a parsed budget holds NUL-terminated
 * patterns and sizes >= 0 on increasing lines, and matching the input
 * itself as a stack gives a line index or -1. Sizes and growth limits are
 * parsed from each line too. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "heapcheck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* A copy of exactly size bytes, so reads past the end are caught. */
	char *copy = malloc(size ? size : 1);
	struct fk_budget b;
	struct fk_err err;
	const char *p, *e;
	uint64_t last = 0;
	int64_t v;
	int pct;
	long m;
	size_t i;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	fk_err_init(&err, "fuzz");
	if (fk_budget_parse(&b, copy, size, &err) < 0) {
		if (err.code == FK_OK || err.msg[0] == '\0' || b.n != 0)
			abort();
	} else {
		for (i = 0; i < b.n; i++) {
			if (b.v[i].limit < 0 || b.v[i].lineno <= last || !b.v[i].pattern ||
			    strlen(b.v[i].pattern) > size)
				abort();
			last = b.v[i].lineno;
		}
		m = fk_budget_match(&b, copy, size);
		if (m < -2 || m >= (long)b.n)
			abort();
		fk_budget_release(&b);
	}
	for (p = copy; p < copy + size; p = e + 1) {
		e = memchr(p, '\n', (size_t)(copy + size - p));
		if (!e)
			e = copy + size;
		if (fk_limit_parse(p, (size_t)(e - p), &v, NULL) == 0 && v < 0)
			abort();
		if (fk_limit_parse(p, (size_t)(e - p), &v, &pct) == 0 && v < 0)
			abort();
	}
	free(copy);
	return 0;
}
