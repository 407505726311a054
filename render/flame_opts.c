/* SPDX-License-Identifier: MIT */
/* render-flame's options by their long names (man/render-flame.1): which
 * field of struct fk_flame_opts each sets, the values it takes, and the
 * ranges the tool allows; and a folded file by its path. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "flame.h"
#include "num.h"

const struct fk_flame_optname fk_flame_optnames[] = {
	{ "title", 1 }, { "subtitle", 1 }, { "notes", 1 }, { "width", 1 },
	{ "height", 1 }, { "minwidth", 1 }, { "fonttype", 1 }, { "fontsize", 1 },
	{ "countname", 1 }, { "nametype", 1 }, { "colors", 1 }, { "hash", 0 },
	{ "sort", 1 }, { "inverted", 0 }, { "reverse", 0 }, { "flamechart", 0 },
	{ "negate", 0 }, { "normalize", 0 }, { "upward", 0 }, { "skip-bad", 0 },
	{ NULL, 0 },
};

/* A size option's number, or with pct its PX|N%. */
static int number(const char *name, const char *s, double *v, int *pct, struct fk_err *err)
{
	if (pct ? fk_parse_minwidth(s, strlen(s), v, pct) < 0 : fk_parse_double(s, strlen(s), v) < 0)
		return fk_err_set(err, FK_ESYNTAX, 0, "bad number for --%s '%s'", name, s);
	return 0;
}

int fk_flame_opt_set(struct fk_flame_opts *o, const char *name, const char *v,
		     struct fk_err *err)
{
	if (!strcmp(name, "title")) o->title = v;
	else if (!strcmp(name, "subtitle")) o->subtitle = v;
	else if (!strcmp(name, "notes")) o->notes = v;
	else if (!strcmp(name, "fonttype")) o->fonttype = v;
	else if (!strcmp(name, "countname")) o->countname = v;
	else if (!strcmp(name, "nametype")) o->nametype = v;
	else if (!strcmp(name, "width")) return number(name, v, &o->width, NULL, err);
	else if (!strcmp(name, "height")) return number(name, v, &o->frameheight, NULL, err);
	else if (!strcmp(name, "fontsize")) return number(name, v, &o->fontsize, NULL, err);
	else if (!strcmp(name, "minwidth")) return number(name, v, &o->minwidth, &o->minwidth_pct, err);
	else if (!strcmp(name, "colors")) {
		if (fk_flame_palette_check(v) < 0)
			return fk_err_set(err, FK_EUNSUPP, 0, "unknown palette '%s'", v);
		o->colors = v;
	} else if (!strcmp(name, "sort")) {
		if (strcmp(v, "name") == 0)
			o->sort = FK_SORT_NAME;
		else if (strcmp(v, "weight") == 0)
			o->sort = FK_SORT_WEIGHT;
		else
			return fk_err_set(err, FK_EUNSUPP, 0, "unknown sort order '%s'", v);
	}
	else if (!strcmp(name, "hash")) o->hash = 1;
	else if (!strcmp(name, "inverted")) o->inverted = 1;
	else if (!strcmp(name, "upward")) o->inverted = 0;
	else if (!strcmp(name, "reverse")) o->reverse = 1;
	else if (!strcmp(name, "flamechart")) o->flamechart = 1;
	else if (!strcmp(name, "negate")) o->negate = 1;
	else if (!strcmp(name, "normalize")) o->normalize = 1;
	else if (!strcmp(name, "skip-bad")) o->skip_bad = 1;
	else return fk_err_set(err, FK_EUNSUPP, 0, "unknown option '--%s'", name);
	return 0;
}

int fk_flame_opts_check(const struct fk_flame_opts *o, struct fk_err *err)
{
	if (o->width > 0 && (o->width < 100 || o->width > 100000))
		return fk_err_set(err, FK_EUNSUPP, 0, "--width must be 100 to 100000");
	if (o->frameheight < 1 || o->frameheight > 200)
		return fk_err_set(err, FK_EUNSUPP, 0, "--height must be 1 to 200");
	if (o->fontsize < 1 || o->fontsize > 200)
		return fk_err_set(err, FK_EUNSUPP, 0, "--fontsize must be 1 to 200");
	if (o->minwidth_pct && o->minwidth > 100)
		return fk_err_set(err, FK_EUNSUPP, 0, "--minwidth above 100%%");
	return 0;
}

int fk_flame_add_path(struct fk_flame *f, const char *path, int base, struct fk_err *err)
{
	int fd = 0, rc;

	fk_err_init(err, path);
	if (strcmp(path, "-") != 0 && (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return fk_err_set(err, FK_EIO, 0, "cannot open: %s", strerror(errno));
	rc = fk_flame_add_fd(f, fd, base, err);
	if (fd != 0)
		close(fd);
	return rc;
}
