/* SPDX-License-Identifier: MIT */
/* Finishing the merged stack tree (layout.c builds it, summing the new
 * profile's totals): a diff's base columns summed up the tree, names
 * ranked in byte order once (on a second thread when allowed), and every
 * node's children put in order. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "limits.h"
#include "render_int.h"

static int oom(struct fk_err *err)
{
	return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
}

/* Name order for sorting: bytes, then length. */
static int cmp_names(const struct fk_fname *x, const struct fk_fname *y)
{
	size_t m = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->s, y->s, m);

	if (c)
		return c;
	return (x->len > y->len) - (x->len < y->len);
}

/* A name's sort key: its first 16 bytes as two big-endian numbers,
 * zero-padded. Keys that differ order names as cmp_names does (a padding
 * zero is below any byte it differs from, as a shorter name is below a
 * longer one), so the names' bytes are read only on equal keys (perf: with
 * 8 bytes, C++ names sharing "db::Page" made that 5 % of the time). */
struct nkey {
	uint64_t pre[2];
	uint32_t id;
};

static int nkey_less(const struct fk_fname *names, const struct nkey *x,
		     const struct nkey *y)
{
	if (x->pre[0] != y->pre[0])
		return x->pre[0] < y->pre[0];
	if (x->pre[1] != y->pre[1])
		return x->pre[1] < y->pre[1];
	return cmp_names(&names[x->id], &names[y->id]) < 0;
}

/* Sorts a[0..n) with tmp[0..n) as scratch: insertion sort of runs of 16,
 * then merges, the comparison inlined (qsort's call through a pointer a
 * comparison was most of its time). Keys are distinct. */
static void sort_nkeys(const struct fk_fname *names, struct nkey *a,
		       struct nkey *tmp, size_t n)
{
	struct nkey *src = a, *dst = tmp, *sw;
	size_t i, j, k, w, lo, mid, hi;

	for (lo = 0; lo < n; lo += 16) {
		hi = lo + 16 < n ? lo + 16 : n;
		for (i = lo + 1; i < hi; i++) {
			struct nkey x = a[i];
			for (j = i; j > lo && nkey_less(names, &x, &a[j - 1]); j--)
				a[j] = a[j - 1];
			a[j] = x;
		}
	}
	for (w = 16; w < n; w *= 2) {
		for (lo = 0; lo < n; lo += 2 * w) {
			mid = lo + w < n ? lo + w : n;
			hi = lo + 2 * w < n ? lo + 2 * w : n;
			for (i = lo, j = mid, k = lo; i < mid && j < hi;)
				dst[k++] = nkey_less(names, &src[j], &src[i]) ? src[j++] : src[i++];
			while (i < mid)
				dst[k++] = src[i++];
			while (j < hi)
				dst[k++] = src[j++];
		}
		sw = src;
		src = dst;
		dst = sw;
	}
	if (src != a)
		memcpy(a, src, n * sizeof *a);
}

/* Names are ranked in byte order in two halves, sorted on two threads
 * when allowed (fk_tree.threads) and merged. */
struct sort_job {
	const struct fk_fname *names;
	struct nkey *k, *tmp;
	size_t n;
};

static void *sort_thread(void *arg)
{
	struct sort_job *j = arg;

	sort_nkeys(j->names, j->k, j->tmp, j->n);
	return NULL;
}

/* The keys of all names, and the second half sorting (on a thread when
 * *threaded); rank_end finishes. 0, or -1 when out of memory. */
static int rank_start(struct fk_tree *t, struct sort_job *j, pthread_t *th, int *threaded)
{
	struct nkey *k = malloc((size_t)t->nnames * 2 * sizeof *k);
	uint32_t i, c;
	size_t h = t->nnames / 2;

	*threaded = 0;
	if (!k)
		return -1;
	for (i = 0; i < t->nnames; i++) {
		const unsigned char *s = (const unsigned char *)t->names[i].s;
		k[i] = (struct nkey){ { 0, 0 }, i };
		for (c = 0; c < 16 && c < t->names[i].len; c++)
			k[i].pre[c >> 3] |= (uint64_t)s[c] << (56 - 8 * (c & 7));
	}
	*j = (struct sort_job){ t->names, k + h, k + t->nnames + h, t->nnames - h };
	*threaded = t->threads && pthread_create(th, NULL, sort_thread, j) == 0;
	return 0;
}

/* Sorts the first half, waits for the second and merges them into the
 * ranks. */
static void rank_end(struct fk_tree *t, struct sort_job *j, pthread_t th, int threaded)
{
	struct nkey *k = j->k - (t->nnames - j->n), *x, *xe, *y, *ye;
	uint32_t r = 0;

	sort_nkeys(t->names, k, k + t->nnames, (size_t)(j->k - k));
	if (threaded)
		pthread_join(th, NULL);
	else
		sort_thread(j);
	for (x = k, xe = j->k, y = j->k, ye = k + t->nnames; x < xe || y < ye;) {
		if (y == ye || (x < xe && nkey_less(t->names, x, y)))
			t->names[(x++)->id].rank = r++;
		else
			t->names[(y++)->id].rank = r++;
	}
	free(k);
}

/* Whether sibling a goes before sibling b: heavier first when sorting by
 * weight, then by name. Siblings have distinct names, so this is a total
 * order and every sort gives the same result. */
static int child_before(const struct fk_tree *t, uint32_t a, uint32_t b)
{
	if (t->sort == FK_SORT_WEIGHT) {
		int64_t wa = t->has_base ? t->vtotal[a] : t->nodes[a].total;
		int64_t wb = t->has_base ? t->vtotal[b] : t->nodes[b].total;
		if (wa != wb)
			return wa > wb;
	}
	return t->names[t->nodes[a].name].rank < t->names[t->nodes[b].name].rank;
}

static const struct fk_tree *sort_tree;

static int cmp_children(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return child_before(sort_tree, x, y) ? -1 : child_before(sort_tree, y, x);
}

/* The base side of a diff: its own values, and the columns the page
 * shows for frames gone from the new profile. 0, or -1 when out of memory. */
static int diff_columns(struct fk_tree *t, uint32_t n)
{
	int64_t *a;
	uint32_t i;

	if (t->capbase < n) {
		a = fk_resize(t->bself, t->capbase, n, sizeof *a);
		if (!a)
			return -1;
		t->bself = a;
		t->capbase = n;
	}
	t->btotal = malloc((size_t)n * sizeof *t->btotal);
	t->vself = malloc((size_t)n * sizeof *t->vself);
	t->vtotal = malloc((size_t)n * sizeof *t->vtotal);
	if (!t->btotal || !t->vself || !t->vtotal)
		return -1;
	for (i = 0; i < n; i++) {
		t->btotal[i] = t->bself[i];
		/* A frame's own time gone from the new profile stays
		 * visible at its base value. */
		t->vself[i] = t->nodes[i].self ? t->nodes[i].self : t->bself[i];
		t->vtotal[i] = t->vself[i];
	}
	return 0;
}

/* Orders node i's children (input order for a flame chart, else by name
 * rank), using *tmp (capacity *cap) as scratch. 0, or -1 when out of
 * memory. */
static int order_children(struct fk_tree *t, uint32_t i, uint32_t **tmp, size_t *cap)
{
	uint32_t c, k = 0, j, *v;

	for (c = t->nodes[i].child; c; c = t->nodes[c].next) {
		void *grown = *tmp;

		if (fk_reserve(&grown, cap, (size_t)k + 1, sizeof **tmp, 64) < 0)
			return -1;
		*tmp = grown;
		(*tmp)[k++] = c;
	}
	v = *tmp;
	if (t->flamechart) {
		/* Built newest first: reverse into input order. */
		for (j = 0; j < k / 2; j++) {
			uint32_t x = v[j];
			v[j] = v[k - 1 - j];
			v[k - 1 - j] = x;
		}
	} else if (k <= 16) {
		/* Most lists are short: an inline insertion sort beats
		 * qsort's calls through a pointer. */
		for (j = 1; j < k; j++) {
			uint32_t x = v[j], m = j;
			while (m > 0 && child_before(t, x, v[m - 1])) {
				v[m] = v[m - 1];
				m--;
			}
			v[m] = x;
		}
	} else {
		qsort(v, k, sizeof *v, cmp_children);
	}
	t->nodes[i].child = v[0];
	for (j = 0; j + 1 < k; j++)
		t->nodes[v[j]].next = v[j + 1];
	t->nodes[v[k - 1]].next = 0;
	return 0;
}

/* Orders the children of several[0..n), using *tmp (capacity *cap) as
 * scratch. 0, or -1 when out of memory. */
static int order_list(struct fk_tree *t, const uint32_t *several, uint32_t n,
		      uint32_t **tmp, size_t *cap)
{
	uint32_t w;

	for (w = 0; w < n; w++)
		if (order_children(t, several[w], tmp, cap) < 0)
			return -1;
	return 0;
}

/* The second half of the nodes with several children ordered on a
 * second thread (their lists are disjoint). */
struct order_job {
	struct fk_tree *t;
	const uint32_t *several;
	uint32_t n;
	uint32_t *tmp;
	size_t cap;
	int rc;
};

static void *order_thread(void *arg)
{
	struct order_job *j = arg;

	j->rc = order_list(j->t, j->several, j->n, &j->tmp, &j->cap);
	return NULL;
}

int fk_tree_finish(struct fk_tree *t, struct fk_err *err)
{
	uint32_t i, n = t->nnodes, h;
	uint32_t *tmp = NULL;
	size_t tcap = 0;
	struct sort_job sj;
	struct order_job oj;
	pthread_t th;
	int threaded, rc;

	fk_tree_close(t);
	/* The lookup tables are done with: their memory serves what follows
	 * (fewer fresh pages to fault in). */
	free(t->ctab);
	t->ctab = NULL;
	free(t->ntab);
	t->ntab = NULL;

	if (t->has_base && diff_columns(t, n) < 0)
		return oom(err);
	/* Names no node uses (from lines skipped after their names were
	 * read) have no count yet. */
	if (t->capuses < t->nnames) {
		uint32_t *u = fk_resize(t->uses, t->capuses, t->nnames, sizeof *u);
		if (!u)
			return oom(err);
		t->uses = u;
		t->capuses = t->nnames;
	}
	/* Rank names in byte order once (children then sort by integers),
	 * half of them on a second thread while a diff's base and visible
	 * totals are summed up the tree (the new profile's were summed as
	 * lines were added): that reads and writes only the nodes' values,
	 * ranking only the names. */
	if (rank_start(t, &sj, &th, &threaded) < 0)
		return oom(err);
	for (i = n - 1; t->has_base && i > 0; i--) {
		uint32_t p = t->nodes[i].parent;
		t->btotal[p] += t->btotal[i];
		/* New and base totals fit; their mix may not. */
		if (__builtin_add_overflow(t->vtotal[p], t->vtotal[i], &t->vtotal[p])) {
			rank_end(t, &sj, th, threaded);
			return fk_err_set(err, FK_ELIMIT, 0, "total exceeds %lld",
					  (long long)INT64_MAX);
		}
	}
	rank_end(t, &sj, th, threaded);

	sort_tree = t;
	h = t->nseveral / 2;
	oj = (struct order_job){ t, t->several + h, t->nseveral - h, NULL, 0, 0 };
	threaded = t->threads && pthread_create(&th, NULL, order_thread, &oj) == 0;
	rc = order_list(t, t->several, threaded ? h : t->nseveral, &tmp, &tcap);
	if (threaded)
		pthread_join(th, NULL);
	free(tmp);
	free(oj.tmp);
	return rc < 0 || oj.rc < 0 ? oom(err) : 0;
}
