/* SPDX-License-Identifier: MIT */
/* A pprof profile kept under a number of samples (fk_enc_limit_samples,
 * encode_int.h): ingesters refuse large profiles (Pyroscope: 16 000
 * samples by default), so the lightest stacks are merged into prefixes of
 * the heavy ones they share, and every value's total stays exact.
 *
 * The samples' stacks form a trie (root frame first). Ranked by weight,
 * heaviest first, the K heaviest samples are kept as they are; every
 * other sample lands on the deepest trie node of its stack that some kept
 * stack passes through (its root frame alone when none does) and adds its
 * values there: into the kept sample ending at that node, else into one
 * new sample for the node. The count is K plus the nodes landed on that
 * no kept sample ends at; K is the largest (by bisection) whose count is
 * within the limit. A node's rank is the best rank of the samples through
 * it, so "a kept stack passes through" is "rank < K", and a landing is a
 * walk down the stack's path of nodes. */
#include "encode_int.h"

#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "u64map.h"

typedef Perftools__Profiles__Sample Smp;

struct lim {
	Smp *s;
	size_t n, nv, wix;
	uint32_t *rank;                /* per sample: position by weight */
	uint32_t *path, *pathoff;      /* per sample: its nodes, root first */
	uint32_t *nrank, *nend, *ndepth, *stamp;  /* per node (0 = the empty stack) */
	size_t nnodes;
	uint32_t epoch;
};

struct ranked {
	uint64_t w;                    /* |value of the weighing type| */
	uint32_t i;
};

static int by_weight(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->w != y->w)
		return x->w > y->w ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* Root-first order of two samples' stacks (location ids), for qsort_r. */
static int by_stack(const void *a, const void *b, void *ctx)
{
	const Smp *v = ctx, *x = &v[*(const uint32_t *)a], *y = &v[*(const uint32_t *)b];
	size_t i = x->n_location_id, j = y->n_location_id;

	while (i > 0 && j > 0) {
		uint64_t p = x->location_id[--i], q = y->location_id[--j];

		if (p != q)
			return p < q ? -1 : 1;
	}
	return i > 0 ? 1 : j > 0 ? -1 : 0;
}

/* Builds the trie without a hash map: with the stacks sorted root first,
 * the samples that share a prefix are neighbours, so each sample reuses
 * the nodes of the common prefix with the one before and creates the
 * rest. A node's rank is the best of the samples through it. */
static int build(struct lim *l, const struct ranked *order)
{
	size_t total = 0, k = 0;
	uint32_t *sorted = malloc((l->n ? l->n : 1) * sizeof *sorted);
	int rc = -1;

	for (size_t i = 0; i < l->n; i++)
		total += l->s[i].n_location_id;
	l->path = malloc((total ? total : 1) * sizeof *l->path);
	l->pathoff = malloc((l->n + 1) * sizeof *l->pathoff);
	l->nrank = malloc((total + 1) * sizeof *l->nrank);
	l->nend = malloc((total + 1) * sizeof *l->nend);
	l->ndepth = malloc((total + 1) * sizeof *l->ndepth);
	l->stamp = calloc(total + 1, sizeof *l->stamp);
	if (!sorted || !l->path || !l->pathoff || !l->nrank || !l->nend || !l->ndepth ||
	    !l->stamp || total >= UINT32_MAX)
		goto out;
	l->nnodes = 1;
	l->nrank[0] = 0;
	l->nend[0] = UINT32_MAX;
	l->ndepth[0] = 0;
	for (size_t r = 0; r < l->n; r++)
		l->rank[order[r].i] = (uint32_t)r;
	/* Paths are stored in sample order, root first. */
	for (size_t i = 0; i < l->n; i++) {
		l->pathoff[i] = (uint32_t)k;
		k += l->s[i].n_location_id;
		sorted[i] = (uint32_t)i;
	}
	l->pathoff[l->n] = (uint32_t)k;
	qsort_r(sorted, l->n, sizeof *sorted, by_stack, l->s);
	const Smp *prev = NULL;
	const uint32_t *ppath = NULL;
	for (size_t t = 0; t < l->n; t++) {
		size_t i = sorted[t];
		const Smp *s = &l->s[i];
		uint32_t r = l->rank[i], *p = l->path + l->pathoff[i], node = 0;
		size_t d = s->n_location_id, lcp = 0;

		/* The prefix shared with the previous stack in this order. */
		if (prev)
			while (lcp < d && lcp < prev->n_location_id &&
			       s->location_id[d - 1 - lcp] ==
			       prev->location_id[prev->n_location_id - 1 - lcp])
				lcp++;
		for (size_t j = 0; j < d; j++) {
			if (j < lcp) {
				node = ppath[j];
				if (r < l->nrank[node])
					l->nrank[node] = r;
			} else {
				uint32_t c = (uint32_t)l->nnodes++;

				l->nrank[c] = r;
				l->nend[c] = UINT32_MAX;
				l->ndepth[c] = l->ndepth[node] + 1;
				node = c;
			}
			p[j] = node;
		}
		if (r < l->nend[node])
			l->nend[node] = r;
		prev = s;
		ppath = p;
	}
	rc = 0;
out:
	free(sorted);
	return rc;
}

/* The node sample i (rank >= K) lands on. */
static uint32_t landing(const struct lim *l, size_t i, uint32_t K)
{
	const uint32_t *p = l->path + l->pathoff[i], *e = l->path + l->pathoff[i + 1];
	uint32_t at;

	if (p == e)
		return 0;
	at = p[0];                     /* its own root frame when no kept stack shares it */
	for (; p < e && l->nrank[*p] < K; p++)
		at = *p;
	return at;
}

/* The number of samples left when the K heaviest are kept. */
static size_t count(struct lim *l, uint32_t K)
{
	size_t c = K;

	l->epoch++;
	for (size_t i = 0; i < l->n; i++) {
		uint32_t at;

		if (l->rank[i] < K)
			continue;
		at = landing(l, i, K);
		if (l->nend[at] < K || l->stamp[at] == l->epoch)
			continue;
		l->stamp[at] = l->epoch;
		c++;
	}
	return c;
}

static void add_values(Smp *to, const Smp *from)
{
	for (size_t v = 0; v < to->n_value && v < from->n_value; v++)
		to->value[v] += from->value[v];
}

/* The samples left with the K heaviest kept, into out (room for l->n):
 * kept samples in input order, each new one where its first member was.
 * Merged samples lose their labels (object size, thread), which no longer
 * describe them. Returns the count, or SIZE_MAX when out of memory. */
static size_t apply(struct lim *l, uint32_t K, Smp *out, struct fk_arena *a)
{
	size_t k = 0;
	uint32_t *target = malloc(l->nnodes * sizeof *target);   /* node -> slot */
	unsigned char *mixed = calloc(l->n ? l->n : 1, 1);

	if (!target || !mixed)
		goto oom;
	for (size_t j = 0; j < l->nnodes; j++)
		target[j] = UINT32_MAX;
	for (size_t i = 0; i < l->n; i++) {
		const Smp *s = &l->s[i];
		uint32_t at;

		if (l->rank[i] < K) {
			at = s->n_location_id ? l->path[l->pathoff[i + 1] - 1] : 0;
			/* Of equal stacks, the best ranked takes the merges. */
			if (l->nend[at] == l->rank[i])
				target[at] = (uint32_t)k;
			out[k++] = *s;
			continue;
		}
		at = landing(l, i, K);
		if (l->nend[at] < K || target[at] != UINT32_MAX)
			continue;
		Smp *n = &out[k];
		*n = *s;
		n->location_id = s->location_id + (s->n_location_id - l->ndepth[at]);
		n->n_location_id = l->ndepth[at];
		n->value = fk_arena_alloc(a, (s->n_value ? s->n_value : 1) * sizeof *n->value);
		if (!n->value)
			goto oom;
		memset(n->value, 0, s->n_value * sizeof *n->value);
		target[at] = (uint32_t)k++;
	}
	for (size_t i = 0; i < l->n; i++) {
		if (l->rank[i] < K)
			continue;
		uint32_t t = target[landing(l, i, K)];

		add_values(&out[t], &l->s[i]);
		mixed[t] = 1;
	}
	for (size_t j = 0; j < k; j++) {
		if (mixed[j]) {
			out[j].n_label = 0;
			out[j].label = NULL;
		}
	}
	free(target);
	free(mixed);
	return k;
oom:
	free(target);
	free(mixed);
	return SIZE_MAX;
}

int fk_enc_limit_samples(Perftools__Profiles__Sample **smps, size_t *n, size_t max,
			 size_t wix, struct fk_arena *a, size_t *merged)
{
	struct lim l;
	struct ranked *order = NULL;
	Smp *out = NULL;
	int rc = -1;

	*merged = 0;
	if (max == 0 || *n <= max)
		return 0;
	if (*n >= UINT32_MAX)
		return -1;
	memset(&l, 0, sizeof l);
	l.s = *smps;
	l.n = *n;
	l.wix = wix;
	order = malloc(l.n * sizeof *order);
	l.rank = malloc(l.n * sizeof *l.rank);
	out = malloc(l.n * sizeof *out);
	if (!order || !l.rank || !out)
		goto done;
	for (size_t i = 0; i < l.n; i++) {
		int64_t v = l.s[i].n_value > wix ? l.s[i].value[wix] : 0;

		order[i].w = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
		order[i].i = (uint32_t)i;
	}
	qsort(order, l.n, sizeof *order, by_weight);
	if (build(&l, order) < 0)
		goto done;
	/* count(n) = n > max; find the largest K with count(K) <= max. When
	 * even K = 0 (every stack cut to its root frame) leaves too many,
	 * every stack goes into one sample with no stack at all. */
	uint32_t lo = 0, hi = (uint32_t)l.n;
	if (count(&l, 0) > max) {
		for (size_t j = 1; j < l.nnodes; j++)
			l.nrank[j] = UINT32_MAX;  /* nothing kept: all land on node 0 */
		for (size_t i = 0; i < l.n; i++)
			l.pathoff[i] = l.pathoff[i + 1] = l.pathoff[0];
	} else {
		while (hi - lo > 1) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (count(&l, mid) <= max)
				lo = mid;
			else
				hi = mid;
		}
	}
	size_t k = apply(&l, lo, out, a);
	if (k == SIZE_MAX)
		goto done;
	*merged = l.n - lo;
	free(*smps);
	*smps = out;
	*n = k;
	out = NULL;
	rc = 0;
done:
	free(order);
	free(out);
	free(l.rank);
	free(l.path);
	free(l.pathoff);
	free(l.nrank);
	free(l.nend);
	free(l.ndepth);
	free(l.stamp);
	return rc;
}
