/* SPDX-License-Identifier: MIT */
/* An open-addressing hash table from uint64 keys to uint32 values, for
 * addresses, pprof ids and thread ids (linear probing, load at most 1/2,
 * keys and values side by side so a lookup costs one cache miss). */
#ifndef FK_U64MAP_H
#define FK_U64MAP_H

#include <stddef.h>
#include <stdint.h>


struct fk_u64map_slot {
	uint64_t key;
	uint32_t val;                  /* UINT32_MAX marks an empty slot */
};

struct fk_u64map {
	struct fk_u64map_slot *slots;  /* key and value side by side: one cache miss */
	size_t cap, n;                 /* cap is a power of two */
};

/* Prepares an empty table (a zeroed struct is one too). Always succeeds
 * (no allocation yet). */
void fk_u64map_init(struct fk_u64map *m);

/* Frees the table's arrays; the table may be reused after init. */
void fk_u64map_release(struct fk_u64map *m);

/* Returns the value of key, or UINT32_MAX when absent. */
uint32_t fk_u64map_get(const struct fk_u64map *m, uint64_t key);

/* Sets key to val (val != UINT32_MAX), replacing an old value. Returns 0,
 * or -1 when out of memory. */
int fk_u64map_put(struct fk_u64map *m, uint64_t key, uint32_t val);

/* Adds key -> val unless key is present, when *old (if not NULL) gets its
 * value and nothing changes. Returns 1 when added, 0 when present, -1 when
 * out of memory. val must not be UINT32_MAX. */
int fk_u64map_add(struct fk_u64map *m, uint64_t key, uint32_t val, uint32_t *old);

/* Makes room for n keys without rehashing. Returns 0, or -1 when out of
 * memory (the table is unchanged and still usable). */
int fk_u64map_reserve(struct fk_u64map *m, size_t n);

#endif
