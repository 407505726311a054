/* SPDX-License-Identifier: MIT */
/* The waste estimate (waste.h): jemalloc's figures split into RSS's
 * parts, each small class's slab waste, and that waste laid to the sites
 * of a heap profile by the holes their frees would leave. */
#include "waste.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jeversion.h"

/* jemalloc's rtree.h for x86-64 and arm64 builds: 48 significant address
 * bits (LG_VADDR), of which those above the page split into two levels,
 * the leaf's the larger half; a leaf element is one word there. */
#define RTREE_LG_VADDR 48
#define RTREE_MAX_BITS 36              /* two levels up to here, else three */
#define RTREE_ELM 8

static const char *const parts[FK_WASTE_NPARTS] = {
	"live", "tcache", "slab_holes", "slab_tails", "large_pad", "dirty", "muzzy",
	"metadata", "hook", "files", "other" };

const char *fk_waste_part_name(int i)
{
	return i >= 0 && i < FK_WASTE_NPARTS ? parts[i] : NULL;
}

void fk_waste_release(struct fk_waste *w)
{
	free(w->sites);
	free(w->classes);
	w->sites = NULL;
	w->classes = NULL;
	w->nsites = w->nclasses = 0;
}

static uint64_t less(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/* How far a dump's mean of one size may stray from it: jemalloc 5.3
 * writes a stack's counts so that jeprof's formula unbiases them
 * (prof_unbias), and their bytes over objects come out off the objects'
 * usable size u by an amount that grows with u over the sampling
 * interval R (measured: 0.001 % at u/R 0.008, 0.03 % at 0.06, 0.5 % at
 * 0.25, 1.6 % at 0.5, 2.6-3.1 % from 1 to 3.5): this bound, 0.1 % plus
 * 4 % of u/R up to 1, holds them all. */
static double mean_tolerance(double u, double period)
{
	return 0.001 + 0.04 * (period > 0 && u < period ? u / period : 1);
}

/* The holes (regions) a site with l in use and f freed leaves in slabs of
 * n regions (waste.h). */
static double holes(double l, double f, double n)
{
	double q, h;

	if (l <= 0 || f <= 0 || n < 2)
		return 0;
	q = l / (l + f);
	h = (l + f) * (1 - pow(1 - q, n)) - l;
	if (h > f)
		h = f;
	if (h > l * (n - 1))
		h = l * (n - 1);
	return h > 0 ? h : 0;
}

/* Sites by class (small by index, large last), then waste, then bytes in
 * use, then stack. */
static int by_class(const void *a, const void *b)
{
	const struct fk_waste_site *x = a, *y = b;
	unsigned cx = (unsigned)x->bin, cy = (unsigned)y->bin;  /* large (-1) last */

	if (cx != cy)
		return cx < cy ? -1 : 1;
	if (x->waste != y->waste)
		return x->waste > y->waste ? -1 : 1;
	if (x->live_bytes != y->live_bytes)
		return x->live_bytes > y->live_bytes ? -1 : 1;
	return x->stack < y->stack ? -1 : x->stack > y->stack;
}

static int by_waste(const void *a, const void *b)
{
	const struct fk_waste_class *x = a, *y = b;

	if (x->waste != y->waste)
		return x->waste > y->waste ? -1 : 1;
	return x->bin < y->bin ? -1 : x->bin > y->bin;
}

/* Whether a stack's mean size, bytes over objects, is more than the
 * tolerance away from its small class: a stack of several sizes (a large
 * mean is taken as one size: the large classes hold no slab). */
static int mixed_mean(const struct fk_jestats *st, int64_t bytes, int64_t objs,
		      uint64_t period)
{
	double mean, u;
	int bin;

	if (objs <= 0 || bytes <= 0)
		return 0;
	mean = (double)bytes / (double)objs;
	if ((bin = fk_jestats_class(st, mean)) == FK_WASTE_LARGE)
		return 0;
	u = (double)st->bins[bin].size;
	return fabs(mean / u - 1) > mean_tolerance(u, (double)period);
}

size_t fk_waste_mixed_stacks(const struct fk_jestats *st, const struct fk_profile *p)
{
	size_t n = 0;

	for (size_t i = 0; p && i < p->nstacks; i++) {
		const struct fk_counts *c = &p->stacks[i].c;

		n += mixed_mean(st, c->bytes, c->objs, p->period) ||
		     mixed_mean(st, c->acc_bytes, c->acc_objs, p->period);
	}
	return n;
}

/* The profile's sites and their class, a stack split by sp's records
 * where it has them; sites[] by class. */
static int sites_of(struct fk_waste *w, const struct fk_jestats *st,
		    const struct fk_profile *p, struct fk_waste_split *sp, struct fk_err *err)
{
	size_t extra = sp ? fk_waste_split_ncells(sp) : 0;

	if (!p || p->nstacks == 0)
		return 0;
	if (extra > SIZE_MAX / sizeof *w->sites - p->nstacks ||
	    !(w->sites = calloc(p->nstacks + extra, sizeof *w->sites)))
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct fk_counts *c = &p->stacks[i].c;
		struct fk_values v = fk_unbias(p, c);
		struct fk_waste_site *s = &w->sites[w->nsites];
		double size, live = v.objs > 0 ? v.objs : 0;
		double freed = p->has_accum && v.acc_objs > live ? v.acc_objs - live : 0;
		size_t n;

		if (sp && live + freed > 0 && (n = fk_waste_split_sites(sp, i, live, freed, s))) {
			w->nsites += n;
			continue;
		}
		if (c->objs > 0)
			size = (double)c->bytes / (double)c->objs;
		else if (c->acc_objs > 0)
			size = (double)c->acc_bytes / (double)c->acc_objs;
		else
			continue;
		s->stack = i;
		s->bin = fk_jestats_class(st, size);
		s->live_objs = live;
		s->live_bytes = v.bytes > 0 ? v.bytes : 0;
		s->freed_objs = freed;
		w->nsites++;
	}
	return 0;
}

/* Lays each class's waste to its sites. */
static void attribute(struct fk_waste *w, const struct fk_jestats *st, double *est)
{
	size_t i = 0;

	while (i < w->nsites && w->sites[i].bin != FK_WASTE_LARGE) {
		int bin = w->sites[i].bin;
		const struct fk_jestats_bin *b = &st->bins[bin];
		double sum = 0, have = (double)less(b->curslabs * b->nregs, b->curregs) * (double)b->size;
		size_t k, end;

		for (end = i; end < w->nsites && w->sites[end].bin == bin; end++) {
			struct fk_waste_site *s = &w->sites[end];

			est[end] = holes(s->live_objs, s->freed_objs, (double)b->nregs) * (double)b->size;
			sum += est[end];
		}
		for (k = i; k < end; k++)
			w->sites[k].waste = sum > have ? est[k] * have / sum : est[k];
		i = end;
	}
	for (; i < w->nsites; i++) {
		/* A large extent's pad: one page with cache_oblivious. */
		if (st->cache_oblivious == 1)
			w->sites[i].waste = w->sites[i].live_objs * (double)st->page;
	}
}

/* The bits a radix tree leaf takes for pages of page bytes, or -1 for a
 * geometry this model does not know. */
static int leaf_bits(uint64_t page)
{
	int lg = 0, nsb;

	if (page < 1024 || (page & (page - 1)))
		return -1;
	while ((UINT64_C(1) << lg) < page)
		lg++;
	nsb = RTREE_LG_VADDR - lg;
	return nsb > RTREE_MAX_BITS ? -1 : nsb - nsb / 2;
}

/* Whether maps[i] may hold jemalloc's extents: anonymous, private and
 * writable, neither a thread's stack (above a PROT_NONE guard) nor a
 * module's .bss (right after its file's pages). */
static int extent_like(const struct fk_mapping *m, size_t i)
{
	const struct fk_mapping *prev = i ? &m[i - 1] : NULL;

	if (m[i].inode || m[i].path[0] || strcmp(m[i].perms, "rw-p") != 0 ||
	    m[i].limit <= m[i].start)
		return 0;
	return !prev || prev->limit != m[i].start ||
	       (strncmp(prev->perms, "---", 3) != 0 && !prev->path[0]);
}

/* Of units a..b (mappings ascending), those past *last (UINT64_MAX:
 * none yet), which becomes the highest seen. */
static uint64_t new_units(uint64_t a, uint64_t b, uint64_t *last)
{
	uint64_t n = *last == UINT64_MAX || a > *last ? b - a + 1 : b > *last ? b - *last : 0;

	if (*last == UINT64_MAX || b > *last)
		*last = b;
	return n;
}

void fk_waste_rtree_of(struct fk_waste_rtree *r, const struct fk_jestats *st,
		       const struct fk_mapping *m, size_t n)
{
	int bits = leaf_bits(st->page);
	uint64_t lg_span, win, leaf = UINT64_MAX, last = UINT64_MAX, spans = 0, wins = 0;

	memset(r, 0, sizeof *r);
	if (bits < 0 || !m || !n)
		return;
	for (lg_span = 0; (UINT64_C(1) << lg_span) < st->page; lg_span++)
		;
	lg_span += (uint64_t)bits;
	win = st->page / RTREE_ELM * st->page;      /* what one leaf page names */
	for (size_t i = 0; i < n; i++) {
		if (!extent_like(m, i))
			continue;
		spans += new_units(m[i].start >> lg_span, (m[i].limit - 1) >> lg_span, &leaf);
		wins += new_units(m[i].start / win, (m[i].limit - 1) / win, &last);
	}
	if (st->metadata_rtree != FK_JESTATS_NONE && st->metadata_rtree >= 0) {
		r->counted = (uint64_t)st->metadata_rtree;
		r->leaves = r->counted / (RTREE_ELM << bits);
	} else {
		r->leaves = spans;
		r->counted = spans * (RTREE_ELM << bits);
		r->from_maps = 1;
	}
	r->resident = wins > r->counted / st->page ? r->counted : wins * st->page;
}

/* The live sampled small objects in p's raw counts, and what the parts
 * count for them past the page each touches (waste.h; the accounting of
 * capture/hook_sampling.c): 5.3.0 counts each in the smallest large class,
 * allocated and active, and a page of padding active; 5.3.1 its class
 * rounded to a page and the padding, active, and (added_back: the hook's
 * figures, fk_arena_split) the class in the program's allocated figure. */
static void sampled_of(struct fk_waste *w, const struct fk_jestats *st,
		       const struct fk_profile *p, int added_back)
{
	uint64_t page = st->page, pad = st->cache_oblivious == 1 ? st->page : 0;
	uint64_t large_min = st->nlext && st->lext[0].size ? st->lext[0].size : 4 * page;
	int rounded = fk_jeversion_page_rounded(st->version);

	if (!p || !page)
		return;
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct fk_counts *c = &p->stacks[i].c;
		uint64_t cls, touched, ext, counted;
		int bin;

		if (c->objs <= 0 || c->bytes <= 0)
			continue;
		if ((bin = fk_jestats_class(st, (double)c->bytes / (double)c->objs)) == FK_WASTE_LARGE)
			continue;
		cls = st->bins[bin].size;
		touched = (cls + page - 1) / page * page;
		ext = rounded ? touched : large_min;
		counted = ext + pad + (added_back && rounded && ext < large_min ? cls : 0);
		w->samples += (double)c->objs;
		w->sampled_untouched += (double)c->objs * (double)less(counted, touched);
	}
}

/* RSS's parts from st and the process's figures. */
static void parts_of(struct fk_waste *w, const struct fk_jestats *st,
		     const struct fk_waste_proc *pr)
{
	uint64_t slabs = 0, sum = 0, gone = (uint64_t)llround(w->sampled_untouched), pad;

	for (size_t c = 0; c < st->nbins; c++)
		slabs += st->bins[c].curslabs * st->bins[c].slab_size;
	for (size_t c = 0; c < st->nlext; c++)
		w->large_extents += st->lext[c].curlextents;
	w->large_pad = less(less(st->active, slabs), st->large_allocated);
	w->part[FK_PART_LIVE] = (int64_t)less(st->allocated, st->tcache_bytes);
	w->part[FK_PART_TCACHE] = (int64_t)st->tcache_bytes;
	w->part[FK_PART_HOLES] = st->have_bins ? (int64_t)w->holes : -1;
	w->part[FK_PART_TAILS] = st->have_bins ? (int64_t)w->tails : -1;
	w->part[FK_PART_LARGE_PAD] = st->have_bins ? (int64_t)w->large_pad : -1;
	if (!st->have_bins)          /* then what is active and not allocated, whole */
		w->part[FK_PART_HOLES] = (int64_t)less(st->active, st->allocated);
	w->part[FK_PART_DIRTY] = (int64_t)(st->pdirty * st->page);
	w->part[FK_PART_MUZZY] = (int64_t)(st->pmuzzy * st->page);
	w->part[FK_PART_METADATA] = (int64_t)less(less(st->resident, st->active +
							    st->pdirty * st->page),
						  less(w->rtree.counted, w->rtree.resident));
	if (st->have_bins) {         /* sampled objects: out of the padding, then live */
		pad = gone < w->large_pad ? gone : w->large_pad;
		w->part[FK_PART_LARGE_PAD] -= (int64_t)pad;
		w->part[FK_PART_LIVE] = (int64_t)less((uint64_t)w->part[FK_PART_LIVE], gone - pad);
	}
	if (!st->stats)              /* built without statistics: none is known */
		for (int i = FK_PART_LIVE; i <= FK_PART_METADATA; i++)
			w->part[i] = -1;
	w->part[FK_PART_HOOK] = pr ? pr->hook_resident : -1;
	w->part[FK_PART_FILES] = pr ? pr->file_rss : -1;
	w->part[FK_PART_OTHER] = -1;
	for (int i = 0; i < FK_PART_OTHER; i++)
		if (w->part[i] > 0)
			sum += (uint64_t)w->part[i];
	if (pr && pr->rss >= 0 && pr->file_rss >= 0)
		w->part[FK_PART_OTHER] = (int64_t)pr->rss - (int64_t)sum;
}

int fk_waste_compute(struct fk_waste *w, const struct fk_jestats *st,
		     const struct fk_profile *p, const struct fk_waste_proc *pr,
		     struct fk_err *err)
{
	return fk_waste_compute_split(w, st, p, pr, NULL, err);
}

int fk_waste_compute_split(struct fk_waste *w, const struct fk_jestats *st,
			   const struct fk_profile *p, const struct fk_waste_proc *pr,
			   struct fk_waste_split *sp, struct fk_err *err)
{
	double *est = NULL;
	size_t mixed;

	memset(w, 0, sizeof *w);
	if (!st->stats)
		snprintf(w->note[0], sizeof w->note[0], "jemalloc was built without statistics "
			 "(config.stats false): no figure per class or page, only the sites' "
			 "bytes in use");
	else if (!st->have_bins)
		snprintf(w->note[0], sizeof w->note[0], "the statistics hold no per-class figures "
			 "(printed without bins): what is active and not allocated is shown as one "
			 "figure, and no site is blamed");
	if (pr && pr->have_rtree)
		w->rtree = pr->rtree;
	else if (p)
		fk_waste_rtree_of(&w->rtree, st, p->maps, p->nmaps);
	/* Without per-class figures the sites are listed, with their bytes,
	 * and none is blamed. */
	if (sites_of(w, st, p, sp, err) < 0)
		return -1;
	if (st->have_bins)
		sampled_of(w, st, p, pr != NULL);
	fk_waste_split_counts(sp, &w->records, &w->matched);
	if (sp && p)
		snprintf(w->note[2], sizeof w->note[2], "each site's sizes from a record of %llu "
			 "sampled allocations, %llu of them at the profile's stacks; a stack the "
			 "record misses is in the class of its mean size",
			 (unsigned long long)w->records, (unsigned long long)w->matched);
	else if (p && st->have_bins && (mixed = fk_waste_mixed_stacks(st, p)))
		snprintf(w->note[2], sizeof w->note[2], "no record of the samples' sizes (a "
			 "lifetimes record): %zu of the stacks allocate several sizes, each in "
			 "the class of its mean size", mixed);
	if (st->have_bins && p && !p->has_accum)
		snprintf(w->note[1], sizeof w->note[1], "the profile has no accumulated counts "
			 "(prof_accum:false): no site is blamed for a class's waste, which is shown "
			 "unattributed beside the sites allocating in it");
	w->from_accum = st->have_bins && p && p->has_accum;
	if (w->nsites && !(est = calloc(w->nsites, sizeof *est))) {
		fk_waste_release(w);
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	}
	if (w->nsites) {
		qsort(w->sites, w->nsites, sizeof *w->sites, by_class);
		if (st->have_bins) {
			attribute(w, st, est);
			qsort(w->sites, w->nsites, sizeof *w->sites, by_class);
		}
	}
	free(est);
	if (st->have_bins && !(w->classes = calloc(st->nbins ? st->nbins : 1, sizeof *w->classes))) {
		fk_waste_release(w);
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	}
	for (size_t c = 0, i = 0; st->have_bins && c < st->nbins; c++) {
		const struct fk_jestats_bin *b = &st->bins[c];
		struct fk_waste_class *k = &w->classes[w->nclasses];

		while (i < w->nsites && w->sites[i].bin != FK_WASTE_LARGE && w->sites[i].bin < (int)c)
			i++;
		if (b->curslabs == 0)
			continue;
		k->bin = c;
		k->waste = less(b->curslabs * b->nregs, b->curregs) * b->size;
		k->tail = b->curslabs * less(b->slab_size, b->nregs * b->size);
		k->first = i;
		for (; i < w->nsites && w->sites[i].bin == (int)c; i++)
			if (w->sites[i].waste > 0) {
				k->nsites++;
				k->attributed += w->sites[i].waste;
			}
		w->holes += k->waste;
		w->tails += k->tail;
		w->attributed += (uint64_t)llround(k->attributed);
		w->nclasses++;
	}
	if (w->nclasses)
		qsort(w->classes, w->nclasses, sizeof *w->classes, by_waste);
	parts_of(w, st, pr);
	return 0;
}

void fk_waste_apply(struct fk_profile *p, const struct fk_waste *w)
{
	for (size_t i = 0; i < p->nstacks; i++) {
		p->stacks[i].c = (struct fk_counts){ 0, 0, 0, 0 };
		p->stacks[i].nthr = 0;
	}
	for (size_t i = 0; i < w->nsites; i++) {
		struct fk_counts *c = &p->stacks[w->sites[i].stack].c;
		int64_t b = (int64_t)llround(w->sites[i].waste);

		if (b > 0)           /* a stack split across classes: their sum */
			*c = (struct fk_counts){ 1, c->bytes + b, 0, 0 };
	}
	p->period = 0;
	p->has_accum = 0;
	p->header = (struct fk_counts){ 0, 0, 0, 0 };
	p->nhthr = 0;
}
