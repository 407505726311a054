/* SPDX-License-Identifier: MIT */
/* Heap profile -> folded stacks (flamegraph.pl's input format). The values
 * and names are those to-pprof writes, so `to-pprof | from-pprof` gives the
 * same lines. */
#include "folded_enc.h"
#include "encode_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

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

/* Ends the current stack with the value of o's column, or all columns. */
static int end_stack(const struct fk_folded_opts *o, struct fk_foldacc *acc,
		     const int64_t *vals, struct fk_err *err)
{
	return o->columns ? fk_foldacc_endv(acc, vals, err) : fk_foldacc_end(acc, vals[0], err);
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
 * its inline chain, frames[0] innermost, or its address name. */
struct frame_src {
	const struct fk_profile *p;
	const struct fk_stack *s;
	uint32_t i;
	const struct fk_sym *sym;
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

	return frame_name(&f->sym->frames[j]);
}

static const char *frame_addr(void *ctx, char *buf, size_t size)
{
	const struct frame_src *f = ctx;

	return fk_enc_profile_addr_name(buf, size, f->p, f->s->addrs[f->i]);
}

/* Appends the frames of stack s, root first, to the current line. */
static int add_frames(const struct fk_profile *p, struct fk_foldacc *acc,
		      struct fk_namecache *cache, const struct fk_stack *s,
		      struct fk_err *err)
{
	struct frame_src f = { p, s, 0, NULL };
	struct fk_namesrc src = { frame_open, frame_chain_name, frame_addr, &f };
	uint32_t i;

	for (i = s->depth; i-- > 0;) {
		/* A caller's key is its address - 1, the leaf's the address:
		 * the low bit keeps the two apart. */
		uint64_t ck = fk_stack_key(s, i) << 1 | (i == 0);
		const char *text;
		size_t n;

		f.i = i;
		if (!(text = fk_namecache_text(cache, ck, &src, &n)))
			return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
		if (fk_foldacc_frames(acc, text, n, err) < 0)
			return -1;
	}
	return 0;
}

static int add_thread(const struct fk_profile *p, struct fk_foldacc *acc,
		      struct fk_namecache *cache,
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
	fk_foldacc_begin(acc);
	if (fk_foldacc_frame(acc, root, err) < 0 || add_frames(p, acc, cache, s, err) < 0)
		return -1;
	return end_stack(o, acc, v, err);
}

int fk_folded_write(const struct fk_profile *p, const struct fk_folded_opts *o,
		    FILE *out, struct fk_err *err)
{
	static const struct fk_folded_opts defaults;
	struct fk_foldacc *acc;
	struct fk_enc_rounders rs;
	struct fk_namecache cache;
	size_t i;
	int rc = 0;

	if (!o)
		o = &defaults;
	if (o->alloc && !p->has_accum)
		return fk_err_set(err, FK_EUNSUPP, 0,
				  "profile has no accumulated counts (run with MALLOC_CONF=prof_accum:true)");
	acc = fk_foldacc_new();
	if (!acc)
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	fk_enc_rounders_init(&rs, o->columns ? 4 : 1);
	if (o->columns && fk_foldacc_columns(acc, p->has_accum ? 4 : 2) < 0) {
		fk_foldacc_free(acc);
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	}
	fk_namecache_init(&cache);
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
				rc = add_thread(p, acc, &cache, s, &s->thr[j], o, r, err);
			continue;
		}
		if (o->columns ? !pick_all(p, &s->c, r, v) : (v[0] = pick(p, o, &s->c, r)) == 0)
			continue;
		fk_foldacc_begin(acc);
		rc = add_frames(p, acc, &cache, s, err);
		if (rc == 0)
			rc = end_stack(o, acc, v, err);
	}
	if (rc == 0 && o->columns)
		fprintf(out, "# columns: inuse_space/bytes inuse_objects/count%s\n",
			p->has_accum ? " alloc_space/bytes alloc_objects/count" : "");
	if (rc == 0)
		rc = fk_foldacc_write(acc, out, err);
	fk_foldacc_free(acc);
	fk_enc_rounders_release(&rs);
	fk_namecache_release(&cache);
	return rc;
}

int fk_folded_series(struct fk_profile *p, uint32_t ncols,
		     void (*set)(void *ctx, uint32_t k, struct fk_profile *p), void *ctx,
		     struct fk_foldacc *acc, struct fk_err *err)
{
	struct fk_enc_rounders rs;
	struct fk_namecache cache;
	size_t n = p->nstacks;
	int64_t *v;
	int rc = 0;

	if (ncols == 0 || n > SIZE_MAX / ncols / sizeof *v ||
	    !(v = calloc(n ? n * ncols : 1, sizeof *v)))
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	fk_enc_rounders_init(&rs, ncols);
	fk_namecache_init(&cache);
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
		fk_foldacc_begin(acc);
		rc = add_frames(p, acc, &cache, &p->stacks[i], err);
		if (rc == 0)
			rc = fk_foldacc_endv(acc, row, err);
	}
	free(v);
	fk_enc_rounders_release(&rs);
	fk_namecache_release(&cache);
	return rc;
}
