/* SPDX-License-Identifier: MIT */
/* The one binary search over arrays sorted by a uint64 field: how many
 * elements have a key at or below a value, so that element count-1 is the
 * last entry starting at or before an address (mappings, unwind-table
 * starts, DWARF subprograms, symbol and unit ranges). */
#ifndef FK_SEARCH_H
#define FK_SEARCH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The number of leading elements of v (n elements of size bytes, sorted
 * by the uint64_t at byte offset keyoff of each) whose key is <= key. */
static inline size_t fk_count_le(const void *v, size_t n, size_t size, size_t keyoff,
				 uint64_t key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t k;

		memcpy(&k, (const char *)v + mid * size + keyoff, sizeof k);
		if (k <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

#endif
