/* SPDX-License-Identifier: MIT */
/* Interned strings in an open-addressing hash table (see strtab.h). */
#include "strtab.h"

#include <stdlib.h>
#include <string.h>

#include "arena.h"

struct entry {
	const char *s;
	uint64_t hash;
	size_t len;
};

struct fk_strtab {
	struct fk_arena *arena;
	struct entry *slots;
	size_t cap, count;
};

uint64_t fk_hash(const void *s, size_t n)
{
	const unsigned char *p = s;
	uint64_t h = 1469598103934665603ULL;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= p[i];
		h *= 1099511628211ULL;
	}
	return h ^ (h >> 29);
}

struct fk_strtab *fk_strtab_new(struct fk_arena *a)
{
	struct fk_strtab *t = calloc(1, sizeof *t);

	if (!t)
		return NULL;
	t->arena = a;
	t->cap = 1024;
	t->slots = calloc(t->cap, sizeof *t->slots);
	if (!t->slots) {
		free(t);
		return NULL;
	}
	return t;
}

void fk_strtab_free(struct fk_strtab *t)
{
	if (!t)
		return;
	free(t->slots);
	free(t);
}

static int grow(struct fk_strtab *t)
{
	size_t ncap = t->cap * 2, i;
	struct entry *ns = calloc(ncap, sizeof *ns);

	if (!ns)
		return -1;
	for (i = 0; i < t->cap; i++) {
		size_t j;

		if (!t->slots[i].s)
			continue;
		for (j = t->slots[i].hash & (ncap - 1); ns[j].s; j = (j + 1) & (ncap - 1))
			;
		ns[j] = t->slots[i];
	}
	free(t->slots);
	t->slots = ns;
	t->cap = ncap;
	return 0;
}

const char *fk_strtab_intern(struct fk_strtab *t, const char *s, size_t n)
{
	uint64_t h = fk_hash(s, n);
	size_t j;
	char *copy;

	if ((t->count + 1) * 4 > t->cap * 3 && grow(t) < 0)
		return NULL;
	for (j = h & (t->cap - 1); t->slots[j].s; j = (j + 1) & (t->cap - 1)) {
		const struct entry *e = &t->slots[j];

		if (e->hash == h && e->len == n && memcmp(e->s, s, n) == 0)
			return e->s;
	}
	copy = fk_arena_strndup(t->arena, s, n);
	if (!copy)
		return NULL;
	t->slots[j].s = copy;
	t->slots[j].hash = h;
	t->slots[j].len = n;
	t->count++;
	return copy;
}

size_t fk_strtab_count(const struct fk_strtab *t)
{
	return t->count;
}
