/* An open-addressing hash table from uint64 keys to uint32 values, for
 * pprof ids and addresses (linear probing, load at most 1/2). */
#include "encode_int.h"

#include <stdlib.h>
#include <string.h>

void fk_u64map_init(struct fk_u64map *m)
{
	memset(m, 0, sizeof *m);
}

void fk_u64map_release(struct fk_u64map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof *m);
}

static size_t slot(uint64_t key, size_t cap)
{
	/* A 64-bit mix (splitmix64's finaliser): addresses and small ids
	 * would otherwise cluster. */
	key ^= key >> 30;
	key *= 0xbf58476d1ce4e5b9ULL;
	key ^= key >> 27;
	key *= 0x94d049bb133111ebULL;
	key ^= key >> 31;
	return (size_t)key & (cap - 1);
}

uint32_t fk_u64map_get(const struct fk_u64map *m, uint64_t key)
{
	size_t i;

	if (!m->cap)
		return UINT32_MAX;
	for (i = slot(key, m->cap); m->vals[i] != UINT32_MAX; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == key)
			return m->vals[i];
	return UINT32_MAX;
}

static int grow(struct fk_u64map *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 64, i;
	uint64_t *nk;
	uint32_t *nv;

	if (ncap > SIZE_MAX / sizeof *nk)
		return -1;
	nk = malloc(ncap * sizeof *nk);
	nv = malloc(ncap * sizeof *nv);
	if (!nk || !nv) {
		free(nk);
		free(nv);
		return -1;
	}
	memset(nv, 0xff, ncap * sizeof *nv);
	for (i = 0; i < m->cap; i++) {
		size_t j;

		if (m->vals[i] == UINT32_MAX)
			continue;
		for (j = slot(m->keys[i], ncap); nv[j] != UINT32_MAX; j = (j + 1) & (ncap - 1))
			;
		nk[j] = m->keys[i];
		nv[j] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = nk;
	m->vals = nv;
	m->cap = ncap;
	return 0;
}

int fk_u64map_put(struct fk_u64map *m, uint64_t key, uint32_t val)
{
	size_t i;

	if ((m->n + 1) * 2 > m->cap && grow(m) < 0)
		return -1;
	for (i = slot(key, m->cap); m->vals[i] != UINT32_MAX; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == key) {
			m->vals[i] = val;
			return 0;
		}
	}
	m->keys[i] = key;
	m->vals[i] = val;
	m->n++;
	return 0;
}
