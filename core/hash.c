/* SPDX-License-Identifier: MIT */
/* fk_hash_long: two lanes of fk_hash_word, joined at the end (hash.h). */
#include "hash.h"

#include <string.h>

uint64_t fk_hash_long(const void *s, size_t n)
{
	const unsigned char *p = s;
	uint64_t a = FK_HASH_SEED, b = ~FK_HASH_SEED, w0, w1;
	size_t k = n;

	for (; k >= 16; p += 16, k -= 16) {
		memcpy(&w0, p, 8);
		memcpy(&w1, p + 8, 8);
		a = fk_hash_word(a, w0);
		b = fk_hash_word(b, w1);
	}
	return fk_hash_rest(fk_hash_word(a, b), p, k, n);
}
