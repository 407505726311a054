/* SPDX-License-Identifier: MIT */
/* The flame graph entry points (flame.h): collect folded stacks into the
 * merged tree, then lay out and write the SVG page. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "folded.h"
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
					return fk_err_set(err, FK_ESYNTAX, 1,
							  "bad column name in '# columns:' header");
			if (++ncols > FK_MAX_COLUMNS || (size_t)(p - s) > FK_MAX_COLUMN_NAME)
				return fk_err_set(err, FK_ELIMIT, 1,
						  "more than %d columns or a name longer than %d bytes",
						  FK_MAX_COLUMNS, FK_MAX_COLUMN_NAME);
			if (n)
				cols[n++] = ' ';
			memcpy(cols + n, s, (size_t)(p - s));
			n += (size_t)(p - s);
		}
		if (!ncols)
			return fk_err_set(err, FK_ESYNTAX, 1, "no column in '# columns:' header");
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
	f->hdrlines = hl > 0;
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
	return (long)hl;
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
	o->minwidth = 0.1;
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
	free(f);
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
	size_t len = l->len;
	int64_t v = l->value;
	int rc = 0;

	/* Multi-column: the reader took the last value; the others end the
	 * stack text, separated by blanks. */
	if (f->t.ncols > 1) {
		uint32_t c = f->t.ncols - 1;
		f->xv[c - 1] = v;
		if (v < 0) {
			rc = fk_err_set(a->err, FK_ESYNTAX, l->lineno, "negative value '%lld'",
					(long long)v);
			c = 0;
		}
		while (c-- > 0) {
			size_t e = len, s;
			while (e > 0 && (l->stack[e - 1] == ' ' || l->stack[e - 1] == '\t'))
				e--;
			s = e;
			while (s > 0 && l->stack[s - 1] != ' ' && l->stack[s - 1] != '\t')
				s--;
			if (s == 0 || fk_parse_i64(l->stack + s, e - s, c ? &f->xv[c - 1] : &v) < 0) {
				rc = fk_err_set(a->err, FK_ESYNTAX, l->lineno,
						"expected %u values on the line", f->t.ncols);
				break;
			}
			if ((c ? f->xv[c - 1] : v) < 0) {
				/* Before the tree makes the line's frames. */
				rc = fk_err_set(a->err, FK_ESYNTAX, l->lineno, "negative value '%lld'",
						(long long)(c ? f->xv[c - 1] : v));
				break;
			}
			len = s;
		}
		while (rc == 0 && len > 0 && (l->stack[len - 1] == ' ' || l->stack[len - 1] == '\t'))
			len--;
		if (rc == 0 && len == 0)
			rc = fk_err_set(a->err, FK_ESYNTAX, l->lineno, "empty stack");
	}
	if (rc == 0) {
		f->t.xv = f->t.ncols > 1 ? f->xv : NULL;
		rc = fk_tree_add_line(&f->t, l->stack, len, v, a->base, l->lineno, a->err);
		f->t.xv = NULL;
	}

	/* A bad value (negative) is a bad line like any other. */
	if (rc < 0 && a->err->code == FK_ESYNTAX && a->f->o.skip_bad) {
		if (a->f->o.warn)
			a->f->o.warn(a->f->o.warn_ctx, a->err);
		fk_err_init(a->err, a->err->path);
		return 0;
	}
	return rc;
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

int fk_flame_add_fd(struct fk_flame *f, int fd, int base, struct fk_err *err)
{
	struct addctx a = { f, base, err };
	size_t cap = 1 << 20, have = 0, done, total = 0;
	uint64_t lineno = 0;
	char *buf;
	int rc = -1, eof = 0, first = 1;

	if (f->finished)
		return fk_err_set(err, FK_EUNSUPP, 0, "graph already written");
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
			if (!(nb = realloc(buf, cap * 2))) {
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
		if (first && !eof && fk_series_header_len(buf, done) == done)
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
		if (fk_folded_each_from(buf, done, &lineno, f->o.skip_bad, add_one,
					bad_one, &a, err) < 0)
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

int fk_flame_add_stack(struct fk_flame *f, const char *const *names,
		       const size_t *lens, size_t n, int64_t v, int base,
		       struct fk_err *err)
{
	if (f->finished)
		return fk_err_set(err, FK_EUNSUPP, 0, "graph already written");
	return fk_tree_add_frames(&f->t, names, lens, n, v, base, err);
}

int fk_flame_write(struct fk_flame *f, FILE *out, struct fk_err *err)
{
	struct fk_flame_opts o = f->o;

	if (!f->finished) {
		if (fk_tree_finish(&f->t, err) < 0)
			return -1;
		f->finished = 1;
	}
	if (!o.title)
		o.title = f->t.has_base ? "Differential Flame Graph" :
		    f->series.n ? "Heap over time" : "Flame Graph";
	f->t.series = f->series.n ? &f->series : NULL;
	return fk_svg_write(&f->t, &o, f->cols, out, err);
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
