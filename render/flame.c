/* SPDX-License-Identifier: MIT */
/* The flame graph entry points (flame.h): collect folded stacks into the
 * merged tree, then lay out and write the SVG page. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "folded.h"
#include "grow.h"
#include "limits.h"
#include "num.h"
#include "render_int.h"

struct fk_flame {
	struct fk_flame_opts o;
	struct fk_tree t;
	int finished;
	int inputs;                    /* inputs added so far */
	/* The column header of the first input, "" for plain folded stacks;
	 * every later input must have the same. */
	char cols[FK_MAX_COLUMNS * (FK_MAX_COLUMN_NAME + 1)];
	int64_t xv[FK_MAX_COLUMNS];
	struct fk_series series;       /* the "# series:" lines (timeline.c) */
	uint64_t hdrlines;             /* lines of the last input's header */
	struct fk_buf info;            /* the "# info:" lines (pageinfo.c) */
};

/* The multi-column extension of folded stacks: a first line
 * "# columns: NAME NAME ..." (NAME is [A-Za-z0-9_.:/-]+, optionally
 * "name/unit") names the value columns, and every line then ends in that
 * many values. Returns the length of the header line with its newline (0
 * when data has none), or -1 with err. */
static long header(struct fk_flame *f, const char *data, size_t len, int base,
		   struct fk_err *err)
{
	static const char tag[] = "# columns:";
	const char *nl, *p, *e;
	char cols[sizeof f->cols];
	size_t n = 0, ncols = 0, hl;
	uint64_t ninfo = 0;
	/* The origin's lines come first; a base's are checked and left out
	 * (the page is the input's). */
	long il = fk_info_read(base ? NULL : &f->info, data, len, &ninfo, err);

	if (il < 0)
		return -1;
	data += il;
	len -= (size_t)il;
	if (len < sizeof tag - 1 || memcmp(data, tag, sizeof tag - 1) != 0) {
		cols[0] = 0;
		hl = 0;
	} else {
		nl = memchr(data, '\n', len);
		e = nl ? nl : data + len;
		hl = (size_t)(e - data) + (nl != NULL);
		if (e > data && e[-1] == '\r')
			e--;
		for (p = data + sizeof tag - 1; p < e;) {
			const char *s;
			while (p < e && *p == ' ')
				p++;
			if (p == e)
				break;
			for (s = p; p < e && *p != ' '; p++)
				if (!(((unsigned)*p | 32) - 'a' < 26 || (unsigned)*p - '0' < 10 ||
				      strchr("_.:/-", *p)))
					return fk_err_set(err, FK_ESYNTAX, ninfo + 1,
							  "bad column name in '# columns:' header");
			if (++ncols > FK_MAX_COLUMNS || (size_t)(p - s) > FK_MAX_COLUMN_NAME)
				return fk_err_set(err, FK_ELIMIT, ninfo + 1,
						  "more than %d columns or a name longer than %d bytes",
						  FK_MAX_COLUMNS, FK_MAX_COLUMN_NAME);
			if (n)
				cols[n++] = ' ';
			memcpy(cols + n, s, (size_t)(p - s));
			n += (size_t)(p - s);
		}
		if (!ncols)
			return fk_err_set(err, FK_ESYNTAX, ninfo + 1, "no column in '# columns:' header");
		cols[n] = 0;
	}
	if (ncols > 1 && (base || f->t.has_base))
		return fk_err_set(err, FK_EUNSUPP, 1,
				  "a differential graph takes one-column inputs");
	if (f->inputs++ == 0) {
		memcpy(f->cols, cols, n + 1);
		f->t.ncols = (uint32_t)(ncols ? ncols : 1);
	} else if (strcmp(cols, f->cols) != 0) {
		return fk_err_set(err, FK_ESYNTAX, 1,
				  "columns differ from the first input's");
	}
	if (base && f->t.ncols > 1)
		return fk_err_set(err, FK_EUNSUPP, 1,
				  "a differential graph takes one-column inputs");
	f->hdrlines = ninfo + (hl > 0);
	if (hl > 0) {
		/* A series: its snapshots' lines follow the columns line. */
		long sl;
		if ((f->series.n || fk_series_header_len(data, len) > hl) &&
		    (f->inputs > 1 || base))
			return fk_err_set(err, FK_EUNSUPP, 1, "a series takes one input");
		sl = fk_series_read(&f->series, data + hl, len - hl, f->t.ncols,
				    &f->hdrlines, err);
		if (sl < 0)
			return -1;
		hl += (size_t)sl;
	}
	return (long)hl + il;
}

/* Length of the header lines at the start of data[0..len): the origin's,
 * then the columns and series lines. */
static size_t header_len(const char *data, size_t len)
{
	size_t il = fk_info_len(data, len);

	return il + fk_series_header_len(data + il, len - il);
}

const char *fk_flame_columns(const struct fk_flame *f)
{
	return f->cols;
}

void fk_flame_opts_init(struct fk_flame_opts *o)
{
	memset(o, 0, sizeof *o);
	o->countname = "bytes";
	o->nametype = "Function:";
	o->fonttype = "Verdana";
	o->colors = "mem";
	o->frameheight = 16;
	o->fontsize = 12;
	o->minwidth = 1;
	o->sort = FK_SORT_NAME;
	/* Root on top, as pprof draws heap graphs: the root row and the
	 * heaviest frames are on the first screen at any window size. */
	o->inverted = 1;
}

struct fk_flame *fk_flame_new(const struct fk_flame_opts *o, struct fk_err *err)
{
	struct fk_flame *f;

	if (fk_flame_palette_check(o->colors ? o->colors : "mem") < 0) {
		fk_err_set(err, FK_EUNSUPP, 0, "unknown palette '%s'", o->colors);
		return NULL;
	}
	if (!(o->frameheight > 0 && o->frameheight <= 1000) ||
	    !(o->fontsize > 0 && o->fontsize <= 1000) ||
	    !(o->width >= 0 && o->width <= 1e6) ||
	    !(o->minwidth >= 0 && o->minwidth <= 1e6)) {
		fk_err_set(err, FK_EUNSUPP, 0, "size option out of range");
		return NULL;
	}
	f = calloc(1, sizeof *f);
	if (!f) {
		fk_err_set(err, FK_ENOMEM, 0, "out of memory");
		return NULL;
	}
	f->o = *o;
	if (!f->o.colors)
		f->o.colors = "mem";
	if (!f->o.countname)
		f->o.countname = "bytes";
	if (!f->o.nametype)
		f->o.nametype = "Function:";
	if (!f->o.fonttype)
		f->o.fonttype = "Verdana";
	if (fk_tree_init(&f->t, err) < 0) {
		free(f);
		return NULL;
	}
	f->t.flamechart = o->flamechart;
	f->t.threads = o->threads;
	f->t.reverse = o->reverse;
	f->t.sort = o->sort;
	return f;
}

void fk_flame_free(struct fk_flame *f)
{
	if (!f)
		return;
	fk_tree_release(&f->t);
	fk_series_release(&f->series);
	fk_buf_release(&f->info);
	free(f);
}

/* The values of line l: the first column in *vp, the others in xv (a
 * series' last first), and in *lenp the length of the stack text without
 * them. 0, or -1 with err. */
static int line_values(const struct fk_flame *f, const struct fk_folded_line *l,
		       size_t *lenp, int64_t *vp, int64_t *xv, struct fk_err *err)
{
	size_t len = l->len;
	int64_t v = l->value;
	uint32_t c;

	*lenp = len;
	*vp = v;
	if (f->t.ncols <= 1)
		return 0;
	/* Multi-column: the reader took the last value; the others end the
	 * stack text, separated by blanks. */
	c = f->t.ncols - 1;
	xv[c - 1] = v;
	if (v < 0)
		return fk_err_set(err, FK_ESYNTAX, l->lineno, "negative value '%lld'",
				  (long long)v);
	while (c-- > 0) {
		size_t e = len, s;
		while (e > 0 && (l->stack[e - 1] == ' ' || l->stack[e - 1] == '\t'))
			e--;
		s = e;
		while (s > 0 && l->stack[s - 1] != ' ' && l->stack[s - 1] != '\t')
			s--;
		if (s == 0 || fk_parse_i64(l->stack + s, e - s, c ? &xv[c - 1] : &v) < 0)
			return fk_err_set(err, FK_ESYNTAX, l->lineno,
					  "expected %u values on the line", f->t.ncols);
		if ((c ? xv[c - 1] : v) < 0)
			/* Before the tree makes the line's frames. */
			return fk_err_set(err, FK_ESYNTAX, l->lineno, "negative value '%lld'",
					  (long long)(c ? xv[c - 1] : v));
		len = s;
	}
	while (len > 0 && (l->stack[len - 1] == ' ' || l->stack[len - 1] == '\t'))
		len--;
	if (len == 0)
		return fk_err_set(err, FK_ESYNTAX, l->lineno, "empty stack");
	*lenp = len;
	*vp = v;
	if (f->series.n) {
		/* A series draws its newest snapshot, as its page opens on it:
		 * the last column leads and the first takes its place (the
		 * frame table, svgdata.c, puts them back in order). */
		*vp = xv[f->t.ncols - 2];
		xv[f->t.ncols - 2] = v;
	}
	return 0;
}

/* A bad line (a syntax error) is told about and skipped with --skip-bad:
 * whether rc, err is that case (then err is told and reset). */
static int skipped(const struct fk_flame *f, int rc, struct fk_err *err)
{
	if (rc == 0 || err->code != FK_ESYNTAX || !f->o.skip_bad)
		return 0;
	if (f->o.warn)
		f->o.warn(f->o.warn_ctx, err);
	fk_err_init(err, err->path);
	return 1;
}

struct addctx {
	struct fk_flame *f;
	int base;
	struct fk_err *err;
};

static int add_one(void *ctx, const struct fk_folded_line *l)
{
	struct addctx *a = ctx;
	struct fk_flame *f = a->f;
	size_t len;
	int64_t v;
	int rc = line_values(f, l, &len, &v, f->xv, a->err);

	if (rc == 0) {
		f->t.xv = f->t.ncols > 1 ? f->xv : NULL;
		rc = fk_tree_add_line(&f->t, l->stack, len, v, a->base, l->lineno, a->err);
		f->t.xv = NULL;
	}
	/* A bad value (negative) is a bad line like any other. */
	return skipped(f, rc, a->err) ? 0 : rc;
}

static void bad_one(void *ctx, const struct fk_err *e)
{
	struct addctx *a = ctx;

	if (a->f->o.warn)
		a->f->o.warn(a->f->o.warn_ctx, e);
}

int fk_flame_add_folded(struct fk_flame *f, const char *data, size_t len,
			int base, struct fk_err *err)
{
	struct addctx a = { f, base, err };

	if (f->finished)
		return fk_err_set(err, FK_EUNSUPP, 0, "graph already written");
	int rc;

	long hl = header(f, data, len, base, err);
	uint64_t lineno = f->hdrlines;

	if (hl < 0)
		return -1;
	/* Prefix sharing works within one buffer only. */
	f->t.prev = NULL;
	rc = fk_folded_each_from(data + hl, len - (size_t)hl, &lineno, f->o.skip_bad,
				 add_one, bad_one, &a, err);
	f->t.prev = NULL;
	return rc;
}

/* Reads fd to its end in pieces (so memory does not grow with the input's
 * size) and calls fn for each line, fn_bad for each malformed one, as
 * fk_folded_each_from does. 0 or -1 with err. */
static int read_fd(struct fk_flame *f, int fd, int base,
		   int (*fn)(void *ctx, const struct fk_folded_line *l),
		   void (*fn_bad)(void *ctx, const struct fk_err *e), void *ctx,
		   struct fk_err *err)
{
	size_t cap = 1 << 20, have = 0, done, total = 0;
	uint64_t lineno = 0;
	char *buf;
	int rc = -1, eof = 0, first = 1;

	if (!(buf = malloc(cap)))
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	while (!eof) {
		ssize_t r;
		char *nl;

		if (have == cap) {
			/* One line fills the buffer: grow up to the line limit. */
			char *nb;
			if (cap > FK_MAX_FOLDED_LINE) {
				fk_err_set(err, FK_ELIMIT, lineno + 1,
					   "line longer than %zu bytes",
					   (size_t)FK_MAX_FOLDED_LINE);
				goto out;
			}
			if (!(nb = fk_resize(buf, cap * 2, cap * 2, 1))) {
				fk_err_set(err, FK_ENOMEM, 0, "out of memory");
				goto out;
			}
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + have, cap - have);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			fk_err_set(err, FK_EIO, 0, "read error: %s", strerror(errno));
			goto out;
		}
		if (r == 0)
			eof = 1;
		have += (size_t)r;
		total += (size_t)r;
		if (total > FK_MAX_INPUT) {
			fk_err_set(err, FK_ELIMIT, 0, "input larger than %zu bytes",
				   (size_t)FK_MAX_INPUT);
			goto out;
		}
		/* Whole lines now; the rest waits for the next read. */
		if (eof) {
			done = have;
		} else {
			nl = memrchr(buf, '\n', have);
			if (!nl)
				continue;
			done = (size_t)(nl - buf) + 1;
		}
		if (first && !eof && header_len(buf, done) == done)
			continue;      /* the header lines go on past this read */
		if (first) {
			/* The header, if any, is in the first whole lines. */
			long hl = header(f, buf, done, base, err);
			first = 0;
			if (hl < 0)
				goto out;
			if (hl > 0) {
				memmove(buf, buf + hl, have - (size_t)hl);
				have -= (size_t)hl;
				done -= (size_t)hl;
				lineno = f->hdrlines;
			}
		}
		f->t.prev = NULL;
		if (fk_folded_each_from(buf, done, &lineno, f->o.skip_bad, fn, fn_bad, ctx,
					err) < 0)
			goto out;
		f->t.prev = NULL;
		memmove(buf, buf + done, have - done);
		have -= done;
	}
	rc = 0;
out:
	f->t.prev = NULL;
	free(buf);
	return rc;
}

/* A file read on a second thread (fk_flame_opts.threads): the reader
 * reads, splits and scans the lines (fk_tree_scan, the names side of the
 * tree) while the caller places them (fk_tree_place, the nodes side), in
 * the same order, so the tree is the one a single thread makes, byte for
 * byte. Lines go over in a ring of blocks of records: a line is its first
 * shared frame, its new frames' count, line number and values, then its
 * new frames' name ids; a warning is RD_WARN and an index into the block's
 * errors, told by the caller in line order. (perf on bench/gen-synth.py's
 * input: reading and scanning are half of building the tree.) */
#define RD_BLOCKS 8
#define RD_WORDS 16384
#define RD_WARN UINT32_MAX
#define RD_HEAD 6

_Static_assert(RD_WORDS >= RD_HEAD + 2 * FK_MAX_COLUMNS + FK_MAX_DEPTH_ANY,
	       "a block holds the longest line");

struct rd_block {
	uint32_t w[RD_WORDS];
	size_t n;
	struct fk_err *errs;           /* the warnings of the block's lines */
	size_t nerr, caperr;
	int full;                      /* the reader is done with it, the caller not */
	int last;                      /* the reader's last: it stopped after it */
	int failed;                    /* ... with its error rd.err */
};

struct rd {
	struct fk_flame *f;
	int fd, base;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct rd_block *b;
	unsigned wi;                   /* the block the reader fills */
	int stop;                      /* the caller failed: stop reading */
	int nomem;
	struct fk_err err;             /* the reader's */
	int64_t xv[FK_MAX_COLUMNS];
};

/* Hands the filled block over and takes the next one when it is free.
 * -1 when the caller said stop. */
static int rd_send(struct rd *r, int last)
{
	struct rd_block *b;
	int stop;

	pthread_mutex_lock(&r->mu);
	r->b[r->wi].full = 1;
	r->b[r->wi].last = last;
	pthread_cond_broadcast(&r->cv);
	r->wi = (r->wi + 1) % RD_BLOCKS;
	b = &r->b[r->wi];
	while (!last && b->full && !r->stop)
		pthread_cond_wait(&r->cv, &r->mu);
	stop = r->stop;
	pthread_mutex_unlock(&r->mu);
	if (last || stop)
		return -1;
	/* Free: the reader's now. */
	b->n = 0;
	b->nerr = 0;
	return 0;
}

/* Room for n more words in the block being filled. */
static int rd_room(struct rd *r, size_t n)
{
	if (r->b[r->wi].n + n <= RD_WORDS)
		return 0;
	return rd_send(r, 0);
}

static int rd_warn(struct rd *r, const struct fk_err *e)
{
	struct rd_block *b;

	if (rd_room(r, 2) < 0)
		return -1;
	b = &r->b[r->wi];
	if (fk_reserve((void **)&b->errs, &b->caperr, b->nerr + 1, sizeof *b->errs, 16) < 0) {
		r->nomem = 1;
		return -1;
	}
	b->errs[b->nerr] = *e;
	b->w[b->n++] = RD_WARN;
	b->w[b->n++] = (uint32_t)b->nerr++;
	return 0;
}

static void rd_bad(void *ctx, const struct fk_err *e)
{
	rd_warn(ctx, e);
}

static int rd_line(void *ctx, const struct fk_folded_line *l)
{
	struct rd *r = ctx;
	struct fk_flame *f = r->f;
	size_t len, first, end, nx = f->t.ncols > 1 ? f->t.ncols - 1 : 0, c;
	int64_t v;
	uint32_t *w;
	int rc;

	if (r->nomem)
		return fk_err_set(&r->err, FK_ENOMEM, 0, "out of memory");
	rc = line_values(f, l, &len, &v, r->xv, &r->err);
	if (rc == 0)
		rc = fk_tree_scan(&f->t, l->stack, len, v, l->lineno, &first, &end, &r->err);
	if (rc < 0) {
		if (r->err.code != FK_ESYNTAX || !f->o.skip_bad)
			return -1;
		if (rd_warn(r, &r->err) < 0)
			return -1;
		fk_err_init(&r->err, r->err.path);
		return 0;
	}
	if (rd_room(r, RD_HEAD + 2 * nx + (end - first)) < 0)
		return -1;
	w = r->b[r->wi].w + r->b[r->wi].n;
	w[0] = (uint32_t)first;
	w[1] = (uint32_t)(end - first);
	memcpy(w + 2, &l->lineno, 8);
	memcpy(w + 4, &v, 8);
	for (c = 0; c < nx; c++)
		memcpy(w + RD_HEAD + 2 * c, &r->xv[c], 8);
	memcpy(w + RD_HEAD + 2 * nx, f->t.nid + first, (end - first) * sizeof *w);
	r->b[r->wi].n += RD_HEAD + 2 * nx + (end - first);
	return 0;
}

static void *rd_main(void *arg)
{
	struct rd *r = arg;
	int rc = read_fd(r->f, r->fd, r->base, rd_line, rd_bad, r, &r->err);

	if (rc < 0 && r->nomem)
		fk_err_set(&r->err, FK_ENOMEM, 0, "out of memory");
	r->b[r->wi].failed = rc < 0;
	rd_send(r, 1);
	return NULL;
}

/* Places the lines of block b, tells its warnings. 0 or -1 with err. */
static int rd_place(struct fk_flame *f, const struct rd_block *b, int base,
		    struct fk_err *err)
{
	size_t i = 0, nx = f->t.ncols > 1 ? f->t.ncols - 1 : 0, c, k;
	int64_t xv[FK_MAX_COLUMNS], v;
	uint64_t lineno;
	int rc;

	while (i < b->n) {
		const uint32_t *w = b->w + i;
		if (w[0] == RD_WARN) {
			if (f->o.warn)
				f->o.warn(f->o.warn_ctx, &b->errs[w[1]]);
			i += 2;
			continue;
		}
		k = w[1];
		memcpy(&lineno, w + 2, 8);
		memcpy(&v, w + 4, 8);
		for (c = 0; c < nx; c++)
			memcpy(&xv[c], w + RD_HEAD + 2 * c, 8);
		f->t.xv = nx ? xv : NULL;
		rc = fk_tree_place(&f->t, w[0], w + RD_HEAD + 2 * nx, k, v, base, lineno, err);
		f->t.xv = NULL;
		if (rc < 0 && !skipped(f, rc, err))
			return -1;
		i += RD_HEAD + 2 * nx + k;
	}
	return 0;
}

/* fk_flame_add_fd with a reader thread. 1 when no thread could start
 * (nothing done), else 0 or -1 with err. */
static int add_fd_threaded(struct fk_flame *f, int fd, int base, struct fk_err *err)
{
	struct rd *r = calloc(1, sizeof *r);
	pthread_t th;
	unsigned ri = 0, i;
	int rc = 0, last = 0;

	if (!r || !(r->b = malloc(RD_BLOCKS * sizeof *r->b))) {
		free(r);
		return 1;
	}
	for (i = 0; i < RD_BLOCKS; i++) {
		r->b[i].n = r->b[i].nerr = r->b[i].caperr = 0;
		r->b[i].errs = NULL;
		r->b[i].full = r->b[i].last = r->b[i].failed = 0;
	}
	r->f = f;
	r->fd = fd;
	r->base = base;
	fk_err_init(&r->err, err->path);
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->cv, NULL);
	if (pthread_create(&th, NULL, rd_main, r) != 0) {
		rc = 1;
		goto out;
	}
	while (!last) {
		struct rd_block *b = &r->b[ri];

		pthread_mutex_lock(&r->mu);
		while (!b->full)
			pthread_cond_wait(&r->cv, &r->mu);
		pthread_mutex_unlock(&r->mu);
		rc = rd_place(f, b, base, err);
		if (rc == 0 && b->failed) {
			*err = r->err;
			rc = -1;
		}
		last = b->last;
		pthread_mutex_lock(&r->mu);
		b->full = 0;
		if (rc < 0)
			r->stop = last = 1;
		pthread_cond_broadcast(&r->cv);
		pthread_mutex_unlock(&r->mu);
		ri = (ri + 1) % RD_BLOCKS;
	}
	pthread_join(th, NULL);
out:
	pthread_cond_destroy(&r->cv);
	pthread_mutex_destroy(&r->mu);
	for (i = 0; i < RD_BLOCKS; i++)
		free(r->b[i].errs);
	free(r->b);
	free(r);
	f->t.prev = NULL;
	return rc;
}

int fk_flame_add_fd(struct fk_flame *f, int fd, int base, struct fk_err *err)
{
	struct addctx a = { f, base, err };
	struct stat st;

	if (f->finished)
		return fk_err_set(err, FK_EUNSUPP, 0, "graph already written");
	/* A regular file only: a pipe may block the reader after the caller
	 * failed, and the caller waits for it. */
	if (f->o.threads && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		int rc = add_fd_threaded(f, fd, base, err);
		if (rc <= 0)
			return rc;
	}
	return read_fd(f, fd, base, add_one, bad_one, &a, err);
}

int fk_flame_add_stack(struct fk_flame *f, const char *const *names,
		       const size_t *lens, size_t n, int64_t v, int base,
		       struct fk_err *err)
{
	if (f->finished)
		return fk_err_set(err, FK_EUNSUPP, 0, "graph already written");
	return fk_tree_add_frames(&f->t, names, lens, n, v, base, err);
}

int fk_flame_set_columns(struct fk_flame *f, const char *cols, struct fk_err *err)
{
	static const char tag[] = "# columns: ";
	char line[sizeof tag + sizeof f->cols + 1];
	size_t n = strlen(cols);

	if (f->finished || f->inputs || f->t.nnodes > 1)
		return fk_err_set(err, FK_EUNSUPP, 0, "columns named after stacks were added");
	if (n >= sizeof f->cols)
		return fk_err_set(err, FK_ELIMIT, 0, "more than %d columns or a name longer than %d bytes",
				  FK_MAX_COLUMNS, FK_MAX_COLUMN_NAME);
	memcpy(line, tag, sizeof tag - 1);
	memcpy(line + sizeof tag - 1, cols, n);
	line[sizeof tag - 1 + n] = '\n';
	return header(f, line, sizeof tag + n, 0, err) < 0 ? -1 : 0;
}

int fk_flame_add_stack_cols(struct fk_flame *f, const char *const *names,
			    const size_t *lens, size_t n, const int64_t *v,
			    struct fk_err *err)
{
	int rc;

	if (f->finished)
		return fk_err_set(err, FK_EUNSUPP, 0, "graph already written");
	f->t.xv = f->t.ncols > 1 ? v + 1 : NULL;
	rc = fk_tree_add_frames(&f->t, names, lens, n, v[0], 0, err);
	f->t.xv = NULL;
	return rc;
}

/* Whether cols are a lifetimes record's (heap-lifetimes --format columns,
 * core/life.c's buckets after "all"). */
static int lifetime_cols(const char *cols)
{
	return strncmp(cols, "all", 3) == 0 && (cols[3] == '/' || cols[3] == ' ') &&
	    strstr(cols, " under-1ms") != NULL && strstr(cols, " live") != NULL;
}

int fk_flame_write(struct fk_flame *f, FILE *out, struct fk_err *err)
{
	struct fk_flame_opts o = f->o;

	if (!f->finished) {
		if (fk_tree_finish(&f->t, err) < 0)
			return -1;
		/* The caller's origin after the input's: the last of a key wins. */
		if (fk_info_add_text(&f->info, o.info, err) < 0)
			return -1;
		f->finished = 1;
	}
	if (!o.title)
		o.title = f->t.has_base ? "Differential Flame Graph" :
		    f->series.n ? "Heap over time" :
		    lifetime_cols(f->cols) ? "Allocation lifetimes" : "Flame Graph";
	f->t.series = f->series.n ? &f->series : NULL;
	return fk_svg_write(&f->t, &o, f->cols, &f->info, out, err);
}

int fk_flame_render(const char *folded, size_t len, const char *base,
		    size_t base_len, const struct fk_flame_opts *o, FILE *out,
		    struct fk_err *err)
{
	struct fk_flame *f = fk_flame_new(o, err);
	int rc = -1;

	if (!f)
		return -1;
	if (base && fk_flame_add_folded(f, base, base_len, 1, err) < 0)
		goto out;
	if (fk_flame_add_folded(f, folded, len, 0, err) < 0)
		goto out;
	rc = fk_flame_write(f, out, err);
out:
	fk_flame_free(f);
	return rc;
}
