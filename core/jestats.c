/* SPDX-License-Identifier: MIT */
/* malloc_stats_print's JSON (jemalloc src/stats.c, opts "J": an object
 * "jemalloc" holding "version", "config", "opt", "arenas" (the class
 * tables), "stats" (the totals) and "stats.arenas" ("merged" and/or one
 * object per arena)) read strictly into the figures of jestats.h. Every
 * value is walked; the figures are picked by their path. */
#include "jestats.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "io.h"
#include "jsonlex.h"
#include "limits.h"
#include "num.h"

void fk_jestats_init(struct fk_jestats *st)
{
	memset(st, 0, sizeof *st);
	st->dirty_decay_ms = st->muzzy_decay_ms = FK_JESTATS_NONE;
	st->retain = st->background_thread = st->cache_oblivious = FK_JESTATS_NONE;
	st->tcache_max = st->bg_threads = st->metadata_rtree = FK_JESTATS_NONE;
}

void fk_jestats_release(struct fk_jestats *st)
{
	free(st->bins);
	free(st->lext);
	st->bins = NULL;
	st->lext = NULL;
	st->nbins = st->nlext = 0;
}

/* The nearest class by ratio: a stack's mean strays either way (waste.c),
 * and classes are 14 % or more apart from 64 bytes up. */
int fk_jestats_class(const struct fk_jestats *st, double size)
{
	size_t lo = 0, hi = st->nbins;
	double above, below;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if ((double)st->bins[mid].size < size)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return st->nbins ? 0 : FK_JESTATS_LARGE;
	below = size / (double)st->bins[lo - 1].size;
	above = lo < st->nbins ? (double)st->bins[lo].size / size
		: st->page ? 4.0 * (double)st->page / size : INFINITY;
	if (below <= above)
		return (int)lo - 1;
	return lo < st->nbins ? (int)lo : FK_JESTATS_LARGE;
}

int fk_jestats_classes(struct fk_jestats *st, size_t nbins, size_t nlext, struct fk_err *err)
{
	if (nbins > FK_JESTATS_MAX_CLASSES || nlext > FK_JESTATS_MAX_CLASSES)
		return fk_err_set(err, FK_ELIMIT, 0, "more than %d size classes",
				  FK_JESTATS_MAX_CLASSES);
	fk_jestats_release(st);
	st->bins = calloc(nbins ? nbins : 1, sizeof *st->bins);
	st->lext = calloc(nlext ? nlext : 1, sizeof *st->lext);
	if (!st->bins || !st->lext) {
		fk_jestats_release(st);
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	}
	st->nbins = nbins;
	st->nlext = nlext;
	return 0;
}

/* The arenas' figures a reader sums: the merged arenas' or each arena's. */
enum { A_PACTIVE, A_PDIRTY, A_PMUZZY, A_TCACHE, A_SMALL, A_LARGE, A_NFIG };
enum { B_CURREGS, B_CURSLABS, B_NONFULL, B_NFIG };
struct arenas {
	int seen;
	uint64_t fig[A_NFIG];
	uint64_t bin[FK_JESTATS_MAX_CLASSES][B_NFIG];
	uint64_t lext[FK_JESTATS_MAX_CLASSES];
};

/* One step of a value's path: a key, or an index (key NULL). */
struct step {
	const char *key;
	size_t n;
	uint64_t idx;
};

#define MAX_PATH 8

struct rd {
	struct fk_json j;
	struct fk_jestats *st;
	struct step path[MAX_PATH];
	struct arenas merged, each;
	uint64_t nbins, nlext;         /* arenas.nbins, .nlextents; UINT64_MAX: absent */
	size_t bins_seen, lext_seen;   /* 1 + the highest index of arenas.bin, .lextent */
	uint64_t bin_shape[FK_JESTATS_MAX_CLASSES][3];
	uint64_t lext_size[FK_JESTATS_MAX_CLASSES];
	int arena_bins;                /* some arena gave bins */
	int str;                       /* the scalar being read is a string */
};

static int at(const struct rd *r, int depth, int i, const char *key)
{
	return i < depth && r->path[i].key && fk_json_key_is(r->path[i].key, r->path[i].n, key);
}

/* The path as text, for messages: "jemalloc.arenas.bin[3].size". */
static void path_text(const struct rd *r, int depth, char *buf, size_t size)
{
	size_t k = 0;

	buf[0] = '\0';
	for (int i = 0; i < depth && i < MAX_PATH && k < size; i++) {
		if (r->path[i].key)
			k += (size_t)snprintf(buf + k, size - k, "%s%.*s", i ? "." : "",
					      (int)(r->path[i].n > 40 ? 40 : r->path[i].n),
					      r->path[i].key);
		else
			k += (size_t)snprintf(buf + k, size - k, "[%llu]",
					      (unsigned long long)r->path[i].idx);
	}
}

static int bad_field(struct rd *r, int depth, const char *v, size_t n, const char *want)
{
	char name[160];

	path_text(r, depth, name, sizeof name);
	return fk_json_bad_span(&r->j, v, n, name, want);
}

static int want_u64(struct rd *r, int depth, const char *v, size_t n, uint64_t *out)
{
	return r->str || fk_parse_u64(v, n, out) < 0 ?
	       bad_field(r, depth, v, n, "an unsigned integer") : 0;
}

static int want_i64(struct rd *r, int depth, const char *v, size_t n, int64_t *out)
{
	return r->str || fk_parse_i64(v, n, out) < 0 ? bad_field(r, depth, v, n, "an integer") : 0;
}

static int want_bool(struct rd *r, int depth, const char *v, size_t n, int64_t *out)
{
	if (!r->str && (fk_json_key_is(v, n, "true") || fk_json_key_is(v, n, "false"))) {
		*out = v[0] == 't';
		return 0;
	}
	return bad_field(r, depth, v, n, "true or false");
}

/* A class index of an array step, checked against the bound. */
static int class_idx(struct rd *r, int i, const char *v, size_t *out)
{
	if (r->path[i].idx >= FK_JESTATS_MAX_CLASSES)
		return fk_err_set_off(r->j.err, FK_ELIMIT, (uint64_t)(v - r->j.base),
				      "more than %d size classes", FK_JESTATS_MAX_CLASSES);
	*out = (size_t)r->path[i].idx;
	return 0;
}

static void add(uint64_t *to, uint64_t v)
{
	*to = *to > UINT64_MAX - v ? UINT64_MAX : *to + v;
}

/* A figure of stats.arenas.<A> (path[2] is A). */
static int arena_fig(struct rd *r, int depth, const char *v, size_t n)
{
	static const char *const figs[A_NFIG] = { "pactive", "pdirty", "pmuzzy", "tcache_bytes",
						  "small", "large" };
	static const char *const bfigs[B_NFIG] = { "curregs", "curslabs", "nonfull_slabs" };
	struct arenas *a = at(r, depth, 2, "merged") ? &r->merged : &r->each;
	uint64_t x;
	size_t c = 0;

	a->seen = 1;
	if (depth == 4) {
		for (int f = 0; f < A_NFIG; f++)
			if (f < A_SMALL && at(r, depth, 3, figs[f]))
				return want_u64(r, depth, v, n, &x) < 0 ? -1 : (add(&a->fig[f], x), 0);
		return 0;
	}
	if (depth == 5 && (at(r, depth, 3, "small") || at(r, depth, 3, "large")) &&
	    at(r, depth, 4, "allocated")) {
		if (want_u64(r, depth, v, n, &x) < 0)
			return -1;
		add(&a->fig[at(r, depth, 3, "small") ? A_SMALL : A_LARGE], x);
		return 0;
	}
	if (depth == 6 && at(r, depth, 3, "bins") && !r->path[4].key) {
		for (int f = 0; f < B_NFIG; f++)
			if (at(r, depth, 5, bfigs[f])) {
				if (class_idx(r, 4, v, &c) < 0 || want_u64(r, depth, v, n, &x) < 0)
					return -1;
				add(&a->bin[c][f], x);
				r->arena_bins = 1;
			}
		return 0;
	}
	if (depth == 6 && at(r, depth, 3, "lextents") && !r->path[4].key &&
	    at(r, depth, 5, "curlextents")) {
		if (class_idx(r, 4, v, &c) < 0 || want_u64(r, depth, v, n, &x) < 0)
			return -1;
		add(&a->lext[c], x);
	}
	return 0;
}

/* A scalar v[0..n) (a string's raw bytes when str) at path[0..depth). */
static int scalar(struct rd *r, int depth, const char *v, size_t n, int str)
{
	struct fk_jestats *st = r->st;
	uint64_t x;
	size_t c = 0;

	if (!at(r, depth, 0, "jemalloc"))
		return 0;
	if (depth == 2 && at(r, depth, 1, "version")) {
		if (!str)
			return bad_field(r, depth, v, n, "a string");
		snprintf(st->version, sizeof st->version, "%.*s", (int)(n < 79 ? n : 79), v);
		return 0;
	}
	r->str = str;
	if (depth == 3 && at(r, depth, 1, "config") && at(r, depth, 2, "stats")) {
		int64_t b;

		if (want_bool(r, depth, v, n, &b) < 0)
			return -1;
		st->stats = (int)b;
		return 0;
	}
	if (depth == 3 && at(r, depth, 1, "opt")) {
		static const struct { const char *k; int kind; size_t off; } opts[] = {
			{ "dirty_decay_ms", 'i', offsetof(struct fk_jestats, dirty_decay_ms) },
			{ "muzzy_decay_ms", 'i', offsetof(struct fk_jestats, muzzy_decay_ms) },
			{ "retain", 'b', offsetof(struct fk_jestats, retain) },
			{ "background_thread", 'b', offsetof(struct fk_jestats, background_thread) },
			{ "cache_oblivious", 'b', offsetof(struct fk_jestats, cache_oblivious) },
			{ "tcache_max", 'i', offsetof(struct fk_jestats, tcache_max) },
		};
		for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
			if (at(r, depth, 2, opts[i].k)) {
				int64_t *to = (int64_t *)(void *)((char *)st + opts[i].off);

				return opts[i].kind == 'b' ? want_bool(r, depth, v, n, to)
					: want_i64(r, depth, v, n, to);
			}
		return 0;
	}
	if (at(r, depth, 1, "arenas")) {
		if (depth == 3 && at(r, depth, 2, "page"))
			return want_u64(r, depth, v, n, &st->page);
		if (depth == 3 && at(r, depth, 2, "nbins"))
			return want_u64(r, depth, v, n, &r->nbins);
		if (depth == 3 && at(r, depth, 2, "nlextents"))
			return want_u64(r, depth, v, n, &r->nlext);
		if (depth == 5 && at(r, depth, 2, "bin") && !r->path[3].key) {
			static const char *const shape[] = { "size", "nregs", "slab_size" };

			for (int f = 0; f < 3; f++)
				if (at(r, depth, 4, shape[f])) {
					if (class_idx(r, 3, v, &c) < 0 ||
					    want_u64(r, depth, v, n, &r->bin_shape[c][f]) < 0)
						return -1;
					if (c + 1 > r->bins_seen)
						r->bins_seen = c + 1;
				}
			return 0;
		}
		if (depth == 5 && at(r, depth, 2, "lextent") && !r->path[3].key &&
		    at(r, depth, 4, "size")) {
			if (class_idx(r, 3, v, &c) < 0 ||
			    want_u64(r, depth, v, n, &r->lext_size[c]) < 0)
				return -1;
			if (c + 1 > r->lext_seen)
				r->lext_seen = c + 1;
		}
		return 0;
	}
	if (at(r, depth, 1, "stats")) {
		static const struct { const char *k; size_t off; } tot[] = {
			{ "allocated", offsetof(struct fk_jestats, allocated) },
			{ "active", offsetof(struct fk_jestats, active) },
			{ "metadata", offsetof(struct fk_jestats, metadata) },
			{ "resident", offsetof(struct fk_jestats, resident) },
			{ "mapped", offsetof(struct fk_jestats, mapped) },
			{ "retained", offsetof(struct fk_jestats, retained) },
		};
		if (depth == 3)
			for (size_t i = 0; i < sizeof tot / sizeof tot[0]; i++)
				if (at(r, depth, 2, tot[i].k))
					return want_u64(r, depth, v, n, (uint64_t *)(void *)
							((char *)st + tot[i].off));
		if (depth == 3 && at(r, depth, 2, "metadata_rtree"))
			return want_u64(r, depth, v, n, &x) < 0 ? -1 : (st->metadata_rtree = x > INT64_MAX ? INT64_MAX : (int64_t)x, 0);
		if (depth == 4 && at(r, depth, 2, "background_thread") &&
		    at(r, depth, 3, "num_threads"))
			return want_u64(r, depth, v, n, &x) < 0 ? -1 : (st->bg_threads = (int64_t)x, 0);
		return 0;
	}
	if (depth >= 4 && at(r, depth, 1, "stats.arenas") && r->path[2].key)
		return arena_fig(r, depth, v, n);
	return 0;
}

/* Any value at path[0..depth). */
static int value(struct rd *r, int depth)
{
	const char *v;
	size_t n;
	uint64_t idx = 0;
	int more;

	if (depth > FK_JESTATS_MAX_NEST)
		return fk_json_bad(&r->j, r->j.s, "values nested too deep");
	fk_json_ws(&r->j);
	if (r->j.s >= r->j.end)
		return fk_json_bad(&r->j, r->j.s, "want a value");
	if (*r->j.s == '"')
		return fk_json_string(&r->j, &v, &n) < 0 ? -1 : scalar(r, depth, v, n, 1);
	if (*r->j.s != '{' && *r->j.s != '[')
		return fk_json_scalar(&r->j, &v, &n) < 0 ? -1 : scalar(r, depth, v, n, 0);
	if (depth >= MAX_PATH)     /* deeper than any figure read */
		return fk_json_skip(&r->j, depth, FK_JESTATS_MAX_NEST);
	char close = *r->j.s == '{' ? '}' : ']';

	r->j.s++;
	fk_json_ws(&r->j);
	if (r->j.s < r->j.end && *r->j.s == close) {
		r->j.s++;
		return 0;
	}
	do {
		struct step *s = &r->path[depth];

		s->key = NULL;
		s->idx = idx++;
		if (close == '}' && (fk_json_string(&r->j, &s->key, &s->n) < 0 ||
				     fk_json_expect(&r->j, ':', "want ':'") < 0))
			return -1;
		if (value(r, depth + 1) < 0)
			return -1;
	} while ((more = fk_json_next(&r->j, close, close == '}' ? "want ',' or '}'"
				      : "want ',' or ']'")) == 1);
	return more;
}

/* The tables' counts agree with arenas.nbins and arenas.nlextents. */
static int tables_agree(struct rd *r)
{
	if (r->nbins != UINT64_MAX && r->bins_seen && r->nbins != r->bins_seen)
		return fk_err_set(r->j.err, FK_ESYNTAX, 0, "jemalloc.arenas.nbins is %llu but "
				  "jemalloc.arenas.bin has %zu classes",
				  (unsigned long long)r->nbins, r->bins_seen);
	if (r->nlext != UINT64_MAX && r->lext_seen && r->nlext != r->lext_seen)
		return fk_err_set(r->j.err, FK_ESYNTAX, 0, "jemalloc.arenas.nlextents is %llu "
				  "but jemalloc.arenas.lextent has %zu classes",
				  (unsigned long long)r->nlext, r->lext_seen);
	for (size_t c = 0; c < r->bins_seen; c++)
		if (r->bin_shape[c][0] == 0 || r->bin_shape[c][1] == 0 ||
		    r->bin_shape[c][2] > FK_JESTATS_MAX_SLAB ||
		    r->bin_shape[c][1] > r->bin_shape[c][2] / r->bin_shape[c][0] ||
		    (c > 0 && r->bin_shape[c][0] <= r->bin_shape[c - 1][0]))
			return fk_err_set(r->j.err, FK_ESYNTAX, 0, "jemalloc.arenas.bin[%zu]: want "
					  "a size above the class before it and nregs regions "
					  "of it within slab_size (at most %llu bytes)", c,
					  (unsigned long long)FK_JESTATS_MAX_SLAB);
	return 0;
}

int fk_jestats_parse(struct fk_jestats *st, const char *data, size_t len, struct fk_err *err)
{
	struct rd *r = calloc(1, sizeof *r);
	int rc;

	if (!r)
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	fk_json_init(&r->j, data, len, err);
	r->st = st;
	r->nbins = r->nlext = UINT64_MAX;
	fk_json_ws(&r->j);
	if (r->j.s >= r->j.end || *r->j.s != '{')
		rc = fk_json_bad(&r->j, r->j.s, "want malloc_stats_print's JSON object "
				 "(opts J)");
	else
		rc = value(r, 0);
	if (rc == 0) {
		fk_json_ws(&r->j);
		if (r->j.s < r->j.end)
			rc = fk_json_bad(&r->j, r->j.s, "data after the JSON object");
	}
	if (rc == 0 && !st->version[0])
		rc = fk_err_set(err, FK_ESYNTAX, 0, "no jemalloc.version: not "
				"malloc_stats_print's JSON");
	if (rc == 0)
		rc = tables_agree(r);
	if (rc == 0)
		rc = fk_jestats_classes(st, r->bins_seen, r->lext_seen, err);
	if (rc == 0) {
		const struct arenas *a = r->merged.seen ? &r->merged : &r->each;

		st->have_bins = r->arena_bins && r->bins_seen > 0;
		st->pactive = a->fig[A_PACTIVE];
		st->pdirty = a->fig[A_PDIRTY];
		st->pmuzzy = a->fig[A_PMUZZY];
		st->tcache_bytes = a->fig[A_TCACHE];
		st->small_allocated = a->fig[A_SMALL];
		st->large_allocated = a->fig[A_LARGE];
		for (size_t c = 0; c < st->nbins; c++) {
			struct fk_jestats_bin *b = &st->bins[c];

			b->size = r->bin_shape[c][0];
			b->nregs = r->bin_shape[c][1];
			b->slab_size = r->bin_shape[c][2];
			b->curregs = a->bin[c][B_CURREGS];
			b->curslabs = a->bin[c][B_CURSLABS];
			b->nonfull_slabs = a->bin[c][B_NONFULL];
			if (b->curslabs > FK_JESTATS_MAX_SLABS) {
				rc = fk_err_set(err, FK_ELIMIT, 0, "class %zu: more than %llu slabs",
						c, (unsigned long long)FK_JESTATS_MAX_SLABS);
				break;
			}
			if (b->curregs > b->curslabs * b->nregs) {
				rc = fk_err_set(err, FK_ESYNTAX, 0, "class %zu (%llu bytes): %llu "
						"regions in use in %llu slabs of %llu", c,
						(unsigned long long)b->size,
						(unsigned long long)b->curregs,
						(unsigned long long)b->curslabs,
						(unsigned long long)b->nregs);
				break;
			}
		}
		for (size_t c = 0; c < st->nlext; c++) {
			st->lext[c].size = r->lext_size[c];
			st->lext[c].curlextents = a->lext[c];
		}
	}
	free(r);
	return rc;
}

int fk_jestats_load(struct fk_jestats *st, const char *path, struct fk_err *err)
{
	char *data;
	size_t len;
	int mapped, rc;

	if (fk_map_text_input(strcmp(path, "-") ? path : NULL, &data, &len, &mapped, err) < 0)
		return -1;
	rc = fk_jestats_parse(st, data, len, err);
	fk_release_input(data, len, mapped);
	return rc;
}
