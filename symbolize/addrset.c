/* A hash map from 64-bit addresses to 32-bit indexes (open addressing,
 * linear probing), so that a dump's hundreds of thousands of frames are
 * reduced to their few thousand distinct addresses without sorting them. */
#include <stdlib.h>
#include <string.h>

#include "symbolize_int.h"

#define EMPTY UINT32_MAX

static size_t slot(uint64_t key, size_t cap)
{
	/* Fibonacci hashing spreads page-aligned and nearby addresses. */
	return (size_t)((key * 0x9e3779b97f4a7c15ULL) >> 20) & (cap - 1);
}

static int rehash(struct fk_addrset *s, size_t cap)
{
	uint64_t *keys = malloc(cap * sizeof *keys);
	uint32_t *vals = malloc(cap * sizeof *vals);
	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -1;
	}
	memset(vals, 0xff, cap * sizeof *vals);
	for (size_t i = 0; i < s->cap; i++) {
		if (s->vals[i] == EMPTY)
			continue;
		size_t j = slot(s->keys[i], cap);
		while (vals[j] != EMPTY)
			j = (j + 1) & (cap - 1);
		keys[j] = s->keys[i];
		vals[j] = s->vals[i];
	}
	free(s->keys);
	free(s->vals);
	s->keys = keys;
	s->vals = vals;
	s->cap = cap;
	return 0;
}

int fk_addrset_put(struct fk_addrset *s, uint64_t key, uint32_t val, uint32_t *old)
{
	if ((s->n + 1) * 2 > s->cap && rehash(s, s->cap ? s->cap * 2 : 1024) != 0)
		return -1;
	size_t j = slot(key, s->cap);
	while (s->vals[j] != EMPTY) {
		if (s->keys[j] == key) {
			if (old)
				*old = s->vals[j];
			return 0;
		}
		j = (j + 1) & (s->cap - 1);
	}
	s->keys[j] = key;
	s->vals[j] = val;
	s->n++;
	return 1;
}

int fk_addrset_get(const struct fk_addrset *s, uint64_t key, uint32_t *val)
{
	if (s->cap == 0)
		return -1;
	size_t j = slot(key, s->cap);
	while (s->vals[j] != EMPTY) {
		if (s->keys[j] == key) {
			*val = s->vals[j];
			return 0;
		}
		j = (j + 1) & (s->cap - 1);
	}
	return -1;
}

void fk_addrset_release(struct fk_addrset *s)
{
	free(s->keys);
	free(s->vals);
	memset(s, 0, sizeof *s);
}
