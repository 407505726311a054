/* SPDX-License-Identifier: MIT */
/* The profile model: lifetime, unbiasing, lookups (see profile.h). */
#include "profile.h"

#include <stddef.h>

#include "search.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "io.h"
#include "strtab.h"

/* Buffers handed over with fk_profile_own, freed with the profile. */
struct owned {
	struct owned *next;
	void *data;
	size_t len;
	int mapped;
};

struct fk_profile_priv {
	struct fk_profile pub;
	struct owned *owned;
};

struct fk_profile *fk_profile_new(const char *source)
{
	struct fk_profile_priv *pp = calloc(1, sizeof *pp);
	struct fk_profile *p;

	if (!pp)
		return NULL;
	p = &pp->pub;
	p->arena = fk_arena_new();
	p->strs = p->arena ? fk_strtab_new(p->arena) : NULL;
	if (!p->strs) {
		fk_arena_free(p->arena);
		free(pp);
		return NULL;
	}
	source = source ? source : "-";
	p->source = fk_strtab_intern(p->strs, source, strlen(source));
	if (!p->source) {
		fk_profile_free(p);
		return NULL;
	}
	return p;
}

void fk_profile_free(struct fk_profile *p)
{
	struct fk_profile_priv *pp = (struct fk_profile_priv *)p;
	struct owned *o, *next;

	if (!p)
		return;
	for (o = pp->owned; o; o = next) {
		next = o->next;
		fk_release_input(o->data, o->len, o->mapped);
		free(o);
	}
	free(p->stacks);
	free(p->threads);
	free(p->maps);
	free(p->syms);
	free(p->modules);
	fk_strtab_free(p->strs);
	fk_arena_free(p->arena);
	free(pp);
}

void fk_profile_own_input(struct fk_profile *p, char *data, size_t len, int mapped)
{
	struct fk_profile_priv *pp = (struct fk_profile_priv *)p;
	struct owned *o = malloc(sizeof *o);

	/* Out of memory here would leak data; keeping the model valid matters
	 * more, and releasing data still referenced would be worse. */
	if (!o)
		return;
	o->data = data;
	o->len = len;
	o->mapped = mapped;
	o->next = pp->owned;
	pp->owned = o;
}

void fk_profile_own(struct fk_profile *p, void *data)
{
	fk_profile_own_input(p, data, 0, 0);
}

/* The factor 1 / (1 - exp(-(s/n)/R)) of one (n, s) pair, finite and >= 1.
 * Signed pairs (growth profiles) use magnitudes. */
static double factor(int64_t n, int64_t s, uint64_t period)
{
	double avg, ratio, f;

	if (n == 0 || s == 0 || period == 0)
		return 1.0;
	avg = fabs((double)s) / fabs((double)n);
	ratio = avg / (double)period;
	f = 1.0 / -expm1(-ratio);
	if (!isfinite(f) || f < 1.0)
		return 1.0;
	return f;
}

struct fk_values fk_unbias(const struct fk_profile *p, const struct fk_counts *c)
{
	struct fk_values v;
	double f = factor(c->objs, c->bytes, p->period);
	double fa = factor(c->acc_objs, c->acc_bytes, p->period);

	v.objs = (double)c->objs * f;
	v.bytes = (double)c->bytes * f;
	v.acc_objs = (double)c->acc_objs * fa;
	v.acc_bytes = (double)c->acc_bytes * fa;
	return v;
}

struct fk_values fk_profile_totals(const struct fk_profile *p)
{
	struct fk_values t = { 0, 0, 0, 0 };
	size_t i;

	for (i = 0; i < p->nstacks; i++) {
		struct fk_values v = fk_unbias(p, &p->stacks[i].c);

		t.objs += v.objs;
		t.bytes += v.bytes;
		t.acc_objs += v.acc_objs;
		t.acc_bytes += v.acc_bytes;
	}
	return t;
}

static int map_cmp(const void *a, const void *b)
{
	const struct fk_mapping *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->limit < y->limit ? -1 : x->limit > y->limit;
}

int fk_profile_index_maps(struct fk_profile *p, struct fk_err *err)
{
	(void)err;
	/* The verbatim text keeps the input order for writers; the array is
	 * sorted for lookups. */
	if (p->nmaps > 1)
		qsort(p->maps, p->nmaps, sizeof *p->maps, map_cmp);
	return 0;
}

const struct fk_mapping *fk_profile_map_of(const struct fk_profile *p, uint64_t addr)
{
	/* The last mapping starting at or before addr. */
	size_t lo = fk_count_le(p->maps, p->nmaps, sizeof *p->maps,
				offsetof(struct fk_mapping, start), addr);

	if (lo == 0)
		return NULL;
	if (addr < p->maps[lo - 1].limit)
		return &p->maps[lo - 1];
	return NULL;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct fk_sym *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

void fk_profile_sort_syms(struct fk_profile *p)
{
	if (p->nsyms > 1)
		qsort(p->syms, p->nsyms, sizeof *p->syms, sym_cmp);
}

const struct fk_sym *fk_profile_sym(const struct fk_profile *p, uint64_t key)
{
	/* The last symbol at or below key, if it is key's. */
	size_t n = fk_count_le(p->syms, p->nsyms, sizeof *p->syms,
			       offsetof(struct fk_sym, key), key);

	return n > 0 && p->syms[n - 1].key == key ? &p->syms[n - 1] : NULL;
}

const char *fk_profile_build_id(const struct fk_profile *p, const char *path)
{
	size_t i;

	for (i = 0; i < p->nmodules; i++)
		if (p->modules[i].path == path || strcmp(p->modules[i].path, path) == 0)
			return p->modules[i].build_id;
	return NULL;
}

static long long round_ll(double v)
{
	if (!(fabs(v) < 9.2e18))
		return v < 0 ? -9200000000000000000LL : 9200000000000000000LL;
	return llround(v);
}

int fk_profile_stats_write(const struct fk_profile *p, FILE *out)
{
	struct fk_values t = fk_profile_totals(p);
	uint32_t depth = 0;
	size_t i;

	for (i = 0; i < p->nstacks; i++) {
		const struct fk_stack *st = &p->stacks[i];
		/* The mark of a cut stack is no frame. */
		uint32_t d = st->depth - (st->depth && st->addrs[st->depth - 1] == FK_ADDR_TRUNCATED);

		if (d > depth)
			depth = d;
	}
	fprintf(out, "objects: %lld\n", round_ll(t.objs));
	fprintf(out, "bytes: %lld\n", round_ll(t.bytes));
	if (p->has_accum) {
		fprintf(out, "alloc_objects: %lld\n", round_ll(t.acc_objs));
		fprintf(out, "alloc_bytes: %lld\n", round_ll(t.acc_bytes));
	}
	fprintf(out, "stacks: %zu\n", p->nstacks);
	fprintf(out, "max_depth: %" PRIu32 "\n", depth);
	fprintf(out, "mappings: %zu\n", p->nmaps);
	fprintf(out, "threads: %zu\n", p->nthreads);
	fprintf(out, "period: %" PRIu64 "\n", p->period);
	return ferror(out) ? -1 : 0;
}
