/* SPDX-License-Identifier: MIT */
/* Hashing long byte strings a 64-bit word at a time, for in-memory tables
 * only (no value is stored or compared across builds): render/layout.c's
 * frame names, whose ';' search reads the same words it hashes, and
 * fk_hash_long's stack lines and whole dumps (core/stackmemo.h, the hook's
 * kept answers). fk_hash (strtab.h) stays the byte-a-step hash of short
 * names. */
#ifndef FK_HASH_H
#define FK_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define FK_HASH_SEED 0x9e3779b97f4a7c15ULL

/* h with the 8 bytes w mixed in. */
static inline uint64_t fk_hash_word(uint64_t h, uint64_t w)
{
	h = (h ^ w) * 0xff51afd7ed558ccdULL;
	return h ^ (h >> 32);
}

/* The hash of a string n bytes long that left h after its whole words;
 * w: its last 0-7 bytes, zero-padded. */
static inline uint64_t fk_hash_end(uint64_t h, uint64_t w, size_t n)
{
	h = (h ^ w ^ ((uint64_t)n * 0xc2b2ae3d27d4eb4fULL)) * 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 29;
	h *= 0x94d049bb133111ebULL;
	return h ^ (h >> 31);
}

/* The hash of a string n bytes long that left h before its last k bytes
 * s[0..k): their whole words, then the 0-7 left. */
static inline uint64_t fk_hash_rest(uint64_t h, const void *s, size_t k, size_t n)
{
	const unsigned char *p = s;
	uint64_t w;

	for (; k >= 8; p += 8, k -= 8) {
		memcpy(&w, p, 8);
		h = fk_hash_word(h, w);
	}
	w = 0;
	memcpy(&w, p, k);
	return fk_hash_end(h, w, n);
}

/* The hash of s[0..n), two words a step (two independent lanes, about
 * twice fk_hash_word's one-word chain on a 10 MB dump). */
uint64_t fk_hash_long(const void *s, size_t n);

#endif
