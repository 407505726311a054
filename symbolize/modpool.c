/* Prepares the modules a profile's addresses fall in on a small pool of
 * threads, before the addresses are resolved one by one, in three rounds:
 * (1) each module finds its debug file and lists the compressed debug
 * sections it needs; (2) those sections are inflated, the largest first,
 * one job each (a debug file's inflating is most of the work), alongside
 * each module's symbol table; (3) each module opens its DWARF index and
 * builds the unit and unwind tables its addresses need.
 *
 * A module is only ever touched by one thread, and nothing shared is
 * written: libdw and libelf are safe on distinct handles, and names are
 * interned later, by the resolving thread alone. What a thread builds is
 * exactly what resolving would build on first use, so the result does not
 * depend on the number of threads; a step that fails for want of memory is
 * left undone and is retried (and reported) when resolving. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "limits.h"
#include "symbolize_int.h"

/* More threads than this gain nothing on the modules of one process. */
#define MAX_THREADS 4

/* Lists m's compressed DWARF sections, once (the first step of
 * fk_smod_load_dwarf). */
static void open_dwarf(struct fk_smod *m)
{
	if (m->dw_tried || m->dw_open_tried)
		return;
	m->dw_open_tried = 1;
	/* The symbol table search finds the debug file, if any. */
	dwfl_module_getsymtab(m->mod);
	m->dw_opened = fk_dwline_open(m->debug_path ? m->debug_path : m->file,
				      m->bias);
}

void fk_smod_load_dwarf(struct fk_smod *m)
{
	if (m->dw_tried)
		return;
	open_dwarf(m);
	m->dw_tried = 1;
	if (m->dw_opened && fk_dwline_begin(m->dw_opened) == 0)
		m->dw = m->dw_opened;
	else
		fk_dwline_free(m->dw_opened);
	m->dw_opened = NULL;
	if (!m->dw && !m->debug_path)
		m->dw = fk_dwline_new(NULL, 0, m->mod);
}

int fk_smod_load_funcs(struct fk_smod *m)
{
	if (m->funcs_built)
		return 0;
	if (fk_functab_build(&m->funcs, m->mod) != 0)
		return -1;
	m->funcs_built = 1;
	return 0;
}

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

/* Does for addr what resolving does before it interns a name: the DWARF
 * chain, else the symbol (and its line), else the unwind-table start. */
static void warm(struct fk_smod *m, uint64_t addr)
{
	struct fk_dwframe dw[FK_MAX_INLINE];
	const char *file;
	uint32_t line;
	uint64_t start;
	int n = m->dw ? fk_dwline_lookup(m->dw, addr, dw, FK_MAX_INLINE) : 0;
	if (n > 0 && (dw[n - 1].name || dw[n - 1].linkage))
		return;
	if (fk_smod_load_funcs(m) != 0)
		return;
	if (fk_functab_find(&m->funcs, addr)) {
		if (m->dw)
			fk_dwline_src(m->dw, addr, &file, &line);
		return;
	}
	fk_ehframe_func_start(m->mod, &m->cfi, addr, &start);
}

static void do_job(const struct pool *pl, const struct job *j)
{
	struct fk_smod *m = j->m;
	if (pl->round == 0) {
		open_dwarf(m);
	} else if (pl->round == 1) {
		if (j->sect == FUNCS)
			fk_smod_load_funcs(m);
		else
			fk_dwline_inflate(m->dw_opened, j->sect);
	} else {
		fk_smod_load_dwarf(m);
		for (size_t i = 0; i < pl->naddrs; i++)
			if (pl->addrs[i].mod == m)
				warm(m, pl->addrs[i].addr);
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
	if (pl->njobs == *cap) {
		size_t n = *cap ? *cap * 2 : 16;
		struct job *nv = realloc(pl->jobs, n * sizeof *nv);
		if (!nv)
			return -1;
		pl->jobs = nv;
		*cap = n;
	}
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

int fk_modpool_prepare(const struct fk_modaddr *addrs, size_t naddrs,
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
