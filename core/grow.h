/* Growable arrays: one place for the "double the capacity" step. */
#ifndef FK_GROW_H
#define FK_GROW_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* Makes room for one more element in the malloc'd array arr of n elements
 * of size elsize and capacity *cap (the first capacity is first). Returns
 * the array, moved or not, or NULL when out of memory (arr is then left as
 * it was). Use as: x = fk_grow(a, &cap, n, sizeof *a, 16); if (!x) fail;
 * a = x; */
static inline void *fk_grow(void *arr, size_t *cap, size_t n, size_t elsize, size_t first)
{
	void *np;
	size_t ncap;

	if (n < *cap)
		return arr;
	ncap = *cap ? *cap * 2 : first;
	if (ncap > SIZE_MAX / elsize)
		return NULL;
	np = realloc(arr, ncap * elsize);
	if (np)
		*cap = ncap;
	return np;
}

#endif
