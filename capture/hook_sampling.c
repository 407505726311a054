/* SPDX-License-Identifier: MIT */
/* What jemalloc's sampling itself costs in its figures. jemalloc 5.3
 * (src/jemalloc.c imalloc_sample, src/arena.c arena_prof_promote) gives a
 * sampled small object (at most the largest small class, 14 KiB) a large
 * extent of the smallest large class (16 KiB with 4 KiB pages), page
 * aligned, and stats.allocated counts that class until the object is freed
 * (arena_dalloc_promoted demotes it first); so each live sampled small
 * object adds the smallest large class less its own size class. Counted
 * exactly from prof.stats.bins.<i>.live when jemalloc runs with
 * prof_stats:true, else estimated from a dump's raw counts. */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "hook_int.h"

/* The size classes, learnt once; under mu. */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int learnt;
static unsigned nbins;
static size_t *bin_size;           /* nbins sizes, ascending */
static size_t large_min;           /* arenas.lextent.0.size */
static int have_prof_stats;

/* 1 when the classes are known. */
static int learn(void)
{
	unsigned n = 0;
	size_t sz = sizeof n, lm = 0, lsz = sizeof lm;
	bool ps = false;
	size_t psz = sizeof ps;
	int rc;

	pthread_mutex_lock(&mu);
	if (learnt)
		goto out;
	if (fk_je_check(NULL) != FK_JE_OK)
		goto out;               /* again later: nothing is sampled anyway */
	learnt = 1;
	if (fk_je_ctl("arenas.nbins", &n, &sz, NULL, 0) != 0 || n == 0 || n > 1024 ||
	    fk_je_ctl("arenas.lextent.0.size", &lm, &lsz, NULL, 0) != 0)
		goto out;
	size_t *v = malloc(n * sizeof *v);
	if (!v)
		goto out;
	for (unsigned i = 0; i < n; i++) {
		char name[64];
		size_t bs = 0, bsz = sizeof bs;

		snprintf(name, sizeof name, "arenas.bin.%u.size", i);
		if (fk_je_ctl(name, &bs, &bsz, NULL, 0) != 0 || (i && bs <= v[i - 1])) {
			free(v);
			goto out;
		}
		v[i] = bs;
	}
	bin_size = v;
	nbins = n;
	large_min = lm;
	have_prof_stats = fk_je_ctl("opt.prof_stats", &ps, &psz, NULL, 0) == 0 && ps;
out:
	rc = bin_size != NULL;
	pthread_mutex_unlock(&mu);
	return rc;
}

int fk_sampling_exact(void)
{
	return learn() && have_prof_stats;
}

int64_t fk_sampling_cost(void)
{
	int64_t total = 0;

	if (!fk_sampling_exact())
		return -1;
	for (unsigned i = 0; i < nbins; i++) {
		struct { uint64_t req_sum, count; } live;     /* prof_stats_t */
		size_t sz = sizeof live;
		char name[64];

		snprintf(name, sizeof name, "prof.stats.bins.%u.live", i);
		if (fk_je_ctl(name, &live, &sz, NULL, 0) != 0)
			return -1;
		total += (int64_t)live.count * (int64_t)(large_min - bin_size[i]);
	}
	return total;
}

/* The size class holding size bytes, or 0 past the small classes. */
static size_t small_class(double size)
{
	size_t lo = 0, hi = nbins;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if ((double)bin_size[mid] < size)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < nbins ? bin_size[lo] : 0;
}

int64_t fk_sampling_estimate(const int64_t *objs, const int64_t *bytes, size_t n)
{
	double total = 0;

	if (!learn())
		return -1;
	for (size_t i = 0; i < n; i++) {
		size_t cls;

		if (objs[i] <= 0 || bytes[i] <= 0)
			continue;
		cls = small_class((double)bytes[i] / (double)objs[i]);
		if (cls)
			total += (double)objs[i] * (double)(large_min - cls);
	}
	return (int64_t)total;
}

void fk_sampling_atfork(int phase)
{
	if (phase == 0)
		pthread_mutex_lock(&mu);
	else
		pthread_mutex_unlock(&mu);
}
