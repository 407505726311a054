/* SPDX-License-Identifier: MIT */
/* The formats the hook serves: a raw jemalloc dump turned into pprof, a
 * flame graph, folded stacks or a symbolized profile by the same library
 * code the tools run (DESIGN.md: "Everything a binary does is a library
 * call first"): fk_profile_parse, fk_symbolize, fk_pprof_encode,
 * fk_folded_write, fk_folded_each_stack into fk_flame_add_stack_cols,
 * fk_flame_render, fk_symprof_write, fk_profile_diff.
 * The one place that knows those libraries' entry points. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "diff.h"
#include "flame.h"
#include "folded_enc.h"
#include "serve_int.h"
#include "num.h"
#include "pprof_enc.h"
#include "series_enc.h"
#include "heapdump.h"
#include "symbolize.h"
#include "symprof.h"

static const struct {
	const char *name, *ctype;
} fmts[] = {
	[FK_OUT_PPROF] = { "pprof", "application/octet-stream" },
	[FK_OUT_FLAME] = { "flame", "image/svg+xml" },
	[FK_OUT_FOLDED] = { "folded", "text/plain; charset=utf-8" },
	[FK_OUT_RAW] = { "raw", "text/plain; charset=utf-8" },
	[FK_OUT_SYMBOLIZED] = { "symbolized", "text/plain; charset=utf-8" },
};

/* Windows (?seconds=N) whose base dump is taken and that wait for their
 * end: the settings report it, so a client can tell its window is open. */
static atomic_uint windows_open;

unsigned fk_serve_windows(void)
{
	return atomic_load(&windows_open);
}

int fk_fmt_parse(const char *name)
{
	for (size_t i = 0; i < sizeof fmts / sizeof fmts[0]; i++)
		if (strcmp(name, fmts[i].name) == 0)
			return (int)i;
	return -1;
}

const char *fk_fmt_name(int fmt)
{
	if (fmt < 0 || (size_t)fmt >= sizeof fmts / sizeof fmts[0])
		return NULL;
	return fmts[fmt].name;
}

const char *fk_fmt_ctype(int fmt)
{
	if (fmt < 0 || (size_t)fmt >= sizeof fmts / sizeof fmts[0])
		return "application/octet-stream";
	return fmts[fmt].ctype;
}

const char *fk_sample_type_name(int i)
{
	static const char *const w[] = { "inuse_space", "inuse_objects", "alloc_space",
					 "alloc_objects" };

	return i >= 0 && i < 4 ? w[i] : NULL;
}

int fk_serve_check(const struct fk_serve_opts *o, const char **msg)
{
	if (o->colors && fk_flame_palette_check(o->colors) < 0) {
		*msg = "unknown colors: want hot, mem, io, red, green, blue, aqua, "
		       "yellow, purple or orange";
		return -1;
	}
	if (o->minwidth_pct && o->minwidth > 100) {
		*msg = "minwidth above 100%";
		return -1;
	}
	return 0;
}

/* A FILE writing into a growing malloc'd buffer. */
struct membuf {
	FILE *f;
	char *buf;
	size_t len;
};

static int mb_open(struct membuf *m, struct fk_err *err)
{
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
	if (!m->f)
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	return 0;
}

/* Closes m; on success hands its buffer to *out, else frees it. */
static int mb_close(struct membuf *m, int rc, char **out, size_t *outlen,
		    struct fk_err *err)
{
	if (fclose(m->f) != 0 && rc == 0)
		rc = fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	if (rc < 0) {
		free(m->buf);
		return -1;
	}
	*out = m->buf;
	*outlen = m->len;
	return 0;
}

/* render-flame's options for a page from a request's o (may be NULL),
 * with title when it gives none. */
static void flame_opts(struct fk_flame_opts *fo, const struct fk_serve_opts *o,
		       const char *title)
{
	fk_flame_opts_init(fo);
	fo->title = title;
	if (!o)
		return;
	if (o->title && *o->title)
		fo->title = o->title;
	if (o->colors && *o->colors)
		fo->colors = o->colors;
	if (o->minwidth >= 0) {
		fo->minwidth = o->minwidth;
		fo->minwidth_pct = o->minwidth_pct;
	}
	if (o->inverted >= 0)
		fo->inverted = o->inverted != 0;
}

/* One stack of the profile into the flame graph ctx, a value a column. */
static int flame_stack(void *ctx, const char *const *names, const size_t *lens, size_t n,
		       const int64_t *v, struct fk_err *err)
{
	return fk_flame_add_stack_cols(ctx, names, lens, n, v, err);
}

/* The page of p saying what origin says (may be NULL): its stacks
 * straight into the graph's tree, as render-flame draws to-folded's text
 * of p (with origin->columns, to-folded --columns's) after the origin's
 * "# info:" lines (the same bytes: tests/hook/flame-direct.t), without
 * writing that text and parsing it back. */
static int write_flame(const struct fk_profile *p, const struct fk_serve_opts *o,
		       const struct fk_origin *origin, char **out, size_t *outlen,
		       struct fk_err *err)
{
	struct fk_folded_opts fold = { .columns = origin && origin->columns,
				       .lines = o && o->lines };
	struct fk_flame_opts fo;
	struct fk_flame *f;
	struct membuf svg;
	char info[FK_ORIGIN_SIZE];
	int rc = 0;

	/* A page of every sample type shows allocated memory too. */
	flame_opts(&fo, o, fold.columns ? "Heap profile" : "Heap in use");
	if (origin)
		fo.info = fk_origin_text(origin, info);
	if (!(f = fk_flame_new(&fo, err)))
		return -1;
	if (fold.columns)
		rc = fk_flame_set_columns(f, fk_folded_columns(p), err);
	if (rc == 0)
		rc = fk_folded_each_stack(p, &fold, flame_stack, f, err);
	if (rc == 0 && (rc = mb_open(&svg, err)) == 0) {
		rc = fk_flame_write(f, svg.f, err);
		rc = mb_close(&svg, rc, out, outlen, err);
	}
	fk_flame_free(f);
	return rc;
}

/* Each thread symbolization starts for the hook stays out of the profiles
 * it serves and out of the program's arenas: sampling off and the hook's
 * arena on before it allocates. */
static void unsampled_thread(void *ctx)
{
	(void)ctx;
	fk_je_thread_active(0, NULL);
	fk_arena_enter_thread();
}

/* Asking DEBUGINFOD_URLS's servers failed (only with it set for the
 * program): one line, as symbolize prints it; the modules it concerned
 * stay cached unnamed, so a later request does not ask again. */
static void warn_server(void *ctx, const char *urls, const char *what)
{
	(void)ctx;
	fk_log("debuginfod %s: %s", urls, what);
}

/* The pprof options of a request: a snapshot (window 0) or a window of
 * that many seconds ending now. */
static void pprof_opts(struct fk_pprof_opts *po, const struct fk_serve_opts *o,
		       double window)
{
	struct timespec ts;

	memset(po, 0, sizeof *po);
	clock_gettime(CLOCK_REALTIME, &ts);
	/* Go's convention (net/http/pprof): a window's time is its end. */
	po->time_nanos = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	po->duration_nanos = window > 0 ? (int64_t)(window * 1e9) : 0;
	po->source = "flamekit-hook";
	po->level = 1;             /* the server's time matters more than bytes */
	po->accum = fk_je_prof_accum();
	po->default_alloc = o && o->allocs;
	po->max_samples = o ? o->max_samples : fk_env_get()->max_samples;
	/* A snapshot's trie is the next snapshot's (a window's stacks are
	 * others: they would only push it out). */
	po->memo = window > 0 ? NULL : fk_memo_pprof();
	if (o && o->allocs && !po->accum)
		po->note = fk_je_no_accum();
}

/* What symbolizing learned about each module, kept between requests
 * (under fk_je_lock, like every conversion): made on the first request
 * with a budget of FLAMEKIT_CACHE_MB megabytes (0: no cache), freed by
 * fk_serve_cache_drop. */
static struct fk_symcache *cache;

static struct fk_symcache *serve_cache(void)
{
	/* Its files are open in the hook thread's own table: another thread
	 * (a host thread calling the API with no server) goes without. */
	if (!fk_self_is_hook())
		return NULL;
	if (!cache && fk_env_get()->cache_mb > 0)
		cache = fk_symcache_new(fk_env_get()->cache_mb << 20);
	return cache;
}

void fk_serve_atfork_child(void)
{
	cache = NULL;
	fk_memo_atfork_child();
	atomic_store(&windows_open, 0);
}

void fk_serve_cache_drop(void)
{
	fk_je_lock();
	fk_symcache_free(cache);
	cache = NULL;
	fk_memo_drop();
	fk_je_unlock();
}

void fk_serve_cache_stats(struct fk_symcache_stats *st)
{
	memset(st, 0, sizeof *st);
	fk_je_lock();
	if (cache)
		fk_symcache_stats(cache, st);
	fk_je_unlock();
}

/* The range "LO-HI " a maps line s[0..n) starts with; 0 or -1. */
static int map_range(const char *s, size_t n, uint64_t *lo, uint64_t *hi)
{
	const char *dash = memchr(s, '-', n), *sp;

	if (!dash)
		return -1;
	sp = memchr(dash, ' ', n - (size_t)(dash - s));
	if (!sp || fk_parse_hex(s, (size_t)(dash - s), 0, lo) < 0 ||
	    fk_parse_hex(dash + 1, (size_t)(sp - dash - 1), 0, hi) < 0)
		return -1;
	return 0;
}

/* Drops from the MAPPED_LIBRARIES of dump[0..*len) the mappings the module
 * cache made itself (libelf's views of the files it keeps): no part of
 * the program, and a reader of the dump elsewhere would take them for a
 * segment that does not fit the file. */
/* The "\nMAPPED_LIBRARIES:\n" of dump[0..len), found from the end: the
 * maps are the dump's last lines, and a search from the start read the
 * whole 10 MB of a large heap's stacks for every dump (about 1 ms). */
static char *maps_head(char *dump, size_t len)
{
	static const char head[] = "\nMAPPED_LIBRARIES:\n";
	const size_t n = sizeof head - 1;
	char *nl;

	for (size_t end = len; end > 0 && (nl = memrchr(dump, '\n', end)); end = (size_t)(nl - dump))
		if ((size_t)(nl - dump) + 1 >= n && memcmp(nl + 1 - n, head, n) == 0)
			return nl + 1 - n;
	return NULL;
}

void fk_serve_drop_own_maps(char *dump, size_t *len)
{
	static const char head[] = "\nMAPPED_LIBRARIES:\n";
	char *m = cache ? maps_head(dump, *len) : NULL;
	char *end = dump + *len, *w, *s;
	uint64_t lo, hi;

	if (!m)
		return;
	for (w = s = m + sizeof head - 1; s < end;) {
		char *nl = memchr(s, '\n', (size_t)(end - s));
		char *e = nl ? nl + 1 : end;

		if (map_range(s, (size_t)(e - s), &lo, &hi) < 0 || !fk_symcache_owns(cache, lo, hi)) {
			memmove(w, s, (size_t)(e - s));
			w += e - s;
		}
		s = e;
	}
	*len = (size_t)(w - dump);
}

int fk_serve_dump(char **data, size_t *len, size_t *maplen, struct fk_err *err)
{
	int rc = fk_je_dump(data, len, maplen, err);

	if (rc == 0)
		fk_serve_drop_own_maps(*data, len);
	return rc;
}

/* The pprof of p: a body stamped with the request's time (fk_pprof_stamp),
 * the body handed to *keep when keep is not NULL, else freed. */
static int write_pprof(const struct fk_profile *p, const struct fk_pprof_opts *po,
		       char **out, size_t *outlen, struct fk_pprof_body **keep,
		       struct fk_err *err)
{
	struct fk_pprof_body *b;
	int rc;

	if (fk_pprof_encode_body(p, po, &b, err) < 0)
		return -1;
	rc = fk_pprof_stamp(b, po->time_nanos, po->duration_nanos, (unsigned char **)out,
			    outlen, err);
	if (rc == 0 && keep)
		*keep = b;
	else
		fk_pprof_body_free(b);
	return rc;
}

/* Symbolizes p with the files its maps name (the live process's own) and
 * writes it in fmt; a pprof covers window seconds (0: a snapshot), a
 * flame page says what origin says. A pprof's body goes to *keep when
 * keep is not NULL. */
static int emit(struct fk_profile *p, int fmt, const struct fk_serve_opts *o,
		const struct fk_origin *origin, double window, const char *note, char **out,
		size_t *outlen, struct fk_pprof_body **keep, struct fk_err *err)
{
	struct fk_pprof_opts po;
	struct membuf m;
	int rc;

	struct fk_symbolize_opts so = { .thread_start = unsampled_thread, .own_process = 1,
					.cache = serve_cache(), .warn_server = warn_server };

	if (fk_symbolize(p, &so, err) < 0)
		return -1;
	switch (fmt) {
	case FK_OUT_PPROF:
		pprof_opts(&po, o, window);
		if (note)
			po.note = note;
		return write_pprof(p, &po, out, outlen, keep, err);
	case FK_OUT_FLAME:
		return write_flame(p, o, origin, out, outlen, err);
	case FK_OUT_FOLDED:
	case FK_OUT_SYMBOLIZED:
		if (mb_open(&m, err) < 0)
			return -1;
		if (fmt == FK_OUT_FOLDED) {
			int st = o ? o->sample_type : 0;
			struct fk_folded_opts fold = {
				.lines = o && o->lines, .alloc = st >= 2,
				.value = st & 1 ? FK_FOLDED_OBJECTS : FK_FOLDED_BYTES,
			};

			rc = fk_folded_write(p, &fold, m.f, err);
		} else {
			rc = fk_symprof_write(p, m.f, err);
		}
		return mb_close(&m, rc, out, outlen, err);
	default:
		return fk_err_set(err, FK_EUNSUPP, 0, "no such format");
	}
}

int fk_serve_symbolize(struct fk_profile *p, struct fk_err *err)
{
	struct fk_symbolize_opts so = { .thread_start = unsampled_thread, .own_process = 1,
					.cache = serve_cache() };

	return fk_symbolize(p, &so, err);
}

int fk_serve_emit(struct fk_profile *p, int fmt, const struct fk_serve_opts *o,
		  const struct fk_origin *origin, char **out, size_t *len, size_t *maplen,
		  struct fk_err *err)
{
	*maplen = 0;
	if (fmt == FK_OUT_RAW)
		return fk_err_set(err, FK_EUNSUPP, 0, "format raw is only the live heap");
	return emit(p, fmt, o, origin, 0, NULL, out, len, NULL, err);
}

struct part_ctx {
	void (*set)(void *ctx, size_t part, uint32_t k, struct fk_profile *p,
		    struct fk_snapmeta *m);
	void *ctx;
	size_t part;
};

static void part_set(void *ctx, uint32_t k, struct fk_profile *p, struct fk_snapmeta *m)
{
	const struct part_ctx *c = ctx;

	c->set(c->ctx, c->part, k, p, m);
}

int fk_serve_series(struct fk_profile *const *parts, size_t nparts, uint32_t ncols,
		    void (*set)(void *ctx, size_t part, uint32_t k, struct fk_profile *p,
				struct fk_snapmeta *m),
		    void *ctx, int fmt, const struct fk_serve_opts *o,
		    const struct fk_origin *origin, char **out, size_t *len, struct fk_err *err)
{
	struct fk_symbolize_opts so = { .thread_start = unsampled_thread, .own_process = 1,
					.cache = serve_cache(), .warn_server = warn_server };
	struct fk_series_enc *se;
	struct membuf m;
	int rc = 0;

	if (fmt != FK_OUT_FLAME && fmt != FK_OUT_FOLDED)
		return fk_err_set(err, FK_EUNSUPP, 0, "a timeline is a flame page or folded");
	if (!(se = fk_series_enc_new(ncols, err)))
		return -1;
	/* Each part named with its own maps: a library unloaded and another
	 * loaded at its address between snapshots names each side rightly. */
	for (size_t i = 0; i < nparts && rc == 0; i++) {
		struct part_ctx c = { set, ctx, i };

		rc = fk_symbolize(parts[i], &so, err);
		if (rc == 0)
			rc = fk_series_enc_add_part(se, parts[i], part_set, &c, err);
	}
	if (rc == 0 && (rc = mb_open(&m, err)) == 0) {
		rc = fk_series_enc_write(se, m.f, err);
		rc = mb_close(&m, rc, out, len, err);
	}
	fk_series_enc_free(se);
	if (rc < 0 || fmt == FK_OUT_FOLDED)
		return rc;
	/* The page: render-flame draws a timeline above the flame graph of a
	 * series. */
	char *text = *out;
	size_t tlen = *len;
	struct fk_flame_opts fo;
	char info[FK_ORIGIN_SIZE];

	flame_opts(&fo, o, "Heap over time");
	if (origin)
		fo.info = fk_origin_text(origin, info);
	if ((rc = mb_open(&m, err)) == 0) {
		rc = fk_flame_render(text, tlen, NULL, 0, &fo, m.f, err);
		rc = mb_close(&m, rc, out, len, err);
	}
	free(text);
	return rc;
}

/* Parses dump[0..dlen) (borrowed: it must outlive the profile) into a new
 * profile, through memo (a heap dump's stacks read before, serve_memo.c)
 * when it is not NULL. */
static struct fk_profile *parse(const char *dump, size_t dlen, const char *name,
				struct fk_stackmemo *memo, struct fk_err *err)
{
	struct fk_profile *p = fk_profile_new(name);

	if (!p) {
		fk_err_set(err, FK_ENOMEM, 0, "out of memory");
		return NULL;
	}
	if ((memo ? fk_heapdump_parse_memo(p, dump, dlen, memo, err)
		  : fk_profile_parse(p, dump, dlen, err)) < 0) {
		fk_profile_free(p);
		return NULL;
	}
	return p;
}

/* The answer in fmt kept for key (serve_memo.c): 1 with *out, or 0. */
static int kept_answer(uint64_t key, size_t dlen, int fmt, const struct fk_serve_opts *o,
		       char **out, size_t *outlen, struct fk_err *err)
{
	const struct fk_pprof_body *b;
	struct fk_pprof_opts po;

	if (fmt != FK_OUT_PPROF) {
		if (!fk_memo_bytes(key, dlen, fmt, out, outlen))
			return 0;
		/* A page says when its heap was taken: now, as a pprof's stamp. */
		if (fmt == FK_OUT_FLAME)
			fk_origin_stamp(*out, *outlen);
		return 1;
	}
	if (!(b = fk_memo_body(key, dlen)))
		return 0;
	pprof_opts(&po, o, 0);
	return fk_pprof_stamp(b, po.time_nanos, 0, (unsigned char **)out, outlen, err) == 0;
}

static int fk_serve_convert(char *dump, size_t dlen, size_t dmaplen, int fmt,
		     const struct fk_serve_opts *o, char **out, size_t *outlen,
		     size_t *outmaplen, struct fk_err *err)
{
	struct fk_pprof_body *body = NULL;
	struct fk_profile *p;
	uint64_t key;
	int rc = -1;

	*outmaplen = 0;
	if (fmt == FK_OUT_RAW) {
		/* As jemalloc wrote it (less the cache's own mappings). */
		*out = dump;
		*outlen = dlen;
		*outmaplen = dmaplen;
		return 0;
	}
	/* The same heap asked the same way as last time: the same answer. */
	key = fk_memo_key(dump, dlen, fmt, o);
	if (kept_answer(key, dlen, fmt, o, out, outlen, err)) {
		fk_hook_buf_release(dump, dmaplen);
		return 0;
	}
	p = parse(dump, dlen, "heap", fk_memo_stacks(), err);
	if (p) {
		/* The live heap's page: every sample type, as the offline one
		 * (its total names the one shown: no sample_type line), and a
		 * link to where the rest of RSS goes. */
		struct fk_origin live = { .period = p->period, .columns = 1, .waste = 1 };

		rc = emit(p, fmt, o, &live, 0, NULL, out, outlen, &body, err);
	}
	fk_profile_free(p);
	fk_hook_buf_release(dump, dmaplen);
	if (rc == 0 && body)
		fk_memo_keep_body(key, dlen, body);
	else if (rc == 0)
		fk_memo_keep_bytes(key, dlen, fmt, *out, *outlen);
	return rc;
}

/* Whether the profile was reset between base b and cur c: the rate
 * changed, or a stack's cumulative counts went down in the window g
 * (they only grow between resets). */
static int was_reset(const struct fk_profile *b, const struct fk_profile *c,
		     const struct fk_profile *g)
{
	if (b->period != c->period)
		return 1;
	for (size_t i = 0; i < g->nstacks; i++)
		if (g->stacks[i].c.acc_objs < 0 || g->stacks[i].c.acc_bytes < 0)
			return 1;
	return 0;
}

/* The window from base to cur, window seconds long, opened at start; a
 * reset of the profile at reset_at (fk_state_active_since, or -1) inside
 * it leaves only the part after the reset to tell. 0, 1 when a reset cut
 * the window at a time not known (err says so: a 409), or -1 with err. */
static int fk_serve_delta(char *base, size_t blen, size_t bmaplen, char *cur,
		   size_t clen, size_t cmaplen, const struct fk_serve_opts *o,
		   double start, double reset_at, char **out, size_t *outlen,
		   struct fk_err *err)
{
	struct fk_profile *b, *c = NULL, *g = NULL;
	double now = fk_now(), window = now - start;
	char note[200];
	int rc = -1;

	b = parse(base, blen, "base", NULL, err);
	if (b)
		c = parse(cur, clen, "heap", NULL, err);
	if (b && c) {
		g = fk_profile_new("window");
		if (!g)
			fk_err_set(err, FK_ENOMEM, 0, "out of memory");
		else if (fk_profile_diff(g, b, c, FK_DIFF_WINDOW, err) == 0) {
			if (!was_reset(b, c, g))
				rc = emit(g, FK_OUT_PPROF, o, NULL, window, NULL, out, outlen, NULL, err);
			else if (reset_at > start && reset_at <= now) {
				/* The counts since the reset are cur's own: the
				 * honest part of the window, said so. */
				snprintf(note, sizeof note, "window cut by a reset of the profile "
					 "(a lg_sample change) %.1f s after it opened: these are the "
					 "%.1f s after the reset, of the %.1f s asked for",
					 reset_at - start, now - reset_at, window);
				rc = emit(c, FK_OUT_PPROF, o, NULL, now - reset_at, note, out, outlen, NULL,
					  err);
			} else {
				fk_err_set(err, FK_EUNSUPP, 0, "the profile was reset during this "
					   "%.0f s window (prof.reset, a lg_sample change), so its "
					   "counts started again: ask for a window that begins after "
					   "the reset", window);
				rc = 1;
			}
		}
	}
	fk_profile_free(g);
	fk_profile_free(c);
	fk_profile_free(b);
	fk_hook_buf_release(cur, cmaplen);
	fk_hook_buf_release(base, bmaplen);
	return rc;
}

int fk_serve_produce(int fmt, const struct fk_serve_opts *o, char **out,
		     size_t *len, size_t *maplen, struct fk_err *err)
{
	char *raw;
	size_t rlen, rmap;
	int rc;

	fk_je_lock();
	rc = fk_serve_dump(&raw, &rlen, &rmap, err);
	if (rc == 0 && !fk_state_sampled() && !memmem(raw, rlen, "\n@", 2)) {
		/* Nothing sampled since start or the last reset: say so rather
		 * than serve an empty profile. */
		fk_hook_buf_release(raw, rmap);
		fk_je_unlock();
		return 1;
	}
	if (rc == 0)
		rc = fk_serve_convert(raw, rlen, rmap, fmt, o, out, len, maplen, err);
	fk_je_unlock();
	if (rc == 0)
		fk_state_note_dump();
	return rc;
}

/* A window's base dump, waiting for the second one. */
struct delta {
	char *base;
	size_t blen, bmaplen;
	double start;              /* fk_now() of the base dump */
	struct fk_serve_opts o;
	int has_o;
};

void *fk_serve_delta_begin(const struct fk_serve_opts *o, struct fk_err *err)
{
	struct delta *d = calloc(1, sizeof *d);
	int rc;

	if (!d) {
		fk_err_set(err, FK_ENOMEM, 0, "out of memory");
		return NULL;
	}
	if (o) {
		d->o = *o;
		d->o.title = d->o.colors = NULL;   /* borrowed from the request */
		d->has_o = 1;
	}
	fk_je_lock();
	rc = fk_serve_dump(&d->base, &d->blen, &d->bmaplen, err);
	d->start = fk_now();
	fk_je_unlock();
	if (rc < 0) {
		free(d);
		return NULL;
	}
	atomic_fetch_add(&windows_open, 1);
	return d;
}

void fk_serve_delta_drop(void *ctx)
{
	struct delta *d = ctx;

	fk_hook_buf_release(d->base, d->bmaplen);
	free(d);
	atomic_fetch_sub(&windows_open, 1);
}

void fk_serve_delta_finish(void *ctx, struct fk_reply *r)
{
	struct delta *d = ctx;
	struct fk_err err;
	char *cur = NULL;
	size_t clen = 0, cmaplen = 0;
	int rc;

	fk_err_init(&err, NULL);
	fk_je_lock();
	rc = fk_serve_dump(&cur, &clen, &cmaplen, &err);
	if (rc == 0) {
		rc = fk_serve_delta(d->base, d->blen, d->bmaplen, cur, clen, cmaplen,
				    d->has_o ? &d->o : NULL, d->start, fk_state_active_since(),
				    &r->body, &r->len, &err);
		d->base = NULL;
	}
	fk_je_unlock();
	fk_serve_delta_drop(d);
	if (rc != 0) {
		r->body = NULL;
		r->len = 0;
		fk_reply_error(r, rc > 0 ? 409 : err.code == FK_EUNSUPP ? 503 : 500, "%s", err.msg);
		return;
	}
	fk_state_note_dump();
	r->status = 200;
	r->ctype = fk_fmt_ctype(FK_OUT_PPROF);
	r->disposition = "attachment; filename=\"heap.pb.gz\"";
}
