/* SPDX-License-Identifier: MIT */
/* A site's sizes from a record of its samples (waste.h, struct
 * fk_waste_split): jemalloc's experimental.prof_recent records each
 * sampled allocation's usable size and stack, where a heap dump keeps
 * only a stack's sum of bytes and objects; one stack that allocates
 * several sizes (a program's malloc wrapper) is split across the size
 * classes its records fall in, in use and freed apart. */
#include "waste.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "hash.h"
#include "io.h"
#include "life.h"
#include "u64map.h"

/* The most leading frames a record's stack may have beyond the profile's
 * (the allocator's own, which symbolize cuts: a few). */
#define MAX_CUT 16

struct cell {
	uint32_t stack;
	int32_t bin;                   /* small class, or FK_WASTE_LARGE */
	double live, freed;            /* unbiased objects of the records */
	double live_bytes;             /* unbiased bytes of the live ones */
};

struct fk_waste_split {
	const struct fk_jestats *st;
	const struct fk_profile *p;
	struct fk_u64map stacks;       /* hash of a stack's addresses -> its index */
	struct fk_u64map cells;        /* stack << 16 | class + 1 -> cell index */
	struct cell *cell;
	size_t ncells, cap;
	uint64_t records, matched;
	int sorted;
};

/* A bare stack ("@", depth 0) may have no addresses at all. */
static uint64_t stack_hash(const uint64_t *addrs, uint32_t depth)
{
	return depth ? fk_hash_long(addrs, (size_t)depth * sizeof *addrs) : 0;
}

struct fk_waste_split *fk_waste_split_new(const struct fk_jestats *st,
					  const struct fk_profile *p)
{
	struct fk_waste_split *sp = calloc(1, sizeof *sp);

	if (!sp)
		return NULL;
	sp->st = st;
	sp->p = p;
	fk_u64map_init(&sp->stacks);
	fk_u64map_init(&sp->cells);
	if (p->nstacks >= UINT32_MAX || fk_u64map_reserve(&sp->stacks, p->nstacks) < 0) {
		fk_waste_split_free(sp);
		return NULL;
	}
	/* Two stacks of one hash (or one stack twice): the first is kept,
	 * and a record of the other is matched by its addresses or dropped. */
	for (size_t i = 0; i < p->nstacks; i++)
		if (fk_u64map_add(&sp->stacks, stack_hash(p->stacks[i].addrs, p->stacks[i].depth),
				  (uint32_t)i, NULL) < 0) {
			fk_waste_split_free(sp);
			return NULL;
		}
	return sp;
}

void fk_waste_split_free(struct fk_waste_split *sp)
{
	if (!sp)
		return;
	fk_u64map_release(&sp->stacks);
	fk_u64map_release(&sp->cells);
	free(sp->cell);
	free(sp);
}

int fk_waste_split_add(void *ctx, uint64_t usize, int released, const uint64_t *addrs,
		       uint32_t depth)
{
	struct fk_waste_split *sp = ctx;
	const struct fk_profile *p = sp->p;
	uint32_t i, k;
	int bin;
	uint64_t key;
	double wt = 1;
	struct cell *c;

	sp->records++;
	/* A symbolized profile's stacks lost their allocator frames (the
	 * leaf's first few): the record's stack matches without them. */
	for (uint32_t cut = 0;; cut++) {
		if (cut > MAX_CUT || cut >= depth)
			return 0;
		i = fk_u64map_get(&sp->stacks, stack_hash(addrs + cut, depth - cut));
		if (i != UINT32_MAX && p->stacks[i].depth == depth - cut &&
		    (depth == cut ||
		     memcmp(p->stacks[i].addrs, addrs + cut, (size_t)(depth - cut) * sizeof *addrs) == 0))
			break;
	}
	sp->matched++;
	bin = fk_jestats_class(sp->st, (double)usize);
	/* One record stands for 1/(1-exp(-size/R)) allocations of its size,
	 * as a stack's counts do (jeprof's unbiasing). */
	if (p->period > 0 && usize > 0)
		wt = 1 / -expm1(-(double)usize / (double)p->period);
	key = (uint64_t)i << 16 | (uint64_t)(bin + 1);
	k = fk_u64map_get(&sp->cells, key);
	if (k == UINT32_MAX) {
		void *g = fk_grow(sp->cell, &sp->cap, sp->ncells, sizeof *sp->cell, 64);

		if (!g || sp->ncells >= UINT32_MAX - 1)
			return -1;
		sp->cell = g;
		k = (uint32_t)sp->ncells;
		if (fk_u64map_put(&sp->cells, key, k) < 0)
			return -1;
		sp->cell[sp->ncells++] = (struct cell){ i, bin, 0, 0, 0 };
	}
	c = &sp->cell[k];
	if (released) {
		c->freed += wt;
	} else {
		c->live += wt;
		c->live_bytes += wt * (double)usize;
	}
	return 0;
}

static int by_stack(const void *a, const void *b)
{
	const struct cell *x = a, *y = b;

	if (x->stack != y->stack)
		return x->stack < y->stack ? -1 : 1;
	return x->bin < y->bin ? -1 : x->bin > y->bin;
}

void fk_waste_split_counts(const struct fk_waste_split *sp, uint64_t *records,
			   uint64_t *matched)
{
	*records = sp ? sp->records : 0;
	*matched = sp ? sp->matched : 0;
}

size_t fk_waste_split_ncells(struct fk_waste_split *sp)
{
	if (!sp->sorted) {
		if (sp->ncells)
			qsort(sp->cell, sp->ncells, sizeof *sp->cell, by_stack);
		fk_u64map_release(&sp->cells);
		sp->sorted = 1;
	}
	return sp->ncells;
}

size_t fk_waste_split_sites(const struct fk_waste_split *sp, size_t stack, double live,
			    double freed, struct fk_waste_site *out)
{
	size_t lo = 0, hi = sp->ncells, end;
	double sl = 0, sf = 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sp->cell[mid].stack < stack)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < sp->ncells && sp->cell[end].stack == stack; end++) {
		sl += sp->cell[end].live;
		sf += sp->cell[end].freed;
	}
	/* The objects in use go as the live records do, the freed as the
	 * freed ones; where the record holds none of one kind (its live
	 * objects older than the record), as all its records do. */
	for (size_t k = lo; k < end; k++) {
		const struct cell *c = &sp->cell[k];
		struct fk_waste_site *s = &out[k - lo];
		double all = c->live + c->freed, mean;

		memset(s, 0, sizeof *s);
		s->stack = stack;
		s->bin = c->bin;
		s->by_record = 1;
		s->live_objs = live * (sl > 0 ? c->live / sl : all / (sl + sf));
		s->freed_objs = freed * (sf > 0 ? c->freed / sf : all / (sl + sf));
		mean = c->live > 0 ? c->live_bytes / c->live
			: c->bin >= 0 ? (double)sp->st->bins[c->bin].size : 0;
		s->live_bytes = s->live_objs * mean;
	}
	return end - lo;
}

struct fk_waste_split *fk_waste_split_read(const struct fk_jestats *st,
					   const struct fk_profile *p, const char *data,
					   size_t len, struct fk_err *err)
{
	struct fk_waste_split *sp = fk_waste_split_new(st, p);
	struct fk_life_info info;

	if (!sp) {
		fk_err_set(err, FK_ENOMEM, 0, "out of memory");
		return NULL;
	}
	if (fk_life_each(data, len, fk_waste_split_add, sp, &info, err) < 0) {
		fk_waste_split_free(sp);
		return NULL;
	}
	return sp;
}

struct fk_waste_split *fk_waste_split_load(const struct fk_jestats *st,
					   const struct fk_profile *p, const char *path,
					   struct fk_err *err)
{
	struct fk_waste_split *sp;
	char *data;
	size_t len;
	int mapped;

	if (fk_map_text_input(strcmp(path, "-") ? path : NULL, &data, &len, &mapped, err) < 0)
		return NULL;
	sp = fk_waste_split_read(st, p, data, len, err);
	fk_release_input(data, len, mapped);
	return sp;
}
