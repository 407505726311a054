/* SPDX-License-Identifier: MIT */
/* The stacks of the last dump, kept for the next (the hook's repeated
 * scrapes of one heap, bench/README.md "Repeated scrapes"): a stack line's
 * text, by its hash (fk_hash_long, hash.h) and length, gives back the addresses
 * read from it before, so the dump reader reads hex only for stacks it has
 * not met. What a parse did not meet is forgotten when it ends.
 *
 * A profile parsed with a memo borrows the memo's addresses: it must be
 * freed before the memo's next parse (fk_heapdump_parse_memo) or free.
 * Two texts of one length and one 64-bit hash would be taken for one
 * stack; the hash mixes every byte, so for a heap of 10^5 stacks that is
 * about one chance in 4 * 10^9 a dump (n^2 / 2 pairs over 2^64). */
#ifndef FK_STACKMEMO_H
#define FK_STACKMEMO_H

#include <stddef.h>
#include <stdint.h>

struct fk_stackmemo;

struct fk_stackmemo_stats {
	size_t stacks;                 /* held now */
	size_t bytes;                  /* their addresses and entries */
	uint64_t hits, misses;         /* lookups since made */
};

/* A new empty memo that holds at most budget bytes of stacks (a stack
 * past it is read each time), or NULL when out of memory. */
struct fk_stackmemo *fk_stackmemo_new(size_t budget);

/* Frees m and every stack it holds. NULL is a no-op. */
void fk_stackmemo_free(struct fk_stackmemo *m);

/* Starts a parse: what it does not meet goes at fk_stackmemo_sweep. */
void fk_stackmemo_begin(struct fk_stackmemo *m);

/* 1 with the addresses of the stack whose text hashed to h and was n
 * bytes long (*addrs, NULL for a bare "@", and *depth), or 0 when m does
 * not hold it. */
int fk_stackmemo_find(struct fk_stackmemo *m, uint64_t h, size_t n,
		      const uint64_t **addrs, uint32_t *depth);

/* Keeps a copy of addrs[0..depth) as the stack of text (h, n) met in this
 * parse; returns the copy, or NULL when over the budget, out of memory or
 * the hash taken by another length (the caller keeps its own). */
const uint64_t *fk_stackmemo_add(struct fk_stackmemo *m, uint64_t h, size_t n,
				 const uint64_t *addrs, uint32_t depth);

/* Ends a parse that succeeded: forgets the stacks it did not meet. */
void fk_stackmemo_sweep(struct fk_stackmemo *m);

void fk_stackmemo_stats(const struct fk_stackmemo *m, struct fk_stackmemo_stats *st);

#endif
