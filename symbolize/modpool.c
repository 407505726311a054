/* SPDX-License-Identifier: MIT */
/* The first phase of resolving: a profile's addresses are looked up in
 * their modules on a small pool of threads, in three rounds: (1) each
 * module finds its debug file and lists the compressed debug sections it
 * needs; (2) those sections are inflated, the largest first, one job each
 * (a debug file's inflating is most of the work), alongside each module's
 * symbol table; (3) each module opens its DWARF index and looks its
 * addresses up (fk_smod_lookup), building the unit and unwind tables they
 * need.
 *
 * A module is only ever touched by one thread at a time, and nothing
 * shared is written: libdw and libelf are safe on distinct handles, and
 * names are interned afterwards, by the calling thread alone (symbolize.c).
 * Lookups do not depend on the order they run in, so the result does not
 * depend on the number of threads; a step that fails for want of memory is
 * left undone and is retried (and reported) by the calling thread. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grow.h"
#include "limits.h"
#include "symbolize_int.h"

/* More threads than this gain nothing on the modules of one process. */
#define MAX_THREADS 4

/* A job: a round's step for module m (sect WHOLE), or, in the inflating
 * round, one compressed section of m (sect its index) or m's symbol table
 * (sect FUNCS). Heavier jobs run first. */
struct job {
	struct fk_smod *m;
	size_t sect;
	size_t weight;
	size_t order;
};

#define WHOLE ((size_t)-1)
#define FUNCS ((size_t)-2)

struct pool {
	struct job *jobs;
	size_t njobs;
	int round;
	const struct fk_modaddr *addrs;
	size_t naddrs;
	const struct fk_symbolize_opts *o;
	pthread_mutex_t lock;
	size_t next;                   /* next job to take, under lock */
};

static void do_job(const struct pool *pl, const struct job *j)
{
	struct fk_smod *m = j->m;
	if (pl->round == 0) {
		fk_smod_reach(m, FK_SMOD_LISTED);
	} else if (pl->round == 1) {
		if (j->sect == FUNCS)
			fk_smod_reach(m, FK_SMOD_TABLED);
		else
			fk_dwline_inflate(m->dw_opened, j->sect);
	} else {
		/* A lookup that fails for want of memory is left undone. */
		for (size_t i = 0; i < pl->naddrs; i++)
			if (pl->addrs[i].mod == m)
				fk_smod_lookup(m, pl->addrs[i].addr, pl->addrs[i].out);
	}
}

static void *work(void *arg)
{
	struct pool *pl = arg;
	for (;;) {
		pthread_mutex_lock(&pl->lock);
		size_t i = pl->next < pl->njobs ? pl->next++ : pl->njobs;
		pthread_mutex_unlock(&pl->lock);
		if (i == pl->njobs)
			return NULL;
		do_job(pl, &pl->jobs[i]);
	}
}

/* A thread of the pool: the caller's start hook runs before it allocates
 * anything (the hook keeps its threads out of the profiles it serves). */
static void *worker(void *arg)
{
	struct pool *pl = arg;
	if (pl->o && pl->o->thread_start)
		pl->o->thread_start(pl->o->thread_ctx);
	return work(pl);
}

/* Heaviest first, then in the order listed. */
static int cmp_job(const void *a, const void *b)
{
	const struct job *x = a, *y = b;
	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Runs the jobs of a round on up to nthreads threads, this one included;
 * a thread that cannot be started leaves its share to the others. */
static void run(struct pool *pl, size_t nthreads)
{
	if (pl->njobs > 1)
		qsort(pl->jobs, pl->njobs, sizeof *pl->jobs, cmp_job);
	if (nthreads > pl->njobs)
		nthreads = pl->njobs;
	pl->next = 0;
	pthread_t tid[MAX_THREADS];
	size_t started = 0;
	for (size_t t = 1; t < nthreads; t++)
		if (pthread_create(&tid[started], NULL, worker, pl) == 0)
			started++;
	work(pl);
	for (size_t t = 0; t < started; t++)
		pthread_join(tid[t], NULL);
}

static int add_job(struct pool *pl, size_t *cap, struct fk_smod *m,
		   size_t sect, size_t weight)
{
	struct job *nv = fk_grow(pl->jobs, cap, pl->njobs, sizeof *nv, 16);
	if (!nv)
		return -1;
	pl->jobs = nv;
	pl->jobs[pl->njobs] = (struct job){ m, sect, weight, pl->njobs };
	pl->njobs++;
	return 0;
}

/* The modules of the addresses, in order of first address, weighed by
 * their number of addresses. */
static int list_modules(struct pool *pl, size_t *cap)
{
	for (size_t i = 0; i < pl->naddrs; i++) {
		struct fk_smod *m = pl->addrs[i].mod;
		size_t j;
		for (j = 0; j < pl->njobs && pl->jobs[j].m != m; j++)
			;
		if (j == pl->njobs && add_job(pl, cap, m, WHOLE, 0) != 0)
			return -1;
		pl->jobs[j].weight++;
	}
	return 0;
}

/* Bytes the DWARF of m inflates. */
static size_t dwarf_bytes(const struct fk_smod *m)
{
	size_t n = 0;
	for (size_t i = 0; m->dw_opened && i < fk_dwline_nsections(m->dw_opened); i++)
		n += fk_dwline_section_size(m->dw_opened, i);
	return n;
}

int fk_modpool_lookup(const struct fk_modaddr *addrs, size_t naddrs,
		      const struct fk_symbolize_opts *o)
{
	struct pool pl;
	memset(&pl, 0, sizeof pl);
	pl.o = o;
	pl.addrs = addrs;
	pl.naddrs = naddrs;
	size_t cap = 0;
	if (list_modules(&pl, &cap) != 0) {
		free(pl.jobs);
		return -1;
	}
	size_t nmods = pl.njobs;
	if (nmods == 0)
		return 0;
	struct fk_smod **mods = malloc(nmods * sizeof *mods);
	if (!mods || pthread_mutex_init(&pl.lock, NULL) != 0) {
		free(mods);
		free(pl.jobs);
		return -1;
	}
	for (size_t j = 0; j < nmods; j++)
		mods[j] = pl.jobs[j].m;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	size_t nthreads = ncpu > 1 ? (size_t)ncpu : 1;
	if (nthreads > MAX_THREADS)
		nthreads = MAX_THREADS;

	int rc = 0;
	pl.round = 0;
	run(&pl, nthreads);
	/* Round 2: sections by size; a symbol table costs about as much as
	 * inflating 64 bytes a symbol. */
	pl.njobs = 0;
	for (size_t j = 0; j < nmods && rc == 0; j++) {
		struct fk_smod *m = mods[j];
		int nsym = dwfl_module_getsymtab(m->mod);
		rc = add_job(&pl, &cap, m, FUNCS, nsym > 0 ? (size_t)nsym * 64 : 0);
		for (size_t i = 0; m->dw_opened && rc == 0 &&
		     i < fk_dwline_nsections(m->dw_opened); i++)
			rc = add_job(&pl, &cap, m, i,
				     fk_dwline_section_size(m->dw_opened, i));
	}
	if (rc == 0) {
		pl.round = 1;
		run(&pl, nthreads);
		/* Round 3: by bytes of DWARF, then by number of addresses. */
		pl.njobs = 0;
		rc = list_modules(&pl, &cap);
		for (size_t j = 0; j < pl.njobs; j++)
			pl.jobs[j].weight += dwarf_bytes(pl.jobs[j].m);
	}
	if (rc == 0) {
		pl.round = 2;
		run(&pl, nthreads);
	}
	pthread_mutex_destroy(&pl.lock);
	free(mods);
	free(pl.jobs);
	return rc;
}
