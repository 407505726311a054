/* SPDX-License-Identifier: MIT */
/* A page's origin (man/render-flame.1, "Origin"): the "# info: KEY=VALUE"
 * lines at the start of an input and the lines of fk_flame_opts.info,
 * checked, kept as "KEY=VALUE\n" text, and cleaned for the page's
 * <metadata id="fkinfo"> (svg.c writes it), which its header shows. */
#include <string.h>

#include "limits.h"
#include "render_int.h"

static const char tag[] = "# info:";

/* Length of the line at s[0..n) without its newline. */
static size_t line_len(const char *s, size_t n)
{
	const char *nl = memchr(s, '\n', n);

	return nl ? (size_t)(nl - s) : n;
}

/* Whether s[0..n) (no newline) is KEY=VALUE: a key of [a-z0-9_], at most
 * FK_MAX_INFO_KEY bytes, and a value of at most FK_MAX_INFO_VALUE. */
static int pair_ok(const char *s, size_t n)
{
	size_t k = 0;

	while (k < n && ((unsigned)s[k] - 'a' < 26 || (unsigned)s[k] - '0' < 10 || s[k] == '_'))
		k++;
	return k > 0 && k <= FK_MAX_INFO_KEY && k < n && s[k] == '=' &&
	    n - k - 1 <= FK_MAX_INFO_VALUE;
}

/* s[0..n) without the blanks (and a CR) at its start and end. */
static const char *trim(const char *s, size_t *n)
{
	while (*n && (*s == ' ' || *s == '\t')) {
		s++;
		(*n)--;
	}
	while (*n && (s[*n - 1] == ' ' || s[*n - 1] == '\t' || s[*n - 1] == '\r'))
		(*n)--;
	return s;
}

/* Appends the pair p[0..n) and a newline to b, the lines b holds counted
 * against the limit. 0 or -1 with err (line lineno). */
static int add_pair(struct fk_buf *b, const char *p, size_t n, uint64_t lineno,
		    struct fk_err *err)
{
	size_t lines = 0, i, k, vn;
	const char *v;

	if (!pair_ok(p, n))
		return fk_err_set(err, FK_ESYNTAX, lineno,
				  "bad info line '%.*s': expected KEY=VALUE", (int)(n > 40 ? 40 : n), p);
	for (i = 0; i < b->len; i++)
		lines += b->p[i] == '\n';
	if (lines >= FK_MAX_INFO_LINES)
		return fk_err_set(err, FK_ELIMIT, lineno, "more than %d info lines",
				  FK_MAX_INFO_LINES);
	/* The key and '=', then the value without its blanks. */
	k = (size_t)((const char *)memchr(p, '=', n) - p) + 1;
	vn = n - k;
	v = trim(p + k, &vn);
	if (fk_buf_add(b, p, k) < 0 || fk_buf_add(b, v, vn) < 0 || fk_buf_add(b, "\n", 1) < 0)
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	return 0;
}

size_t fk_info_len(const char *data, size_t len)
{
	size_t off = 0, ll;

	while (len - off >= sizeof tag - 1 && memcmp(data + off, tag, sizeof tag - 1) == 0) {
		ll = line_len(data + off, len - off);
		off += ll + (off + ll < len);
	}
	return off;
}

long fk_info_read(struct fk_buf *b, const char *data, size_t len, uint64_t *lineno,
		  struct fk_err *err)
{
	size_t end = fk_info_len(data, len), off = 0, ll, n;
	struct fk_buf scratch = { 0 };
	int rc = 0;

	while (off < end && rc == 0) {
		const char *p;
		ll = line_len(data + off, end - off);
		n = ll - (sizeof tag - 1);
		p = trim(data + off + sizeof tag - 1, &n);
		++*lineno;
		rc = add_pair(b ? b : &scratch, p, n, *lineno, err);
		off += ll + (off + ll < end);
	}
	fk_buf_release(&scratch);
	return rc < 0 ? -1 : (long)end;
}

int fk_info_add_text(struct fk_buf *b, const char *text, struct fk_err *err)
{
	size_t len = text ? strlen(text) : 0, off = 0, ll, n;

	while (off < len) {
		const char *p;
		ll = line_len(text + off, len - off);
		n = ll;
		p = trim(text + off, &n);
		if (n && add_pair(b, p, n, 0, err) < 0)
			return -1;
		off += ll + 1;
	}
	return 0;
}

int fk_info_text(const struct fk_buf *info, struct fk_buf *out)
{
	size_t off = 0, ll;

	/* A line at a time: cleaning makes a newline U+FFFD. */
	out->len = 0;
	while (off < info->len) {
		ll = line_len(info->p + off, info->len - off);
		if (fk_buf_add_clean(out, info->p + off, ll) < 0 || fk_buf_add(out, "\n", 1) < 0)
			return -1;
		off += ll + 1;
	}
	return 0;
}
