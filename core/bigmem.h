/* SPDX-License-Identifier: MIT */
/* Big anonymous memory on transparent huge pages: the one place that maps,
 * grows (mremap: the page tables move, the bytes are not copied) and
 * advises memory. A 4 KiB page fault costs 10-20 us on the machines we run
 * on, a 2 MiB one about the same (bench/README.md, "Memory is the cost on
 * this machine"), so big buffers ask for huge pages. */
#ifndef FK_BIGMEM_H
#define FK_BIGMEM_H

#include <stddef.h>

/* The size of a transparent huge page. */
#define FK_HUGE_PAGE ((size_t)2 << 20)

/* n zeroed bytes, page-aligned, on huge pages where allowed; NULL when out
 * of memory. Release with fk_big_free(p, n). */
void *fk_big_alloc(size_t n);

/* Grows (or shrinks) p from old to n bytes, keeping its contents; p NULL
 * (old 0) allocates. On failure returns NULL and p stays valid. */
void *fk_big_resize(void *p, size_t old, size_t n);

/* Releases what fk_big_alloc or fk_big_resize returned. NULL is a no-op. */
void fk_big_free(void *p, size_t n);

/* Asks for huge pages on [p, p + n) (any memory: heap, mappings). */
void fk_big_advise(void *p, size_t n);

#endif
