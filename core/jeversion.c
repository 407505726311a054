/* SPDX-License-Identifier: MIT */
/* jemalloc's version text and the accounting it implies (jeversion.h). */
#include "jeversion.h"

#include <stdint.h>
#include <string.h>

#include "num.h"

/* The first commit after 5.3.0 whose stats.allocated leaves a sampled
 * small object out ("Stop over-reporting memory usage from sampled small
 * allocations", 5.3.0-116-g07a2eab3); 5.3.0-92 already rounded the extent
 * to a page but still counted the smallest large class. */
#define PAGE_ROUNDED_AFTER_530 116

/* "N" of s[0..len) up to the first of stop (or the end) into *v; the
 * character after it, or NULL. */
static const char *number(const char *s, const char *end, const char *stop, uint64_t *v)
{
	const char *e = s;

	while (e < end && !strchr(stop, *e))
		e++;
	return fk_parse_u64(s, (size_t)(e - s), v) < 0 ? NULL : e;
}

int fk_jeversion_page_rounded(const char *version)
{
	const char *s = version, *end = version + strlen(version);
	uint64_t v[4] = { 0, 0, 0, 0 };

	/* "MAJOR.MINOR.PATCH-N-gHASH", as configure's --with-version. */
	for (int i = 0; i < 4; i++) {
		if (!(s = number(s, end, i < 2 ? "." : "-", &v[i])))
			return 0;
		if (s == end)
			break;
		s++;
	}
	if (v[0] != 5)
		return v[0] > 5;
	if (v[1] != 3)
		return v[1] > 3;
	return v[2] > 0 || v[3] >= PAGE_ROUNDED_AFTER_530;
}
