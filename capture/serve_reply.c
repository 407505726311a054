/* SPDX-License-Identifier: MIT */
/* Replies as the routes make them (serve_int.h, "serve_reply.c"): the one
 * shape of an error answer, a sentence and a newline. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "grow.h"
#include "serve_int.h"

void fk_reply_error(struct fk_reply *r, unsigned status, const char *fmt, ...)
{
	char *buf = NULL;
	va_list ap;
	int n;

	fk_hook_buf_release(r->body, r->maplen);
	r->body = NULL;
	r->len = r->maplen = 0;
	r->status = status;
	r->ctype = "text/plain; charset=utf-8";
	r->disposition = NULL;
	va_start(ap, fmt);
	n = vasprintf(&buf, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	/* The newline every body line ends with, in place of the NUL. */
	char *b2 = fk_resize(buf, (size_t)n + 2, (size_t)n + 2, 1);
	if (!b2) {
		free(buf);
		return;
	}
	b2[n] = '\n';
	b2[n + 1] = '\0';
	r->body = b2;
	r->len = (size_t)n + 1;
}

FILE *fk_reply_open(struct fk_reply *r, const char *ctype)
{
	FILE *f;

	r->status = 200;
	r->ctype = ctype;
	f = open_memstream(&r->body, &r->len);
	if (!f)
		fk_reply_error(r, 500, "out of memory");
	return f;
}

void fk_reply_close(struct fk_reply *r, FILE *f)
{
	if (fclose(f) != 0) {
		free(r->body);
		r->body = NULL;
		fk_reply_error(r, 500, "out of memory");
	}
}
