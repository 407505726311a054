/* SPDX-License-Identifier: MIT */
/* The uint64 -> uint32 hash table (see u64map.h). */
#include "u64map.h"

#include <stdlib.h>
#include <string.h>

#include "bigmem.h"

/* Tables of millions of addresses are probed at random: on 4 KiB pages
 * nearly every probe is a TLB miss (costly under virtualisation), so big
 * tables live on huge pages. */
#define BIG_TABLE (2 * FK_HUGE_PAGE)

static int is_big(size_t cap)
{
	return cap * sizeof(struct fk_u64map_slot) >= BIG_TABLE;
}

static void free_slots(struct fk_u64map_slot *s, size_t cap)
{
	if (is_big(cap))
		fk_big_free(s, cap * sizeof *s);
	else
		free(s);
}

void fk_u64map_init(struct fk_u64map *m)
{
	memset(m, 0, sizeof *m);
}

void fk_u64map_release(struct fk_u64map *m)
{
	free_slots(m->slots, m->cap);
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
	for (i = slot(key, m->cap); m->slots[i].val != UINT32_MAX; i = (i + 1) & (m->cap - 1))
		if (m->slots[i].key == key)
			return m->slots[i].val;
	return UINT32_MAX;
}

static int rehash(struct fk_u64map *m, size_t ncap)
{
	struct fk_u64map_slot *ns;
	size_t i;

	if (ncap > SIZE_MAX / sizeof *ns)
		return -1;
	ns = is_big(ncap) ? fk_big_alloc(ncap * sizeof *ns) : malloc(ncap * sizeof *ns);
	if (!ns)
		return -1;
	memset(ns, 0xff, ncap * sizeof *ns);
	for (i = 0; i < m->cap; i++) {
		size_t j;

		if (m->slots[i].val == UINT32_MAX)
			continue;
		for (j = slot(m->slots[i].key, ncap); ns[j].val != UINT32_MAX; j = (j + 1) & (ncap - 1))
			;
		ns[j] = m->slots[i];
	}
	free_slots(m->slots, m->cap);
	m->slots = ns;
	m->cap = ncap;
	return 0;
}

int fk_u64map_reserve(struct fk_u64map *m, size_t n)
{
	size_t ncap = m->cap ? m->cap : 64;

	if (n > SIZE_MAX / 4)
		return -1;
	while (ncap < n * 2)
		ncap *= 2;
	return ncap == m->cap ? 0 : rehash(m, ncap);
}

int fk_u64map_put(struct fk_u64map *m, uint64_t key, uint32_t val)
{
	size_t i;

	if ((m->n + 1) * 2 > m->cap && rehash(m, m->cap ? m->cap * 2 : 64) < 0)
		return -1;
	for (i = slot(key, m->cap); m->slots[i].val != UINT32_MAX; i = (i + 1) & (m->cap - 1)) {
		if (m->slots[i].key == key) {
			m->slots[i].val = val;
			return 0;
		}
	}
	m->slots[i].key = key;
	m->slots[i].val = val;
	m->n++;
	return 0;
}

int fk_u64map_add(struct fk_u64map *m, uint64_t key, uint32_t val, uint32_t *old)
{
	size_t i;

	if ((m->n + 1) * 2 > m->cap && rehash(m, m->cap ? m->cap * 2 : 64) < 0)
		return -1;
	for (i = slot(key, m->cap); m->slots[i].val != UINT32_MAX; i = (i + 1) & (m->cap - 1)) {
		if (m->slots[i].key == key) {
			if (old)
				*old = m->slots[i].val;
			return 0;
		}
	}
	m->slots[i].key = key;
	m->slots[i].val = val;
	m->n++;
	return 1;
}
