/* SPDX-License-Identifier: MIT */
/* Heap profile -> folded stacks (flamegraph.pl's input format). The values
 * and names are those to-pprof writes, so `to-pprof | from-pprof` gives the
 * same lines. */
#include "folded_enc.h"
#include "encode_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "limits.h"

static int64_t pick(const struct fk_profile *p, const struct fk_folded_opts *o,
		    const struct fk_counts *c, struct fk_enc_rounder *r)
{
	struct fk_values v = fk_unbias(p, c);
	double x;

	if (o->alloc)
		x = o->value == FK_FOLDED_OBJECTS ? v.acc_objs : v.acc_bytes;
	else
		x = o->value == FK_FOLDED_OBJECTS ? v.objs : v.bytes;
	return fk_enc_round_next(r, x);
}

/* The values of every column (--columns): in-use space and objects, then,
 * with accumulated data, allocated space and objects, each with its own
 * rounder. Returns whether any is non-zero. */
static int pick_all(const struct fk_profile *p, const struct fk_counts *c,
		    struct fk_enc_rounder *r, int64_t *vals)
{
	struct fk_values v = fk_unbias(p, c);

	vals[0] = fk_enc_round_next(&r[0], v.bytes);
	vals[1] = fk_enc_round_next(&r[1], v.objs);
	if (p->has_accum) {
		vals[2] = fk_enc_round_next(&r[2], v.acc_bytes);
		vals[3] = fk_enc_round_next(&r[3], v.acc_objs);
	}
	return vals[0] || vals[1] || (p->has_accum && (vals[2] || vals[3]));
}

/* The display name of frame f: its name, else its system name, as
 * from-pprof falls back; NULL when it has neither. */
static const char *frame_name(const struct fk_frame *f)
{
	if (f->name && *f->name)
		return f->name;
	if (f->sysname && *f->sysname)
		return f->sysname;
	return NULL;
}

/* Frame i of stack s, as the name cache reads it (struct fk_namesrc):
 * its inline chain, frames[0] innermost, or its address name; with
 * lines, a name known with its file and line is "NAME (FILE:LINE)",
 * made in the sink's buffer. */
struct frame_src {
	const struct fk_profile *p;
	const struct fk_stack *s;
	uint32_t i;
	const struct fk_sym *sym;
	int lines;
	char **buf;
	size_t *cap;
};

static size_t frame_open(void *ctx)
{
	struct frame_src *f = ctx;

	f->sym = f->p->symbolized ? fk_profile_sym(f->p, fk_stack_key(f->s, f->i)) : NULL;
	return f->sym ? f->sym->nframes : 0;
}

static const char *frame_chain_name(void *ctx, size_t j)
{
	const struct frame_src *f = ctx;
	const struct fk_frame *fr = &f->sym->frames[j];
	const char *name = frame_name(fr);
	size_t n;

	if (!name || !f->lines || !fr->file || !*fr->file || !fr->line)
		return name;
	/* 16: " (", ":", the line's 10 digits, ")" and the NUL. A name
	 * that finds no room keeps its plain form. */
	n = strlen(name) + strlen(fr->file) + 16;
	if (fk_reserve((void **)f->buf, f->cap, n, 1, 256) < 0)
		return name;
	snprintf(*f->buf, n, "%s (%s:%" PRIu32 ")", name, fr->file, fr->line);
	return *f->buf;
}

static const char *frame_addr(void *ctx, char *buf, size_t size)
{
	const struct frame_src *f = ctx;

	return fk_enc_profile_addr_name(buf, size, f->p, f->s->addrs[f->i]);
}

/* Where the walk puts each stack: a line of the accumulator (to-folded's
 * text), or the frames of that line handed to a caller's function
 * (fk_folded_each_stack). */
struct sink {
	struct fk_foldacc *acc;        /* NULL: fn */
	int columns;
	int lines;                     /* names with their file and line */
	char *buf;                     /* frame_chain_name's */
	size_t bufcap;
	fk_folded_stack_fn fn;
	void *ctx;
	struct fk_namecache cache;
	/* fn's stack: its root frame (a thread's, escaped) and the cache
	 * keys of the others, named once the stack is whole (an entry's
	 * text moves when the cache grows); then the frames given to fn. */
	const char *root;
	size_t rootlen;
	uint64_t *keys;
	size_t nkeys, capkeys;
	const char **names;
	size_t *lens;
	size_t capnames;
};

static void sink_begin(struct sink *k, char *root)
{
	k->nkeys = 0;
	k->root = NULL;
	if (k->acc) {
		fk_foldacc_begin(k->acc);
		return;
	}
	if (root) {
		k->rootlen = strlen(root);
		fk_foldacc_escape(root, root, k->rootlen);
		k->root = root;
	}
}

/* Appends the frames of stack s, root first, to the current stack. */
static int add_frames(struct sink *k, const struct fk_profile *p, const struct fk_stack *s,
		      struct fk_err *err)
{
	struct frame_src f = { p, s, 0, NULL, k->lines, &k->buf, &k->bufcap };
	struct fk_namesrc src = { frame_open, frame_chain_name, frame_addr, &f };
	uint32_t i;

	if (!k->acc && fk_reserve((void **)&k->keys, &k->capkeys, k->nkeys + s->depth,
				  sizeof *k->keys, 64) < 0)
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	for (i = s->depth; i-- > 0;) {
		/* A caller's key is its address - 1, the leaf's the address:
		 * the low bit keeps the two apart. */
		uint64_t ck = fk_stack_key(s, i) << 1 | (i == 0);
		const char *text;
		size_t n;

		f.i = i;
		if (!(text = fk_namecache_text(&k->cache, ck, &src, &n)))
			return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
		if (!k->acc)
			k->keys[k->nkeys++] = ck;
		else if (fk_foldacc_frames(k->acc, text, n, err) < 0)
			return -1;
	}
	return 0;
}

/* Adds frame s[0..n) to the frames given to fn; 0 or -1 with err. */
static int push_name(struct sink *k, size_t *nn, const char *s, size_t n, struct fk_err *err)
{
	if (*nn == k->capnames) {
		size_t cap = fk_grow_cap(k->capnames, *nn + 1, sizeof *k->names + sizeof *k->lens, 64);
		const char **a;
		size_t *b;

		if (!cap || !(a = fk_resize(k->names, k->capnames, cap, sizeof *a)))
			return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
		k->names = a;
		if (!(b = fk_resize(k->lens, k->capnames, cap, sizeof *b)))
			return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
		k->lens = b;
		k->capnames = cap;
	}
	k->names[*nn] = s;
	k->lens[(*nn)++] = n;
	return 0;
}

/* Gives fn the stack just made as a folded reader finds its line: each
 * cached text split at its ';' as the reader splits the line (a name has
 * none, escaping made them ':'; an address text is taken as it is), the
 * blanks at the line's end dropped, within the same line limit. */
static int give(struct sink *k, const int64_t *v, struct fk_err *err)
{
	size_t nn = 0, total = 0, i;

	if (k->root && push_name(k, &nn, k->root, k->rootlen, err) < 0)
		return -1;
	for (i = 0; i < k->nkeys; i++) {
		size_t n, a = 0, b;
		const char *t = fk_namecache_get(&k->cache, k->keys[i], &n);

		for (;; a = b + 1) {
			const char *semi = memchr(t + a, ';', n - a);

			b = semi ? (size_t)(semi - t) : n;
			if (push_name(k, &nn, t + a, b - a, err) < 0)
				return -1;
			if (!semi)
				break;
		}
	}
	if (nn == 0 && push_name(k, &nn, FK_ENC_NO_STACK, sizeof FK_ENC_NO_STACK - 1, err) < 0)
		return -1;
	for (i = 0; i < nn; i++)
		total += k->lens[i] + (i > 0);
	if (total > FK_MAX_FOLDED_LINE)
		return fk_err_set(err, FK_ELIMIT, 0, "folded line longer than %zu bytes",
				  (size_t)FK_MAX_FOLDED_LINE);
	while (k->lens[nn - 1] > 0 && k->names[nn - 1][k->lens[nn - 1] - 1] == ' ')
		k->lens[nn - 1]--;
	if (nn == 1 && k->lens[0] == 0)
		return fk_err_set(err, FK_ESYNTAX, 0, "empty stack");
	return k->fn(k->ctx, k->names, k->lens, nn, v, err);
}

/* Ends the current stack with the value of the column asked for, or all
 * columns. */
static int sink_end(struct sink *k, const int64_t *vals, struct fk_err *err)
{
	if (!k->acc)
		return give(k, vals, err);
	return k->columns ? fk_foldacc_endv(k->acc, vals, err) : fk_foldacc_end(k->acc, vals[0], err);
}

static int add_thread(struct sink *k, const struct fk_profile *p,
		      const struct fk_stack *s, const struct fk_tcounts *t,
		      const struct fk_folded_opts *o, struct fk_enc_rounder *r,
		      struct fk_err *err)
{
	const struct fk_thread *th = &p->threads[t->thread];
	int64_t v[4] = { 0, 0, 0, 0 };
	char root[128];

	if (o->columns ? !pick_all(p, &t->c, r, v) : (v[0] = pick(p, o, &t->c, r)) == 0)
		return 0;
	if (th->name && *th->name)
		snprintf(root, sizeof root, "[thread %" PRIu64 " %.100s]", th->id, th->name);
	else
		snprintf(root, sizeof root, "[thread %" PRIu64 "]", th->id);
	sink_begin(k, root);
	if (k->acc && fk_foldacc_frame(k->acc, root, err) < 0)
		return -1;
	if (add_frames(k, p, s, err) < 0)
		return -1;
	return sink_end(k, v, err);
}

/* Every stack of p with its value, in o's terms, into k. */
static int walk(const struct fk_profile *p, const struct fk_folded_opts *o, struct sink *k,
		struct fk_err *err)
{
	struct fk_enc_rounders rs;
	size_t i;
	int rc = 0;

	if (o->alloc && !p->has_accum)
		return fk_err_set(err, FK_EUNSUPP, 0,
				  "profile has no accumulated counts (run with MALLOC_CONF=prof_accum:true)");
	fk_enc_rounders_init(&rs, o->columns ? 4 : 1);
	for (i = 0; i < p->nstacks && rc == 0; i++) {
		const struct fk_stack *s = &p->stacks[i];
		struct fk_enc_rounder *r = fk_enc_rounders_of(&rs, p, s);
		int64_t v[4] = { 0, 0, 0, 0 };
		uint32_t j;

		if (!r) {
			rc = fk_err_set(err, FK_ENOMEM, 0, "out of memory");
			break;
		}
		if (o->threads && s->nthr) {
			for (j = 0; j < s->nthr && rc == 0; j++)
				rc = add_thread(k, p, s, &s->thr[j], o, r, err);
			continue;
		}
		if (o->columns ? !pick_all(p, &s->c, r, v) : (v[0] = pick(p, o, &s->c, r)) == 0)
			continue;
		sink_begin(k, NULL);
		rc = add_frames(k, p, s, err);
		if (rc == 0)
			rc = sink_end(k, v, err);
	}
	fk_enc_rounders_release(&rs);
	return rc;
}

const char *fk_folded_columns(const struct fk_profile *p)
{
	return p->has_accum ? "inuse_space/bytes inuse_objects/count alloc_space/bytes alloc_objects/count"
	    : "inuse_space/bytes inuse_objects/count";
}

int fk_folded_write(const struct fk_profile *p, const struct fk_folded_opts *o,
		    FILE *out, struct fk_err *err)
{
	static const struct fk_folded_opts defaults;
	struct sink k = { .acc = NULL };
	int rc;

	if (!o)
		o = &defaults;
	k.columns = o->columns;
	k.lines = o->lines;
	if (!(k.acc = fk_foldacc_new()) ||
	    (o->columns && fk_foldacc_columns(k.acc, p->has_accum ? 4 : 2) < 0)) {
		fk_foldacc_free(k.acc);
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	}
	fk_namecache_init(&k.cache);
	rc = walk(p, o, &k, err);
	if (rc == 0 && o->columns)
		fprintf(out, "# columns: %s\n", fk_folded_columns(p));
	if (rc == 0)
		rc = fk_foldacc_write(k.acc, out, err);
	fk_foldacc_free(k.acc);
	fk_namecache_release(&k.cache);
	free(k.buf);
	return rc;
}

int fk_folded_each_stack(const struct fk_profile *p, const struct fk_folded_opts *o,
			 fk_folded_stack_fn fn, void *ctx, struct fk_err *err)
{
	static const struct fk_folded_opts defaults;
	struct sink k = { .fn = fn, .ctx = ctx };
	int rc;

	if (!o)
		o = &defaults;
	k.lines = o->lines;
	fk_namecache_init(&k.cache);
	rc = walk(p, o, &k, err);
	fk_namecache_release(&k.cache);
	free(k.buf);
	free(k.keys);
	free(k.names);
	free(k.lens);
	return rc;
}

int fk_folded_series(struct fk_profile *p, uint32_t ncols,
		     void (*set)(void *ctx, uint32_t k, struct fk_profile *p), void *ctx,
		     struct fk_foldacc *acc, struct fk_err *err)
{
	struct fk_enc_rounders rs;
	struct sink sk = { .acc = acc, .columns = 1 };
	size_t n = p->nstacks;
	int64_t *v;
	int rc = 0;

	if (ncols == 0 || n > SIZE_MAX / ncols / sizeof *v ||
	    !(v = calloc(n ? n * ncols : 1, sizeof *v)))
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	fk_enc_rounders_init(&rs, ncols);
	fk_namecache_init(&sk.cache);
	/* Column by column, the values fk_folded_write gives each snapshot:
	 * the same rounders per leaf function, visited in stack order. */
	for (uint32_t k = 0; k < ncols && rc == 0; k++) {
		set(ctx, k, p);
		for (size_t i = 0; i < n; i++) {
			const struct fk_stack *st = &p->stacks[i];
			struct fk_enc_rounder *r;

			if (st->c.objs == 0 && st->c.bytes == 0)
				continue;
			if (!(r = fk_enc_rounders_of(&rs, p, st))) {
				rc = fk_err_set(err, FK_ENOMEM, 0, "out of memory");
				break;
			}
			v[i * ncols + k] = fk_enc_round_next(&r[k], fk_unbias(p, &st->c).bytes);
		}
	}
	/* Then each stack named once, with its value in every snapshot. */
	for (size_t i = 0; i < n && rc == 0; i++) {
		const int64_t *row = &v[i * ncols];
		uint32_t k = 0;

		while (k < ncols && row[k] == 0)
			k++;
		if (k == ncols)
			continue;
		sink_begin(&sk, NULL);
		rc = add_frames(&sk, p, &p->stacks[i], err);
		if (rc == 0)
			rc = fk_foldacc_endv(acc, row, err);
	}
	free(v);
	fk_enc_rounders_release(&rs);
	fk_namecache_release(&sk.cache);
	return rc;
}
