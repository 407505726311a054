/* SPDX-License-Identifier: MIT */
/* A bump allocator over a chain of blocks (see arena.h). */
#include "arena.h"

#include "bigmem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK_MIN (256 * 1024)
#define HUGE_MIN  (4 * 1024 * 1024)

struct block {
	struct block *next;
	size_t size, used;
	int mapped;                    /* from fk_big_alloc, not malloc */
	_Alignas(16) unsigned char data[];
};

struct fk_arena {
	struct block *head;
	size_t total;
};

/* Big blocks come from mmap with transparent huge pages where the kernel
 * allows them: a large profile's arena is tens of MB, and faulting it in
 * 4 KiB pages costs more than parsing it. */
static struct block *new_block(size_t size)
{
	struct block *b;

	if (size >= HUGE_MIN) {
		b = fk_big_alloc(sizeof *b + size);
		if (!b)
			return NULL;
		b->mapped = 1;
		return b;
	}
	b = malloc(sizeof *b + size);
	if (b)
		b->mapped = 0;
	return b;
}

struct fk_arena *fk_arena_new(void)
{
	return calloc(1, sizeof(struct fk_arena));
}

void fk_arena_free(struct fk_arena *a)
{
	struct block *b, *next;

	if (!a)
		return;
	for (b = a->head; b; b = next) {
		next = b->next;
		if (b->mapped)
			fk_big_free(b, sizeof *b + b->size);
		else
			free(b);
	}
	free(a);
}

void *fk_arena_alloc(struct fk_arena *a, size_t n)
{
	struct block *b = a->head;
	size_t need = (n + 15) & ~(size_t)15;
	void *p;

	if (n > SIZE_MAX / 2)
		return NULL;
	if (need == 0)
		need = 16;
	if (!b || b->size - b->used < need) {
		size_t size = need > BLOCK_MIN ? need : BLOCK_MIN;

		/* Grow blocks with the arena so big profiles take few mallocs. */
		if (a->total / 2 > size && a->total / 2 < (size_t)64 << 20)
			size = (a->total / 2 + 15) & ~(size_t)15;
		b = new_block(size);
		if (!b)
			return NULL;
		b->size = size;
		b->used = 0;
		/* A big one-off allocation goes behind the current block so the
		 * current block's free space is not lost. */
		if (a->head && need > BLOCK_MIN && a->head->size - a->head->used >= 4096) {
			b->next = a->head->next;
			a->head->next = b;
		} else {
			b->next = a->head;
			a->head = b;
		}
		a->total += size;
	}
	p = b->data + b->used;
	b->used += need;
	return p;
}

char *fk_arena_strndup(struct fk_arena *a, const char *s, size_t n)
{
	char *p = fk_arena_alloc(a, n + 1);

	if (!p)
		return NULL;
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

size_t fk_arena_size(const struct fk_arena *a)
{
	return a->total;
}
