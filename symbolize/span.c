/* SPDX-License-Identifier: MIT */
/* Address ranges searched by address (see symbolize_int.h): symbols,
 * units, .debug_aranges entries. Sorted by start, each range records the
 * largest end among it and the ranges before it, so the walk back from the
 * last range starting at or before an address stops as soon as no earlier
 * range can reach it, however ranges nest or overlap. */
#include <stddef.h>

#include "search.h"
#include "symbolize_int.h"

#define AT(v, i, size) ((struct fk_span *)((char *)(v) + (i) * (size)))

int fk_span_cmp(const void *a, const void *b)
{
	const struct fk_span *x = a, *y = b;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->hi < y->hi ? -1 : x->hi > y->hi;
}

void fk_span_index(void *v, size_t n, size_t size)
{
	uint64_t maxhi = 0;
	for (size_t i = 0; i < n; i++) {
		struct fk_span *s = AT(v, i, size);
		if (s->hi > maxhi)
			maxhi = s->hi;
		s->maxhi = maxhi;
	}
}

void *fk_span_find(const void *v, size_t n, size_t size, uint64_t addr)
{
	/* Last entry with lo <= addr. */
	size_t lo = fk_count_le(v, n, size, offsetof(struct fk_span, lo), addr);
	/* Walk back over entries that may still reach addr; the first one
	 * that holds it has the latest start. */
	for (size_t i = lo; i-- > 0;) {
		const struct fk_span *s = AT(v, i, size);
		if (s->maxhi <= addr)
			break;
		if (s->hi > addr)
			return (void *)s;
	}
	return NULL;
}
