/* SPDX-License-Identifier: MIT */
/* The stacks of the last dump, by their text's hash (stackmemo.h). */
#include "stackmemo.h"

#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "u64map.h"

struct entry {
	uint64_t h;
	uint64_t *addrs;               /* malloc'd; NULL for a bare "@" */
	uint32_t n;                    /* the text's length */
	uint32_t depth;
	uint32_t seen;                 /* the parse that met it last */
};

struct fk_stackmemo {
	struct entry *e;
	size_t ne, cap;
	struct fk_u64map ix;           /* h -> index into e */
	size_t budget, bytes;
	uint32_t gen;
	uint64_t hits, misses;
};

struct fk_stackmemo *fk_stackmemo_new(size_t budget)
{
	struct fk_stackmemo *m = calloc(1, sizeof *m);

	if (m) {
		m->budget = budget;
		fk_u64map_init(&m->ix);
	}
	return m;
}

void fk_stackmemo_free(struct fk_stackmemo *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->ne; i++)
		free(m->e[i].addrs);
	free(m->e);
	fk_u64map_release(&m->ix);
	free(m);
}

void fk_stackmemo_begin(struct fk_stackmemo *m)
{
	m->gen++;
}

int fk_stackmemo_find(struct fk_stackmemo *m, uint64_t h, size_t n,
		      const uint64_t **addrs, uint32_t *depth)
{
	uint32_t i = fk_u64map_get(&m->ix, h);

	if (i == UINT32_MAX || m->e[i].n != n) {
		m->misses++;
		return 0;
	}
	m->hits++;
	m->e[i].seen = m->gen;
	*addrs = m->e[i].addrs;
	*depth = m->e[i].depth;
	return 1;
}

static size_t cost(uint32_t depth)
{
	return sizeof(struct entry) + 2 * sizeof(struct fk_u64map_slot) +
	       (size_t)depth * sizeof(uint64_t);
}

const uint64_t *fk_stackmemo_add(struct fk_stackmemo *m, uint64_t h, size_t n,
				 const uint64_t *addrs, uint32_t depth)
{
	uint64_t *copy = NULL;
	void *grown;

	if (n > UINT32_MAX || m->bytes + cost(depth) > m->budget ||
	    fk_u64map_get(&m->ix, h) != UINT32_MAX || m->ne >= UINT32_MAX - 1)
		return NULL;
	if (depth && !(copy = malloc((size_t)depth * sizeof *copy)))
		return NULL;
	if (!(grown = fk_grow(m->e, &m->cap, m->ne, sizeof *m->e, 1024)) ||
	    fk_u64map_put(&m->ix, h, (uint32_t)m->ne) < 0) {
		if (grown)
			m->e = grown;
		free(copy);
		return NULL;
	}
	m->e = grown;
	if (depth)
		memcpy(copy, addrs, (size_t)depth * sizeof *copy);
	m->e[m->ne++] = (struct entry){ h, copy, (uint32_t)n, depth, m->gen };
	m->bytes += cost(depth);
	return copy ? copy : addrs;
}

void fk_stackmemo_sweep(struct fk_stackmemo *m)
{
	size_t w = 0;

	for (size_t i = 0; i < m->ne; i++) {
		if (m->e[i].seen == m->gen) {
			m->e[w++] = m->e[i];
			continue;
		}
		m->bytes -= cost(m->e[i].depth);
		free(m->e[i].addrs);
	}
	if (w == m->ne)
		return;
	m->ne = w;
	/* Rebuilt, not deleted from: the table has no removal, and a sweep
	 * that frees anything is rare next to the lookups. */
	fk_u64map_release(&m->ix);
	fk_u64map_init(&m->ix);
	if (fk_u64map_reserve(&m->ix, w) < 0) {
		/* Out of memory: forget everything rather than keep a partial
		 * index (every stack is then read again). */
		for (size_t i = 0; i < w; i++)
			free(m->e[i].addrs);
		m->ne = 0;
		m->bytes = 0;
		return;
	}
	for (size_t i = 0; i < w; i++)
		(void)fk_u64map_put(&m->ix, m->e[i].h, (uint32_t)i);
}

void fk_stackmemo_stats(const struct fk_stackmemo *m, struct fk_stackmemo_stats *st)
{
	memset(st, 0, sizeof *st);
	if (!m)
		return;
	st->stacks = m->ne;
	st->bytes = m->bytes;
	st->hits = m->hits;
	st->misses = m->misses;
}
