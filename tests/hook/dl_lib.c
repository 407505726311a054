/* SPDX-License-Identifier: MIT */
/* A library for dl-prog, built twice (libfk-dl-alpha.so, libfk-dl-beta.so)
 * with FKDL_FUNC naming its allocation function: the same code and size,
 * so the second, loaded after the first is unloaded, lands at its address
 * (tests/hook/maps-time.t). */
#include <stdlib.h>
#include <string.h>

__attribute__((visibility("default"))) void *fkdl_alloc(size_t n);

__attribute__((noinline)) void *FKDL_FUNC(size_t n);
__attribute__((noinline)) void *FKDL_FUNC(size_t n)
{
	char *p = malloc(n);

	if (p)
		memset(p, 1, n);
	return p;
}

void *fkdl_alloc(size_t n)
{
	void *p = FKDL_FUNC(n);

	__asm__ volatile("" ::: "memory");    /* not a tail call */
	return p;
}
