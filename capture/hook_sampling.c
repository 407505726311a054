/* SPDX-License-Identifier: MIT */
/* What jemalloc's sampling itself costs in its figures, under each
 * version's accounting (src/jemalloc.c imalloc_sample, src/arena.c
 * arena_prof_promote and arena_large_malloc_stats_update). A sampled small
 * object (at most the largest small class, 14 KiB with 4 KiB pages) gets
 * an extent of its own, plus a page of padding with opt.cache_oblivious:
 * - up to 5.3.0-115 (Debian's 5.3.0, tikv-jemallocator 0.6) the extent is
 *   the smallest large class (16 KiB), and stats.allocated counts that
 *   class until the object is freed;
 * - from 5.3.0-116 (commit 07a2eab3; 5.3.1, tikv-jemallocator 0.7) it is
 *   the object's class rounded up to a page, and stats.allocated leaves
 *   the object out altogether unless that rounding reaches the smallest
 *   large class (which it counts, as before).
 * Measured here (40 000 kept objects at lg_prof_sample 12, prof_stats,
 * against the same run unsampled): 1 KiB objects, 5.3.0: allocated
 * +134.8 MB, active +170.7 MB for 8775 live samples; 5.3.1: allocated
 * -9.04 MB, active +63.3 MB for 8826; 13000-byte objects (class 14336):
 * allocated +2048 B and active +6144 B a sample on both.
 * Counted exactly from prof.stats.bins.<i>.live when jemalloc runs with
 * prof_stats:true, else estimated from a dump's raw counts. */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hook_int.h"
#include "jeversion.h"

/* The size classes and the version's accounting, learnt once; under sm.mu. */
static struct {
	pthread_mutex_t mu;
	int learnt;
	unsigned nbins;
	size_t *bin_size;              /* nbins sizes, ascending */
	struct fk_samp_geom geom;
	int have_prof_stats;
	/* The newest estimate's bytes left out of stats.allocated; -1 none yet. */
	int64_t est_uncounted;
} sm = { .mu = PTHREAD_MUTEX_INITIALIZER, .est_uncounted = -1 };

void fk_sampling_add(const struct fk_samp_geom *g, size_t cls, double count,
		     struct fk_samp_cost *c)
{
	size_t ext = g->large_min;

	if (count <= 0 || cls >= g->large_min)
		return;
	if (g->page_rounded && g->page)
		ext = (cls + g->page - 1) / g->page * g->page;
	if (ext < g->large_min)
		c->uncounted += count * (double)cls;
	else
		c->allocated += count * (double)(g->large_min - cls);
	c->active += count * (double)(ext + g->large_pad - cls);
}

/* A size_t setting, or 0. */
static size_t size_ctl(const char *name)
{
	size_t v = 0, sz = sizeof v;

	return fk_je_ctl(name, &v, &sz, NULL, 0) == 0 ? v : 0;
}

/* A bool setting, or 0. */
static int bool_ctl(const char *name)
{
	bool b = false;
	size_t sz = sizeof b;

	return fk_je_ctl(name, &b, &sz, NULL, 0) == 0 && b;
}

/* 1 when the classes are known. */
static int learn(void)
{
	struct fk_je_copy cp;
	size_t ncopies = 0;
	const char *note = "";
	unsigned n = 0;
	size_t sz = sizeof n;
	int rc;

	pthread_mutex_lock(&sm.mu);
	if (sm.learnt)
		goto out;
	if (fk_je_check(NULL) != FK_JE_OK || fk_je_chosen(&cp, &ncopies, &note) < 0)
		goto out;               /* again later: nothing is sampled anyway */
	sm.learnt = 1;
	sm.geom.page = size_ctl("arenas.page");
	sm.geom.large_min = size_ctl("arenas.lextent.0.size");
	if (fk_je_ctl("arenas.nbins", &n, &sz, NULL, 0) != 0 || n == 0 || n > 1024 ||
	    sm.geom.large_min == 0 || sm.geom.page == 0)
		goto out;
	size_t *v = malloc(n * sizeof *v);
	if (!v)
		goto out;
	for (unsigned i = 0; i < n; i++) {
		char name[64];

		snprintf(name, sizeof name, "arenas.bin.%u.size", i);
		v[i] = size_ctl(name);
		if (v[i] == 0 || (i && v[i] <= v[i - 1])) {
			free(v);
			goto out;
		}
	}
	sm.bin_size = v;
	sm.nbins = n;
	sm.geom.large_pad = bool_ctl("opt.cache_oblivious") ? sm.geom.page : 0;
	sm.geom.page_rounded = fk_jeversion_page_rounded(cp.version);
	sm.have_prof_stats = bool_ctl("opt.prof_stats");
out:
	rc = sm.bin_size != NULL;
	pthread_mutex_unlock(&sm.mu);
	return rc;
}

int fk_sampling_geom(struct fk_samp_geom *g)
{
	if (!learn())
		return -1;
	*g = sm.geom;
	return 0;
}

int fk_sampling_exact(void)
{
	return learn() && sm.have_prof_stats;
}

/* The figures of the live sampled objects, from prof.stats; -1 without. */
static int counted(struct fk_samp_cost *c)
{
	memset(c, 0, sizeof *c);
	if (!fk_sampling_exact())
		return -1;
	for (unsigned i = 0; i < sm.nbins; i++) {
		struct { uint64_t req_sum, count; } live;     /* prof_stats_t */
		size_t sz = sizeof live;
		char name[64];

		snprintf(name, sizeof name, "prof.stats.bins.%u.live", i);
		if (fk_je_ctl(name, &live, &sz, NULL, 0) != 0)
			return -1;
		fk_sampling_add(&sm.geom, sm.bin_size[i], (double)live.count, c);
	}
	return 0;
}

int64_t fk_sampling_cost(void)
{
	struct fk_samp_cost c;

	return counted(&c) < 0 ? -1 : (int64_t)c.allocated;
}

int64_t fk_sampling_uncounted(void)
{
	struct fk_samp_cost c;
	int64_t v;

	if (counted(&c) == 0)
		return (int64_t)c.uncounted;
	pthread_mutex_lock(&sm.mu);
	v = sm.est_uncounted;
	pthread_mutex_unlock(&sm.mu);
	return v;
}

/* The size class holding size bytes, or 0 past the small classes. */
static size_t small_class(double size)
{
	size_t lo = 0, hi = sm.nbins;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if ((double)sm.bin_size[mid] < size)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < sm.nbins ? sm.bin_size[lo] : 0;
}

int64_t fk_sampling_estimate(const int64_t *objs, const int64_t *bytes, size_t n)
{
	struct fk_samp_cost c = { 0, 0, 0 };

	if (!learn())
		return -1;
	for (size_t i = 0; i < n; i++) {
		size_t cls;

		if (objs[i] <= 0 || bytes[i] <= 0)
			continue;
		cls = small_class((double)bytes[i] / (double)objs[i]);
		if (cls)
			fk_sampling_add(&sm.geom, cls, (double)objs[i], &c);
	}
	pthread_mutex_lock(&sm.mu);
	sm.est_uncounted = (int64_t)c.uncounted;
	pthread_mutex_unlock(&sm.mu);
	return (int64_t)c.allocated;
}

void fk_sampling_atfork(int phase)
{
	if (phase == 0)
		pthread_mutex_lock(&sm.mu);
	else
		pthread_mutex_unlock(&sm.mu);
}
