/* The formats the hook serves: a raw jemalloc dump turned into pprof, a
 * flame graph, folded stacks or a symbolized profile by the same library
 * code the tools run (DESIGN.md: "Everything a binary does is a library
 * call first"). The one place that knows those libraries' entry points. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hook_int.h"

static const struct {
	const char *name, *ctype;
} fmts[] = {
	[FK_OUT_PPROF] = { "pprof", "application/octet-stream" },
	[FK_OUT_FLAME] = { "flame", "image/svg+xml" },
	[FK_OUT_FOLDED] = { "folded", "text/plain; charset=utf-8" },
	[FK_OUT_RAW] = { "raw", "text/plain; charset=utf-8" },
	[FK_OUT_SYMBOLIZED] = { "symbolized", "text/plain; charset=utf-8" },
};

int fk_fmt_parse(const char *name)
{
	for (size_t i = 0; i < sizeof fmts / sizeof fmts[0]; i++)
		if (strcmp(name, fmts[i].name) == 0)
			return (int)i;
	return -1;
}

const char *fk_fmt_ctype(int fmt)
{
	if (fmt < 0 || (size_t)fmt >= sizeof fmts / sizeof fmts[0])
		return "application/octet-stream";
	return fmts[fmt].ctype;
}

int fk_serve_convert(char *dump, size_t dlen, int fmt,
		     const struct fk_serve_opts *o, char **out, size_t *outlen,
		     struct fk_err *err)
{
	(void)o;
	if (fmt == FK_OUT_RAW) {
		/* Exactly as jemalloc wrote it. */
		*out = dump;
		*outlen = dlen;
		return 0;
	}
	free(dump);
	return fk_err_set(err, FK_EUNSUPP, 0, "format '%s' is not available in this build",
			  fmts[fmt].name);
}

int fk_serve_delta(char *base, size_t blen, char *cur, size_t clen,
		   char **out, size_t *outlen, struct fk_err *err)
{
	(void)blen;
	(void)clen;
	(void)out;
	(void)outlen;
	free(base);
	free(cur);
	return fk_err_set(err, FK_EUNSUPP, 0, "delta profiles are not available in this build");
}
