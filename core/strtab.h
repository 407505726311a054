/* SPDX-License-Identifier: MIT */
/* Interned strings: each distinct string is stored once, so pointers compare
 * equal exactly when the strings do. Storage lives in the caller's arena. */
#ifndef FK_STRTAB_H
#define FK_STRTAB_H

#include <stddef.h>
#include <stdint.h>

struct fk_arena;
struct fk_strtab;

/* Returns a new table storing strings in arena a (borrowed), or NULL. */
struct fk_strtab *fk_strtab_new(struct fk_arena *a);

/* Frees the table's index (not the strings, which belong to the arena). */
void fk_strtab_free(struct fk_strtab *t);

/* Returns the interned copy of s[0..n) (NUL-terminated, valid while the
 * arena lives), or NULL when out of memory. */
const char *fk_strtab_intern(struct fk_strtab *t, const char *s, size_t n);

/* Number of distinct strings interned. */
size_t fk_strtab_count(const struct fk_strtab *t);

/* FNV-1a 64-bit hash of s[0..n), shared by the hash tables of the tree. */
uint64_t fk_hash(const void *s, size_t n);

#endif
