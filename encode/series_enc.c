/* SPDX-License-Identifier: MIT */
/* A series of heap profiles written as one multi-column folded file
 * (series_enc.h): each snapshot is folded as to-folded folds it, then its
 * lines are merged into one accumulator with a value column per snapshot,
 * so a stack present in several snapshots is one line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "encode_int.h"
#include "folded.h"
#include "folded_enc.h"
#include "limits.h"
#include "num.h"
#include "series_enc.h"

struct fk_series_enc {
	struct fk_foldacc *acc;
	uint32_t ncols;
	struct fk_snapmeta *m;
	unsigned char *added;
	int64_t *v;                    /* one line's values: all 0 but one */
	uint32_t col;                  /* the column being added */
	struct fk_err *err;            /* the add's error, while it runs */
};

struct fk_series_enc *fk_series_enc_new(uint32_t ncols, struct fk_err *err)
{
	struct fk_series_enc *s;

	if (ncols < 1 || ncols > FK_MAX_COLUMNS) {
		fk_err_set(err, FK_ELIMIT, 0, "%u snapshots (a series holds 1 to %d)",
			   ncols, FK_MAX_COLUMNS);
		return NULL;
	}
	s = calloc(1, sizeof *s);
	if (!s || !(s->acc = fk_foldacc_new()) || !(s->m = calloc(ncols, sizeof *s->m)) ||
	    !(s->added = calloc(ncols, 1)) || !(s->v = calloc(ncols, sizeof *s->v)) ||
	    fk_foldacc_columns(s->acc, ncols) < 0) {
		fk_series_enc_free(s);
		fk_err_set(err, FK_ENOMEM, 0, "out of memory");
		return NULL;
	}
	s->ncols = ncols;
	return s;
}

void fk_series_enc_free(struct fk_series_enc *s)
{
	if (!s)
		return;
	fk_foldacc_free(s->acc);
	free(s->m);
	free(s->added);
	free(s->v);
	free(s);
}

static int add_line(void *ctx, const struct fk_folded_line *l)
{
	struct fk_series_enc *s = ctx;
	int rc;

	fk_foldacc_begin(s->acc);
	if (fk_foldacc_frames(s->acc, l->stack, l->len, s->err) < 0)
		return -1;
	s->v[s->col] = l->value;
	rc = fk_foldacc_endv(s->acc, s->v, s->err);
	s->v[s->col] = 0;
	return rc;
}

int fk_series_enc_add_folded(struct fk_series_enc *s, uint32_t col, const char *text,
			     size_t len, const struct fk_snapmeta *m, struct fk_err *err)
{
	int rc;

	if (col >= s->ncols || s->added[col])
		return fk_err_set(err, FK_EUNSUPP, 0, "snapshot %u added twice", col);
	s->col = col;
	s->err = err;
	rc = fk_folded_each(text, len, 0, add_line, NULL, s, err);
	s->err = NULL;
	if (rc < 0)
		return -1;
	s->m[col] = *m;
	s->added[col] = 1;
	return 0;
}

/* Folds p as to-folded does, then adds that text. */
int fk_series_enc_add(struct fk_series_enc *s, uint32_t col, const struct fk_profile *p,
		      const struct fk_snapmeta *m, struct fk_err *err)
{
	char *text = NULL;
	size_t len = 0;
	FILE *ms;
	int rc;

	if (!(ms = open_memstream(&text, &len)))
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	rc = fk_folded_write(p, NULL, ms, err);
	if (fclose(ms) != 0 && rc == 0)
		rc = fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	if (rc == 0) {
		/* A line of the text made here is no place to name. */
		struct fk_err e2;
		fk_err_init(&e2, err->path);
		if (fk_series_enc_add_folded(s, col, text, len, m, &e2) < 0)
			rc = fk_err_set(err, e2.code ? e2.code : FK_ENOMEM, 0, "%s",
					e2.code ? e2.msg : "out of memory");
	}
	free(text);
	return rc;
}

struct all_ctx {
	struct fk_series_enc *s;
	void (*set)(void *ctx, uint32_t k, struct fk_profile *p, struct fk_snapmeta *m);
	void *ctx;
};

static void all_set(void *ctx, uint32_t k, struct fk_profile *p)
{
	struct all_ctx *c = ctx;

	c->set(c->ctx, k, p, &c->s->m[k]);
}

int fk_series_enc_add_part(struct fk_series_enc *s, struct fk_profile *p,
			   void (*set)(void *ctx, uint32_t k, struct fk_profile *p,
				       struct fk_snapmeta *m),
			   void *ctx, struct fk_err *err)
{
	struct all_ctx c = { s, set, ctx };

	if (fk_folded_series(p, s->ncols, all_set, &c, s->acc, err) < 0)
		return -1;
	memset(s->added, 1, s->ncols);
	return 0;
}

int fk_series_enc_add_all(struct fk_series_enc *s, struct fk_profile *p,
			  void (*set)(void *ctx, uint32_t k, struct fk_profile *p,
				      struct fk_snapmeta *m),
			  void *ctx, struct fk_err *err)
{
	for (uint32_t k = 0; k < s->ncols; k++)
		if (s->added[k])
			return fk_err_set(err, FK_EUNSUPP, 0, "snapshot %u added twice", k);
	return fk_series_enc_add_part(s, p, set, ctx, err);
}

int fk_series_enc_write(struct fk_series_enc *s, FILE *out, struct fk_err *err)
{
	char line[FK_SERIES_LINE_MAX];
	uint32_t i;

	for (i = 0; i < s->ncols; i++)
		if (!s->added[i])
			return fk_err_set(err, FK_EUNSUPP, 0, "snapshot %u missing", i);
	fputs("# columns:", out);
	for (i = 0; i < s->ncols; i++)
		fprintf(out, " %s/bytes", s->m[i].id);
	fputc('\n', out);
	for (i = 0; i < s->ncols; i++) {
		size_t n = fk_series_format(line, sizeof line, &s->m[i]);
		fwrite(line, 1, n, out);
	}
	return fk_foldacc_write(s->acc, out, err);
}

/* The decimal field of name[a..b), or -1. */
static int field(const char *name, size_t a, size_t b, uint64_t *v)
{
	return b > a ? fk_parse_u64(name + a, b - a, v) : -1;
}

int fk_series_dump_seq(const char *path, uint64_t *pid, uint64_t *seq)
{
	const char *name = strrchr(path, '/');
	size_t n, dots[4], nd = 0, i;

	name = name ? name + 1 : path;
	n = strlen(name);
	if (n < 5 || strcmp(name + n - 5, ".heap") != 0)
		return -1;
	n -= 5;
	/* The last dots before ".heap", from the end. */
	for (i = n; i-- > 0 && nd < 4;)
		if (name[i] == '.')
			dots[nd++] = i;
	/* PREFIX.PID.SEQ.KIND.heap: KIND is iN, uN, mN or f. */
	if (nd >= 3) {
		const char *k = name + dots[0] + 1;
		size_t kl = n - dots[0] - 1;
		uint64_t ignored;
		if ((kl == 1 && *k == 'f') ||
		    (kl >= 2 && strchr("ium", *k) && fk_parse_u64(k + 1, kl - 1, &ignored) == 0))
			return field(name, dots[1] + 1, dots[0], seq) < 0 ||
			    field(name, dots[2] + 1, dots[1], pid) < 0 ? -1 : 0;
	}
	/* flamekit.PID.SEQ.heap (the hook's dumps on a signal). */
	if (nd >= 2)
		return field(name, dots[0] + 1, n, seq) < 0 ||
		    field(name, dots[1] + 1, dots[0], pid) < 0 ? -1 : 0;
	return -1;
}

static int by_seq(const void *a, const void *b)
{
	const struct fk_series_dump *x = a, *y = b;

	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return (x->arg > y->arg) - (x->arg < y->arg);
}

int fk_series_order(const char *const *paths, size_t n, int keep,
		    struct fk_series_dump *d, struct fk_err *err)
{
	size_t i, named = n;           /* the first dump whose name says its process */

	for (i = 0; i < n; i++) {
		uint64_t pid, seq;
		int bad = 0;

		d[i] = (struct fk_series_dump){ paths[i], 0, i, i };
		if (strcmp(paths[i], "-") == 0) {
			bad = fk_err_set(err, FK_EUNSUPP, 0, "a series is read from named files");
		} else if (fk_series_dump_seq(paths[i], &pid, &seq) < 0) {
			if (!keep)
				bad = fk_err_set(err, FK_ESYNTAX, 0, "no sequence number in the name "
						 "(PREFIX.PID.SEQ.i0.heap or flamekit.PID.SEQ.heap); "
						 "use --keep-order");
			else
				continue;
		} else if (named < n && pid != d[named].pid) {
			/* --keep-order changes the order, not the one-process
			 * rule: every name that says its process must say the same. */
			bad = fk_err_set(err, FK_EUNSUPP, 0, "dump of process %llu, not %llu like %s",
					 (unsigned long long)pid,
					 (unsigned long long)d[named].pid, d[named].path);
		}
		if (bad) {
			if (err)
				err->path = paths[i];
			return -1;
		}
		if (!keep)
			d[i].seq = seq;
		d[i].pid = pid;
		if (named == n)
			named = i;
	}
	if (!keep)
		qsort(d, n, sizeof *d, by_seq);
	return 0;
}

int fk_series_dump_meta(const struct fk_series_dump *d, int mtime, struct fk_snapmeta *m,
			struct fk_err *err)
{
	struct stat st;
	char id[32];

	snprintf(id, sizeof id, "%llu", (unsigned long long)d->seq);
	fk_series_meta_init(m, id);
	if (!mtime)
		return 0;
	if (stat(d->path, &st) != 0) {
		fk_err_set(err, FK_EIO, 0, "cannot stat");
		if (err)
			err->path = d->path;
		return -1;
	}
	m->time_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	return 0;
}
