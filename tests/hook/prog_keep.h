/* SPDX-License-Identifier: MIT */
/* The blocks a test host keeps on command (hook-alloc-prog's "grow",
 * "small" and "free", hook-fork-prog's "grow"), in a list grown with the
 * host's own realloc like everything else it allocates. Included once by
 * each program; KEEP_FIRST, the list's first room, may be defined before. */
#ifndef KEEP_FIRST
#define KEEP_FIRST 1024
#endif

static void **kept;
static size_t nkept, capkept;

/* Keeps p; -1 when p is NULL or out of memory (then p is freed). */
static inline int keep(void *p)
{
	if (!p)
		return -1;
	if (nkept == capkept) {
		size_t nc = capkept ? capkept * 2 : KEEP_FIRST;
		void **k = realloc(kept, nc * sizeof *k);

		if (!k) {
			free(p);
			return -1;
		}
		kept = k;
		capkept = nc;
	}
	kept[nkept++] = p;
	return 0;
}

/* Frees every block kept, and the list: nothing keep allocated stays in
 * use. */
static inline void keep_free(void)
{
	for (size_t i = 0; i < nkept; i++)
		free(kept[i]);
	free(kept);
	kept = NULL;
	nkept = capkept = 0;
}
