/* SPDX-License-Identifier: MIT */
/* Big anonymous memory on transparent huge pages (see bigmem.h). */
#include "bigmem.h"

#include <sys/mman.h>

void fk_big_advise(void *p, size_t n)
{
#ifdef MADV_HUGEPAGE
	if (p && n)
		madvise(p, n, MADV_HUGEPAGE);
#else
	(void)p, (void)n;
#endif
}

void *fk_big_alloc(size_t n)
{
	void *p = mmap(NULL, n ? n : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	fk_big_advise(p, n);
	return p;
}

void *fk_big_resize(void *p, size_t old, size_t n)
{
	void *q;

	if (!p)
		return fk_big_alloc(n);
	q = mremap(p, old, n, MREMAP_MAYMOVE);
	if (q == MAP_FAILED)
		return NULL;
	fk_big_advise(q, n);
	return q;
}

void fk_big_free(void *p, size_t n)
{
	if (p)
		munmap(p, n ? n : 1);
}
