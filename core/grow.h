/* SPDX-License-Identifier: MIT */
/* Growable arrays: one place for the "double the capacity" step. */
#ifndef FK_GROW_H
#define FK_GROW_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The capacity that holds need elements of size elsize: cap doubled (first
 * when cap is 0) until it does. Returns it, or 0 when it would overflow. */
static inline size_t fk_grow_cap(size_t cap, size_t need, size_t elsize, size_t first)
{
	size_t ncap = cap ? cap : first;

	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return 0;
		ncap *= 2;
	}
	if (elsize && ncap > SIZE_MAX / elsize)
		return 0;
	return ncap;
}

/* Resizes the malloc'd array arr (or NULL) to n elements of size elsize
 * and zeroes elements [old, n) (pass old = n to zero none). Returns the
 * array, moved or not, or NULL when out of memory or when n * elsize
 * overflows (arr is then left as it was). The one realloc of the tree:
 * every array grows through here. */
static inline void *fk_resize(void *arr, size_t old, size_t n, size_t elsize)
{
	void *np;

	if (elsize && n > SIZE_MAX / elsize)
		return NULL;
	np = realloc(arr, n && elsize ? n * elsize : 1);
	if (np && old < n)
		memset((char *)np + old * elsize, 0, (n - old) * elsize);
	return np;
}

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
	if (!(ncap = fk_grow_cap(*cap, n + 1, elsize, first)))
		return NULL;
	np = fk_resize(arr, ncap, ncap, elsize);
	if (np)
		*cap = ncap;
	return np;
}

/* Makes the capacity *cap of the malloc'd array *arr (elements of size
 * elsize) at least need, doubling from first. Returns 0, or -1 when out of
 * memory (*arr and *cap are then unchanged). */
static inline int fk_reserve(void **arr, size_t *cap, size_t need, size_t elsize,
			     size_t first)
{
	size_t ncap;
	void *np;

	if (need <= *cap)
		return 0;
	if (!(ncap = fk_grow_cap(*cap, need, elsize, first)) ||
	    !(np = fk_resize(*arr, ncap, ncap, elsize)))
		return -1;
	*arr = np;
	*cap = ncap;
	return 0;
}

/* Appends s[0..n) to the NUL-terminated text *buf of *len bytes (capacity
 * *cap, growing by doubling from 256). Returns 0, or -1 when out of memory
 * (nothing appended). Callers bound the total themselves. */
static inline int fk_append(char **buf, size_t *len, size_t *cap, const void *s, size_t n)
{
	void *b = *buf;

	if (n > SIZE_MAX - *len - 1 || fk_reserve(&b, cap, *len + n + 1, 1, 256) < 0)
		return -1;
	*buf = b;
	if (n)
		memcpy(*buf + *len, s, n);
	*len += n;
	(*buf)[*len] = '\0';
	return 0;
}

#endif
