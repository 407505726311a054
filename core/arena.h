/* SPDX-License-Identifier: MIT */
/* A bump allocator: many small allocations, freed together in one call. */
#ifndef FK_ARENA_H
#define FK_ARENA_H

#include <stddef.h>

struct fk_arena;

/* Returns a new empty arena, or NULL when out of memory. */
struct fk_arena *fk_arena_new(void);

/* Frees the arena and everything allocated from it. NULL is a no-op. */
void fk_arena_free(struct fk_arena *a);

/* Returns n bytes aligned to 16, valid until fk_arena_free; NULL when out of
 * memory or n is absurd. */
void *fk_arena_alloc(struct fk_arena *a, size_t n);

/* Copies s[0..n) into the arena and NUL-terminates it; NULL on failure. */
char *fk_arena_strndup(struct fk_arena *a, const char *s, size_t n);

/* Bytes currently held by the arena (for statistics). */
size_t fk_arena_size(const struct fk_arena *a);

#endif
