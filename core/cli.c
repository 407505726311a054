/* The tools' shared main-side helpers (see cli.h). */
#include "cli.h"

#include "io.h"
#include "profile.h"
#include "symprof.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *fk_progname = "flamekit";

void fk_cli_init(const char *argv0)
{
	const char *slash;

	if (!argv0 || !*argv0)
		return;
	slash = strrchr(argv0, '/');
	fk_progname = slash ? slash + 1 : argv0;
}

static void vwarn(const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", fk_progname);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void fk_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
}

void fk_warn_err(const struct fk_err *err)
{
	char buf[1024];

	fprintf(stderr, "%s: %s\n", fk_progname, fk_err_str(err, buf, sizeof buf));
}

void fk_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
	exit(1);
}

void fk_die_err(const struct fk_err *err)
{
	fk_warn_err(err);
	exit(1);
}

void fk_usage(const char *text, FILE *fp, int status)
{
	fputs(text, fp);
	exit(status);
}

void fk_print_version(void)
{
	printf("%s (flamekit) %s\n", fk_progname, FK_VERSION);
	exit(0);
}

void *fk_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		fk_die("out of memory");
	return p;
}

void *fk_xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		fk_die("out of memory");
	return p;
}

struct fk_profile *fk_cli_load(const char *path)
{
	struct fk_profile *p = fk_profile_new(path ? path : "-");
	struct fk_err err;

	if (!p)
		fk_die("out of memory");
	fk_err_init(&err, p->source);
	if (fk_profile_load(p, path, &err) < 0)
		fk_die_err(&err);
	return p;
}

void fk_cli_open_out(struct fk_out *out, const char *path)
{
	struct fk_err err;

	fk_err_init(&err, path && strcmp(path, "-") ? path : "stdout");
	if (fk_out_open(out, path, &err) < 0)
		fk_die_err(&err);
}

void fk_cli_commit_out(struct fk_out *out, int rc, struct fk_err *err)
{
	struct fk_err werr;

	if (rc < 0) {
		fk_out_abort(out);
		fk_die_err(err);
	}
	fk_err_init(&werr, out->path ? out->path : "stdout");
	if (fk_out_commit(out, &werr) < 0) {
		fk_out_abort(out);
		fk_die_err(&werr);
	}
}
