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
 * it, never better than its parent's, so "a kept stack passes through" is
 * "rank < K", and a landing is a bisection of the stack's path of nodes.
 *
 * The trie depends on the samples' stacks alone, the ranks on their
 * values: with a memo (the hook's scrapes of one heap), the trie of the
 * last call is used again when the stacks are the same, and only the
 * ranks are taken anew. The memo a caller keeps (fk_pprof_memo,
 * pprof_enc.h) is made here. */
#include "pprof_enc.h"
#include "encode_int.h"

#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "grow.h"
#include "hash.h"
#include "u64map.h"

typedef Perftools__Profiles__Sample Smp;

struct lim {
	Smp *s;
	size_t n, nv, wix;
	uint32_t *rank;                /* per sample: position by weight */
	uint32_t *path, *pathoff;      /* per sample: its nodes, root first */
	uint32_t *nrank, *nend, *ndepth, *stamp;  /* per node (0 = the empty stack) */
	uint32_t *npar;                /* per node: its parent, while built */
	size_t nnodes, caprank, capend, capdepth, cappar;
	size_t firstcap;               /* the node arrays' first capacity */
	uint32_t epoch;
};

/* The trie of the last call, kept (fk_enc_limit_memo_new). */
struct fk_limit_memo {
	uint64_t key;                  /* of the samples' stacks; 0: none kept */
	uint32_t k;                    /* the K found last time; 0: none */
	struct lim *l;                 /* its arrays (l->s, l->rank unused) */
	size_t budget;
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

/* A range of the samples' order whose stacks share their first depth
 * frames, the path to node parent. */
struct span {
	uint32_t lo, n, depth, parent;
};

/* A new child of parent at depth, no sample ending there yet; its
 * number, or UINT32_MAX when out of memory. The node arrays grow with
 * the nodes, from a quarter of the frames (a heap's stacks share most:
 * 148k nodes for 574k frames on bench/scrape.sh's heap). */
static uint32_t new_node(struct lim *l, uint32_t parent, uint32_t depth)
{
	void *r = l->nrank, *e = l->nend, *d = l->ndepth, *pa = l->npar;
	size_t n = l->nnodes;
	int ok = fk_reserve(&r, &l->caprank, n + 1, sizeof *l->nrank, l->firstcap) == 0;

	l->nrank = r;
	ok = ok && fk_reserve(&e, &l->capend, n + 1, sizeof *l->nend, l->firstcap) == 0;
	l->nend = e;
	ok = ok && fk_reserve(&d, &l->capdepth, n + 1, sizeof *l->ndepth, l->firstcap) == 0;
	l->ndepth = d;
	ok = ok && fk_reserve(&pa, &l->cappar, n + 1, sizeof *l->npar, l->firstcap) == 0;
	l->npar = pa;
	if (!ok || n >= UINT32_MAX)
		return UINT32_MAX;
	l->nrank[n] = UINT32_MAX;
	l->npar[n] = parent;
	l->nend[n] = UINT32_MAX;
	l->ndepth[n] = depth;
	l->nnodes++;
	return (uint32_t)n;
}

/* Builds the trie by grouping, root first: the samples of a span are
 * split by their location at the span's depth (a counting sort over the
 * dense location ids), each group becoming a child node and a span one
 * deeper. Every frame is visited a constant number of times, where a sort
 * of the stacks compared long shared prefixes (most of a scrape's time on
 * a 16k-stack heap: bench/README.md). A node's rank is the best of the
 * samples through it. Node numbers depend on the grouping order, which
 * nothing outside the trie sees. The stacks' location ids are first laid
 * out by depth (row d: every sample's location at root-first depth d), and
 * every step keeps a span's samples in their order (the compaction and the
 * counting sort are stable), so a pass over a depth reads one row
 * forwards: laid out by stack, each read was a cache line of its own. */
static int build(struct lim *l)
{
	size_t total = 0, k = 0, maxid = 0, maxdepth = 0, nspans = 0, capspans = 0;
	uint32_t *idx = NULL, *tmp = NULL, *cnt = NULL, *touched = NULL, *ids = NULL, *len = NULL;
	struct span *spans = NULL;
	int rc = -1;

	for (size_t i = 0; i < l->n; i++) {
		total += l->s[i].n_location_id;
		if (l->s[i].n_location_id > maxdepth)
			maxdepth = l->s[i].n_location_id;
		for (size_t j = 0; j < l->s[i].n_location_id; j++)
			if (l->s[i].location_id[j] > maxid)
				maxid = l->s[i].location_id[j];
	}
	/* pprof_enc.c numbers locations densely by first use. */
	if (total >= UINT32_MAX || maxid > total || (l->n && maxdepth > SIZE_MAX / 4 / l->n))
		return -1;
	idx = malloc((l->n ? l->n : 1) * sizeof *idx);
	tmp = malloc((l->n ? l->n : 1) * sizeof *tmp);
	len = malloc((l->n ? l->n : 1) * sizeof *len);
	cnt = calloc(maxid + 1, sizeof *cnt);
	touched = malloc((maxid + 1) * sizeof *touched);
	/* Rows past a sample's depth are never read (it has left the span). */
	ids = malloc((maxdepth && l->n ? maxdepth * l->n : 1) * sizeof *ids);
	l->path = malloc((total ? total : 1) * sizeof *l->path);
	l->pathoff = malloc((l->n + 1) * sizeof *l->pathoff);
	l->firstcap = total / 4 + 1024;
	if (!idx || !tmp || !len || !cnt || !touched || !ids || !l->path || !l->pathoff ||
	    new_node(l, 0, 0) == UINT32_MAX)
		goto out;
	/* Paths are stored in sample order, root first. */
	for (size_t i = 0; i < l->n; i++) {
		const Smp *s = &l->s[i];

		l->pathoff[i] = (uint32_t)k;
		for (size_t j = 0; j < s->n_location_id; j++)
			ids[j * l->n + i] = (uint32_t)s->location_id[s->n_location_id - 1 - j];
		k += s->n_location_id;
		len[i] = (uint32_t)s->n_location_id;
		idx[i] = (uint32_t)i;
	}
	l->pathoff[l->n] = (uint32_t)k;
	if (l->n) {
		if (!(spans = malloc(16 * sizeof *spans)))
			goto out;
		capspans = 16;
		spans[nspans++] = (struct span){ 0, (uint32_t)l->n, 0, 0 };
	}
	while (nspans > 0) {
		struct span sp = spans[--nspans];

		for (;;) {
			uint32_t *v = idx + sp.lo, w = 0, id0 = 0, c;
			uint32_t *row = ids + (size_t)sp.depth * l->n;
			int split = 0;

			/* The stacks that end here end at the parent and leave
			 * the span; the others go to one child unless their
			 * locations differ. */
			for (uint32_t t = 0; t < sp.n; t++) {
				uint32_t u = v[t], id;

				if (len[u] == sp.depth)
					continue;
				id = row[u];
				if (w == 0)
					id0 = id;
				split |= id != id0;
				v[w++] = u;
			}
			sp.n = w;
			if (w == 0)
				break;
			if (!split) {
				if ((c = new_node(l, sp.parent, sp.depth + 1)) == UINT32_MAX)
					goto out;
				/* A row's location becomes its node once grouped. */
				for (uint32_t t = 0; t < w; t++)
					row[v[t]] = c;
				sp.parent = c;
				sp.depth++;
				continue;
			}
			/* Counting sort by location (stable): offsets in
			 * first-seen order, then the scatter. */
			uint32_t nt = 0, at = 0;

			for (uint32_t t = 0; t < w; t++) {
				uint32_t id = row[v[t]];

				if (cnt[id]++ == 0)
					touched[nt++] = id;
			}
			for (uint32_t g = 0; g < nt; g++) {
				uint32_t n = cnt[touched[g]];

				cnt[touched[g]] = at;
				at += n;
			}
			for (uint32_t t = 0; t < w; t++)
				tmp[cnt[row[v[t]]]++] = v[t];
			memcpy(v, tmp, w * sizeof *v);
			for (uint32_t g = 0; g < nt; g++)
				cnt[touched[g]] = 0;
			/* One child per group, each a span to do. */
			for (uint32_t g = 0, h; g < w; g = h) {
				uint32_t id = row[v[g]];

				if ((c = new_node(l, sp.parent, sp.depth + 1)) == UINT32_MAX)
					goto out;
				/* This group's locations become its node as they are
				 * passed; the next group's are still locations. */
				for (h = g; h < w && row[v[h]] == id; h++)
					row[v[h]] = c;
				struct span *grown = fk_grow(spans, &capspans, nspans, sizeof *spans, 16);

				if (!grown)
					goto out;
				spans = grown;
				spans[nspans++] = (struct span){ sp.lo + g, h - g, sp.depth + 1, c };
			}
			break;
		}
	}
	if (!(l->stamp = calloc(l->nnodes, sizeof *l->stamp)))
		goto out;
	/* The nodes as paths, sample by sample (rows read forwards). */
	for (size_t i = 0; i < l->n; i++)
		for (size_t j = 0, off = l->pathoff[i]; off + j < l->pathoff[i + 1]; j++)
			l->path[off + j] = ids[j * l->n + i];
	rc = 0;
out:
	free(idx);
	free(tmp);
	free(len);
	free(cnt);
	free(touched);
	free(ids);
	free(spans);
	return rc;
}

/* The ranks of the samples (order: heaviest first) and of the nodes: a
 * node's rank is the best of the samples ending there and of its
 * children's (children are numbered after their parent). */
static void rank_nodes(struct lim *l, const struct ranked *order)
{
	for (size_t r = 0; r < l->n; r++)
		l->rank[order[r].i] = (uint32_t)r;
	for (size_t j = 0; j < l->nnodes; j++)
		l->nend[j] = l->nrank[j] = UINT32_MAX;
	for (size_t i = 0; i < l->n; i++) {
		uint32_t end = l->pathoff[i + 1] > l->pathoff[i] ? l->path[l->pathoff[i + 1] - 1] : 0;

		if (l->rank[i] < l->nend[end])
			l->nend[end] = l->rank[i];
	}
	for (size_t j = l->nnodes; j-- > 1;) {
		uint32_t r = l->nend[j] < l->nrank[j] ? l->nend[j] : l->nrank[j];

		l->nrank[j] = r;
		if (r < l->nrank[l->npar[j]])
			l->nrank[l->npar[j]] = r;
	}
	l->nrank[0] = 0;
}

/* The node sample i (rank >= K) lands on: the deepest node of its path
 * that a kept stack passes through, found by bisection (a node's rank is
 * never better than its parent's: its samples are some of the parent's). */
static uint32_t landing(const struct lim *l, size_t i, uint32_t K)
{
	const uint32_t *p = l->path + l->pathoff[i];
	size_t lo = 0, hi = l->pathoff[i + 1] - l->pathoff[i];

	if (hi == 0)
		return 0;
	/* p[0..lo) all have rank < K, p[hi..) none. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->nrank[p[mid]] < K)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Its own root frame when no kept stack shares it. */
	return lo ? p[lo - 1] : p[0];
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

/* Frees the trie's arrays of l. */
static void lim_release(struct lim *l)
{
	free(l->path);
	free(l->pathoff);
	free(l->nrank);
	free(l->nend);
	free(l->ndepth);
	free(l->npar);
	free(l->stamp);
}

static size_t lim_bytes(const struct lim *l)
{
	return (l->pathoff[l->n] + l->n + 1) * sizeof(uint32_t) +
	       (l->caprank + l->capend + l->capdepth + l->cappar + l->nnodes) * sizeof(uint32_t);
}

struct fk_limit_memo *fk_enc_limit_memo_new(size_t budget)
{
	struct fk_limit_memo *m = calloc(1, sizeof *m);

	if (m)
		m->budget = budget;
	return m;
}

static void memo_forget(struct fk_limit_memo *m)
{
	if (m->l) {
		lim_release(m->l);
		free(m->l);
	}
	m->l = NULL;
	m->key = 0;
}

void fk_enc_limit_memo_free(struct fk_limit_memo *m)
{
	if (m) {
		memo_forget(m);
		free(m);
	}
}

size_t fk_enc_limit_memo_bytes(const struct fk_limit_memo *m)
{
	return m && m->l ? lim_bytes(m->l) : 0;
}

/* The key of the samples' stacks (their location ids in order). */
static uint64_t stacks_key(const Smp *s, size_t n)
{
	uint64_t h = n * 0x9e3779b97f4a7c15ULL + 1;

	for (size_t i = 0; i < n; i++)
		h = (h ^ fk_hash_long(s[i].location_id, s[i].n_location_id * sizeof *s[i].location_id)) *
		    0x100000001b3ULL + s[i].n_location_id;
	return h ? h : 1;
}

int fk_enc_limit_samples(Perftools__Profiles__Sample **smps, size_t *n, size_t max,
			 size_t wix, struct fk_arena *a, struct fk_limit_memo *memo,
			 size_t *merged)
{
	struct lim l;
	struct ranked *order = NULL;
	Smp *out = NULL;
	uint64_t key = 0;
	int rc = -1, keep = memo != NULL;

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
	if (memo) {
		key = stacks_key(l.s, l.n);
		if (memo->l && memo->key == key && memo->l->n == l.n) {
			/* The same stacks as last time: its trie. */
			struct lim *kept = memo->l;

			kept->s = l.s;
			kept->rank = l.rank;
			kept->wix = wix;
			l = *kept;
			free(kept);
			memo->l = NULL;
		}
		memo_forget(memo);
	}
	if (!l.path && build(&l) < 0)
		goto done;
	rank_nodes(&l, order);
	/* count(n) = n > max; find the largest K with count(K) <= max. When
	 * even K = 0 (every stack cut to its root frame) leaves too many,
	 * every stack goes into one sample with no stack at all. */
	uint32_t lo = 0, hi = (uint32_t)l.n;
	uint32_t guess = memo && memo->k < l.n ? memo->k : 0;
	if (count(&l, 0) > max) {
		for (size_t j = 1; j < l.nnodes; j++)
			l.nrank[j] = UINT32_MAX;  /* nothing kept: all land on node 0 */
		for (size_t i = 0; i < l.n; i++)
			l.pathoff[i] = l.pathoff[i + 1] = l.pathoff[0];
		keep = 0;                     /* the paths are gone */
	} else {
		/* count(lo) <= max < count(hi). A heap's K moves little from
		 * one scrape to the next: from last time's, gallop to a range
		 * around this time's, then bisect it (two counts when it did
		 * not move, where a bisection of the whole takes log2 n). */
		if (guess > 0 && count(&l, guess) <= max) {
			uint32_t step = 1;

			lo = guess;
			while (lo + step < hi && count(&l, lo + step) <= max) {
				lo += step;
				step *= 2;
			}
			if (lo + step < hi)
				hi = lo + step;
		} else if (guess > 0) {
			uint32_t step = 1;

			hi = guess;
			while (hi > step && count(&l, hi - step) > max) {
				hi -= step;
				step *= 2;
			}
			if (hi > step)
				lo = hi - step;
		}
		while (hi - lo > 1) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (count(&l, mid) <= max)
				lo = mid;
			else
				hi = mid;
		}
	}
	if (memo)
		memo->k = lo;
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
	l.rank = NULL;
	l.s = NULL;
	if (rc == 0 && keep && lim_bytes(&l) <= memo->budget &&
	    (memo->l = malloc(sizeof *memo->l))) {
		*memo->l = l;
		memo->key = key;
	} else {
		lim_release(&l);
	}
	return rc;
}

/* The memo of fk_pprof_opts (pprof_enc.h): the sample limit's trie. */
struct fk_pprof_memo *fk_pprof_memo_new(size_t budget)
{
	struct fk_pprof_memo *m = calloc(1, sizeof *m);

	if (m && !(m->limit = fk_enc_limit_memo_new(budget))) {
		free(m);
		m = NULL;
	}
	return m;
}

void fk_pprof_memo_free(struct fk_pprof_memo *m)
{
	if (m) {
		fk_enc_limit_memo_free(m->limit);
		free(m);
	}
}

size_t fk_pprof_memo_bytes(const struct fk_pprof_memo *m)
{
	return m ? sizeof *m + fk_enc_limit_memo_bytes(m->limit) : 0;
}
