/* SPDX-License-Identifier: MIT */
/* Allocation lifetimes, the resident half's share: jemalloc 5.3's record
 * of its last sampled allocations (experimental.prof_recent.alloc_max)
 * turned on with the hook's thread, at FLAMEKIT_RECENT's bound. The
 * record is taken and served by the serving half (serve_recent.c). */
#include <string.h>
#include <sys/types.h>

#include "hook_int.h"

/* What fk_recent_install did, for the settings. */
static struct {
	long max;                  /* the list's bound as set or found; -1 unknown */
	const char *why;           /* why there is no record, or "" */
} rec = { .max = -1, .why = "" };

void fk_recent_install(void)
{
	long set = fk_env_get()->recent;
	ssize_t cur = 0, want;
	size_t sz = sizeof cur;
	int rc;

	if (fk_je_check(NULL) != FK_JE_OK)
		return;
	rc = fk_je_ctl("experimental.prof_recent.alloc_max", &cur, &sz, NULL, 0);
	if (rc != 0) {
		rec.why = "this jemalloc keeps no record of recent allocations "
			     "(experimental.prof_recent needs jemalloc 5.3)";
		return;
	}
	/* A bound given in MALLOC_CONF (prof_recent_alloc_max) is kept unless
	 * FLAMEKIT_RECENT says otherwise. */
	want = set >= 0 ? (ssize_t)set : cur != 0 ? cur : FK_HOOK_RECENT;
	if (want != cur &&
	    fk_je_ctl("experimental.prof_recent.alloc_max", NULL, NULL, &want, sizeof want) != 0) {
		rec.max = (long)cur;
		rec.why = "jemalloc refused the record's bound (experimental.prof_recent.alloc_max)";
		return;
	}
	rec.max = (long)want;
	if (want == 0)
		rec.why = "recording is off (FLAMEKIT_RECENT=0)";
}

void fk_recent_bound(long *max, const char **why)
{
	*max = rec.max;
	*why = rec.why;
}
