/* SPDX-License-Identifier: MIT */
/* GET /internal/heap/waste: where the program's memory goes (core/waste.h,
 * man/heap-waste.1): jemalloc's statistics read through mallctl
 * (jemalloc(3): arenas.bin.<j>.*, stats.arenas.<i>.*, after one epoch
 * refresh), every figure less the hook's own arena, laid to the sites of
 * the live heap dump; as JSON, folded stacks or a flame page. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grow.h"
#include "serve_int.h"
#include "input.h"
#include "jestats.h"
#include "maps.h"
#include "serve_req.h"
#include "waste_enc.h"

const char *fk_waste_format_name(int i)
{
	static const char *const w[] = { "json", "folded", "flame" };

	return i >= 0 && i < 3 ? w[i] : NULL;
}

/* A size_t figure, or 0. */
static uint64_t zu(const char *name)
{
	size_t v = 0, sz = sizeof v;

	return fk_je_ctl(name, &v, &sz, NULL, 0) == 0 ? (uint64_t)v : 0;
}

/* An unsigned figure, or 0. */
static uint64_t uns(const char *name)
{
	unsigned v = 0;
	size_t sz = sizeof v;

	return fk_je_ctl(name, &v, &sz, NULL, 0) == 0 ? v : 0;
}

static int64_t flag(const char *name)
{
	bool v = false;
	size_t sz = sizeof v;

	return fk_je_ctl(name, &v, &sz, NULL, 0) == 0 ? v : FK_JESTATS_NONE;
}

/* A size_t figure, or FK_JESTATS_NONE where jemalloc has none. */
static int64_t zu_or_none(const char *name)
{
	size_t v = 0, sz = sizeof v;

	return fk_je_ctl(name, &v, &sz, NULL, 0) == 0 && v <= INT64_MAX ? (int64_t)v
		: FK_JESTATS_NONE;
}

static int64_t ssz(const char *name)
{
	ssize_t v = 0;
	size_t sz = sizeof v;

	return fk_je_ctl(name, &v, &sz, NULL, 0) == 0 ? (int64_t)v : FK_JESTATS_NONE;
}

/* stats.arenas.<every>.LEAF less stats.arenas.<hook>.LEAF (hook < 0: none),
 * never below 0; read as size_t. */
static uint64_t program(int hook, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static uint64_t program(int hook, const char *fmt, ...)
{
	char leaf[96], name[128];
	uint64_t all, own = 0;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(leaf, sizeof leaf, fmt, ap);
	va_end(ap);
	snprintf(name, sizeof name, "stats.arenas.4096.%s", leaf);
	all = zu(name);
	if (hook >= 0) {
		snprintf(name, sizeof name, "stats.arenas.%d.%s", hook, leaf);
		own = zu(name);
	}
	return all > own ? all - own : 0;
}

/* The radix tree's leaves from the process's mappings (/proc/self/maps),
 * kept while jemalloc maps no more address space: reading and parsing
 * the maps costs a snapshot ~0.3 ms (bench/README.md, "Snapshots"), and
 * a leaf comes only with new address space. Under fk_je_lock. */
static struct { uint64_t key; struct fk_waste_rtree r; int have; } rtree_kept;

static void own_rtree(const struct fk_jestats *st, struct fk_waste_proc *pr, uint64_t key)
{
	FILE *f;
	struct fk_profile *mp = NULL;
	char *text = NULL, buf[16384];
	size_t len = 0, cap = 0, r;
	struct fk_err err;

	if (rtree_kept.have && rtree_kept.key == key) {
		pr->rtree = rtree_kept.r;
		pr->have_rtree = 1;
		return;
	}
	if (!(f = fopen("/proc/self/maps", "re")))
		return;
	while ((r = fread(buf, 1, sizeof buf, f)) > 0)
		if (fk_append(&text, &len, &cap, buf, r) < 0)
			break;
	fk_err_init(&err, NULL);
	if (!ferror(f) && feof(f) && text && (mp = fk_profile_new("maps")) &&
	    fk_maps_parse(mp, text, len, 1, &err) == 0) {
		fk_waste_rtree_of(&pr->rtree, st, mp->maps, mp->nmaps);
		pr->have_rtree = 1;
		rtree_kept.key = key;
		rtree_kept.r = pr->rtree;
		rtree_kept.have = 1;
	}
	fk_profile_free(mp);
	free(text);
	fclose(f);
}

int fk_waste_stats(struct fk_jestats *st, struct fk_waste_proc *pr, struct fk_arena_mem *hostp,
		   struct fk_arena_mem *ownp, int large, struct fk_err *err)
{
	struct fk_arena_mem host, own;
	const char *ver = NULL;
	size_t sz = sizeof ver;
	int hook = fk_arena_split(&host, &own);    /* the epoch refresh too */
	char name[96];
	size_t nbins = uns("arenas.nbins"), nlext = large ? uns("arenas.nlextents") : 0;
	FILE *f = fopen("/proc/self/statm", "re");
	long long size, rss, shared;

	if (hostp)
		*hostp = host;
	if (ownp)
		*ownp = own;
	pr->hook_resident = own.resident;
	pr->rss = pr->file_rss = -1;
	pr->have_rtree = 0;
	if (f) {
		if (fscanf(f, "%lld %lld %lld", &size, &rss, &shared) == 3) {
			pr->rss = rss * (int64_t)sysconf(_SC_PAGESIZE);
			pr->file_rss = shared * (int64_t)sysconf(_SC_PAGESIZE);
		}
		fclose(f);
	}
	if (fk_je_ctl("version", &ver, &sz, NULL, 0) == 0 && ver)
		snprintf(st->version, sizeof st->version, "%s", ver);
	st->stats = flag("config.stats") == 1;
	st->dirty_decay_ms = ssz("opt.dirty_decay_ms");
	st->muzzy_decay_ms = ssz("opt.muzzy_decay_ms");
	st->retain = flag("opt.retain");
	st->background_thread = flag("background_thread");
	st->cache_oblivious = flag("opt.cache_oblivious");
	st->tcache_max = (int64_t)zu("opt.tcache_max");
	st->bg_threads = (int64_t)zu("stats.background_thread.num_threads");
	st->page = zu("arenas.page");
	st->allocated = host.allocated > 0 ? (uint64_t)host.allocated : 0;
	st->active = host.active > 0 ? (uint64_t)host.active : 0;
	st->resident = host.resident > 0 ? (uint64_t)host.resident : 0;
	st->mapped = host.mapped > 0 ? (uint64_t)host.mapped : 0;
	st->retained = host.retained > 0 ? (uint64_t)host.retained : 0;
	st->metadata = host.metadata > 0 ? (uint64_t)host.metadata : 0;
	st->pactive = program(hook, "pactive");
	st->pdirty = program(hook, "pdirty");
	st->pmuzzy = program(hook, "pmuzzy");
	st->tcache_bytes = program(hook, "tcache_bytes");
	st->metadata_rtree = zu_or_none("stats.metadata_rtree");
	st->small_allocated = program(hook, "small.allocated");
	st->large_allocated = program(hook, "large.allocated");
	if (fk_jestats_classes(st, nbins, nlext, err) < 0)
		return -1;
	for (size_t j = 0; j < nbins; j++) {
		struct fk_jestats_bin *b = &st->bins[j];
		uint32_t nregs = 0;

		snprintf(name, sizeof name, "arenas.bin.%zu.size", j);
		b->size = zu(name);
		snprintf(name, sizeof name, "arenas.bin.%zu.nregs", j);
		sz = sizeof nregs;
		if (fk_je_ctl(name, &nregs, &sz, NULL, 0) == 0)
			b->nregs = nregs;
		snprintf(name, sizeof name, "arenas.bin.%zu.slab_size", j);
		b->slab_size = zu(name);
		b->curregs = program(hook, "bins.%zu.curregs", j);
		b->curslabs = program(hook, "bins.%zu.curslabs", j);
		b->nonfull_slabs = program(hook, "bins.%zu.nonfull_slabs", j);
	}
	for (size_t j = 0; j < nlext; j++) {
		snprintf(name, sizeof name, "arenas.lextent.%zu.size", j);
		st->lext[j].size = zu(name);
		st->lext[j].curlextents = program(hook, "lextents.%zu.curlextents", j);
	}
	st->have_bins = st->stats && nbins > 0;
	own_rtree(st, pr, (uint64_t)(host.mapped + host.retained) ^
		  (uint64_t)(own.mapped + own.retained) << 32 ^ (uint64_t)st->metadata_rtree);
	return 0;
}

/* The live heap dump as a profile, or NULL (with a note in w why) when
 * jemalloc cannot profile or nothing was sampled. */
static struct fk_profile *live_profile(char **raw, size_t *maplen, char *note, size_t size,
				       struct fk_err *err)
{
	struct fk_profile *p;
	const char *why = "";
	size_t len;

	*raw = NULL;
	if (fk_je_check(&why) != FK_JE_OK) {
		snprintf(note, size, "no heap profile (%s): no site is shown", why);
		return NULL;
	}
	if (!fk_state_sampled()) {
		snprintf(note, size, "%s: no site is shown", FK_HOOK_NOTHING_SAMPLED);
		return NULL;
	}
	if (fk_serve_dump(raw, &len, maplen, err) < 0)
		return NULL;
	if (!(p = fk_profile_new("heap")) || fk_profile_parse(p, *raw, len, err) < 0) {
		if (!p)
			fk_err_set(err, FK_ENOMEM, 0, "out of memory");
		fk_profile_free(p);
		fk_hook_buf_release(*raw, *maplen);
		*raw = NULL;
		return NULL;
	}
	return p;
}

/* jemalloc's record of recent sampled allocations as sizes for p's
 * stacks, or NULL with a sentence in note why not. */
static struct fk_waste_split *recent_split(const struct fk_jestats *st,
					   const struct fk_profile *p, char *note, size_t size)
{
	struct fk_waste_split *sp = NULL;
	struct fk_err err;
	char *data = NULL;
	size_t len = 0, maplen = 0;

	fk_err_init(&err, NULL);
	if (fk_recent_dump(&data, &len, &maplen, &err) == 0) {
		sp = fk_waste_split_read(st, p, data, len, &err);
		fk_hook_buf_release(data, maplen);
	}
	if (!sp)
		snprintf(note, size, "no record of the samples' sizes (%.160s): each site is in the "
			 "class of its mean size", err.msg);
	return sp;
}

/* The estimate in fmt (0 json, 1 folded, 2 flame) into *out (malloc'd):
 * 0, 1 with err when folded or flame has no line, or -1 with err. Under
 * fk_je_lock. */
static int waste(int fmt, const struct fk_serve_opts *o, char **out, size_t *len,
		 struct fk_err *err)
{
	struct fk_jestats st;
	struct fk_waste_proc pr;
	struct fk_waste w;
	struct fk_profile *p = NULL;
	struct fk_waste_split *sp = NULL;
	char *raw = NULL, note[sizeof w.note[0]] = "", sizes[sizeof w.note[0]] = "";
	size_t rawmap = 0, maplen = 0;
	int rc;

	fk_jestats_init(&st);
	rc = fk_waste_stats(&st, &pr, NULL, NULL, 1, err);
	if (rc == 0 && !(p = live_profile(&raw, &rawmap, note, sizeof note, err)) && !note[0])
		rc = -1;
	/* The record costs ~0.2 s and ~40 MB at a time when full (65536
	 * records; bench/README.md, "Waste"): read only for stacks that need
	 * it. */
	if (rc == 0 && p && st.have_bins && fk_waste_mixed_stacks(&st, p))
		sp = recent_split(&st, p, sizes, sizeof sizes);
	if (rc == 0 && (rc = fk_waste_compute_split(&w, &st, p, &pr, sp, err)) == 0) {
		if (note[0] && !w.note[1][0])
			snprintf(w.note[1], sizeof w.note[1], "%s", note);
		if (sizes[0])
			snprintf(w.note[2], sizeof w.note[2], "%s", sizes);
		if (fmt != 0 && (!p || w.attributed == 0)) {
			rc = 1;
			fk_err_set(err, FK_EUNSUPP, 0, "no site is blamed for any waste: %s",
				   w.note[1][0] ? w.note[1] : w.note[0][0] ? w.note[0]
				   : "no sampled site freed objects in a class with slab waste");
		} else if (fmt == 0) {
			FILE *f = open_memstream(out, len);

			rc = !f ? fk_err_set(err, FK_ENOMEM, 0, "out of memory")
				: p ? fk_serve_symbolize(p, err) : 0;
			if (rc == 0)
				rc = fk_waste_json_write(p, &w, &st, f, err);
			if (f && fclose(f) != 0 && rc == 0)
				rc = fk_err_set(err, FK_ENOMEM, 0, "out of memory");
		} else {
			struct fk_serve_opts vo = *o;

			if (!vo.title || !*vo.title)
				vo.title = "Heap waste by allocation site";
			fk_waste_apply(p, &w);
			struct fk_origin origin = { .time = 0 };

			rc = fk_serve_emit(p, fmt == 1 ? FK_OUT_FOLDED : FK_OUT_FLAME, &vo, &origin,
					   out, len, &maplen, err);
		}
		if (rc != 0) {
			free(*out);
			*out = NULL;
		}
		fk_waste_release(&w);
	}
	fk_waste_split_free(sp);
	fk_profile_free(p);
	if (raw)
		fk_hook_buf_release(raw, rawmap);
	fk_jestats_release(&st);
	return rc;
}

void fk_waste_route(const struct fk_request *rq, const struct fk_req *q, struct fk_reply *r)
{
	struct fk_serve_opts o = { .minwidth = -1, .inverted = -1 };
	const char *why = "";
	struct fk_err err;
	int fmt = q->format, rc;

	(void)rq;
	o.title = q->title;
	if (fk_je_check(&why) == FK_JE_NOTFOUND) {
		fk_reply_error(r, 503, "%s", why);
		return;
	}
	fk_err_init(&err, NULL);
	r->body = NULL;
	fk_je_lock();
	rc = waste(fmt, &o, &r->body, &r->len, &err);
	fk_je_unlock();
	if (rc != 0) {
		fk_reply_error(r, rc > 0 ? 409 : err.code == FK_EUNSUPP ? 503 : 500, "%s", err.msg);
		return;
	}
	r->status = 200;
	r->maplen = 0;
	r->ctype = fmt == 0 ? "application/json" : fk_fmt_ctype(fmt == 1 ? FK_OUT_FOLDED
								 : FK_OUT_FLAME);
}
