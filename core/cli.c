/* The tools' shared main-side helpers (see cli.h). */
#include "cli.h"

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
