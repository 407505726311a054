/* The flame graph entry points (flame.h): collect folded stacks into the
 * merged tree, then lay out and write the SVG page. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "folded.h"
#include "limits.h"
#include "render_int.h"

struct fk_flame {
	struct fk_flame_opts o;
	struct fk_tree t;
	int finished;
};

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
	f->t.reverse = o->reverse;
	f->t.sort = o->sort;
	return f;
}

void fk_flame_free(struct fk_flame *f)
{
	if (!f)
		return;
	fk_tree_release(&f->t);
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
	int rc = fk_tree_add_line(&a->f->t, l->stack, l->len, l->value, a->base,
				  l->lineno, a->err);

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

	/* Prefix sharing works within one buffer only. */
	f->t.prev = NULL;
	rc = fk_folded_each(data, len, f->o.skip_bad, add_one, bad_one, &a, err);
	f->t.prev = NULL;
	return rc;
}

int fk_flame_add_fd(struct fk_flame *f, int fd, int base, struct fk_err *err)
{
	struct addctx a = { f, base, err };
	size_t cap = 1 << 20, have = 0, done, total = 0;
	uint64_t lineno = 0;
	char *buf;
	int rc = -1, eof = 0;

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
		o.title = f->t.has_base ? "Differential Flame Graph" : "Flame Graph";
	return fk_svg_write(&f->t, &o, out, err);
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
