/* SPDX-License-Identifier: MIT */
/* Java's legacy heap and contention profiles ("--- heapz 1 ---",
 * "--- contentionz 1 ---" with "format = java"): attributes, then
 * "SIZE COUNT @ 0xID..." lines, then "0xID NAME (FILE:LINE)" lines naming
 * the ids; the same names follow a Java CPU profile's samples (google/pprof
 * profile/legacy_java_profile.go). Heap values are scaled as pprof scales
 * them for Java's 512 KiB sampling; contention values times the period. */
#include "encode_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "limits.h"
#include "num.h"

#define JAVA_HEAP_RATE 524288

/* "KEY = VALUE" of word characters and blanks; the trimmed key and value. */
static int attribute(const char *s, size_t n, const char **k, size_t *kn,
		     const char **v, size_t *vn)
{
	const char *eq = memchr(s, '=', n), *e, *t;

	if (!eq || eq == s)
		return 0;
	for (t = s; t < s + n; t++)
		if (t != eq && !(*t == ' ' || *t == '_' || (*t >= '0' && *t <= '9') ||
				 (*t >= 'a' && *t <= 'z') || (*t >= 'A' && *t <= 'Z')))
			return 0;
	for (e = eq; e > s && e[-1] == ' '; e--)
		;
	*k = s;
	*kn = (size_t)(e - s);
	for (*v = eq + 1; *v < s + n && **v == ' '; (*v)++)
		;
	*vn = (size_t)(s + n - *v);
	return *kn > 0 && *vn > 0;
}

static int is(const char *s, size_t n, const char *w)
{
	return n == strlen(w) && memcmp(s, w, n) == 0;
}

int fk_legacy_is_java(const char *data, size_t len)
{
	struct fk_lines l;
	const char *s, *k, *v;
	size_t n, kn, vn;

	fk_lines_init(&l, data, len, NULL);
	if (fk_lines_next(&l, &s, &n) <= 0)
		return 0;
	if (is(s, n, "--- heapz 1 ---"))
		return 1;
	if (!is(s, n, "--- contentionz 1 ---"))
		return 0;
	while (fk_lines_next(&l, &s, &n) > 0) {
		if (n == 0)
			continue;
		if (!attribute(s, n, &k, &kn, &v, &vn))
			return 0;
		if (is(k, kn, "format") || is(k, kn, "resolution"))
			return 1;
	}
	return 0;
}

static int hexdigit(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* One "0xID NAME" line given to b. */
static int name_line(struct fk_lines *l, struct fk_lb *b, const char *s, size_t n)
{
	const char *end = s + n, *t, *name, *open, *colon, *file = NULL;
	size_t flen = 0;
	int64_t line = 0, ln;
	uint64_t id;

	if (n < 3 || s[0] != '0' || s[1] != 'x')
		return fk_lines_bad(l, "bad location line", s, n);
	for (t = s + 2; t < end && hexdigit(*t); t++)
		;
	if (t == s + 2 || t == end || (*t != ' ' && *t != '\t') ||
	    fk_parse_hex(s + 2, (size_t)(t - s - 2), 0, &id) < 0)
		return fk_lines_bad(l, "bad location line", s, n);
	while (t < end && (*t == ' ' || *t == '\t'))
		t++;
	name = t;
	/* "NAME (FILE:LINE)", "NAME (PATH)" (a library: its base name), a JIT
	 * stub, or a bare name ("GC", "VM"). */
	open = NULL;
	if (end[-1] == ')')
		for (t = end - 1; t > name; t--)
			if (*t == '(' && (t[-1] == ' ' || t[-1] == '\t')) {
				open = t;
				break;
			}
	if (open && end - open > 2) {
		const char *ne = open;

		while (ne > name && (ne[-1] == ' ' || ne[-1] == '\t'))
			ne--;
		for (colon = end - 2; colon > open && *colon != ':'; colon--)
			;
		if (colon > open + 1 &&
		    fk_parse_i64(colon + 1, (size_t)(end - 1 - colon - 1), &ln) == 0) {
			file = open + 1;
			flen = (size_t)(colon - file);
			line = ln > 0 ? ln : 0;
		} else {
			const char *slash;

			file = open + 1;
			flen = (size_t)(end - 1 - file);
			for (slash = file + flen; slash > file && slash[-1] != '/'; slash--)
				;
			flen -= (size_t)(slash - file);
			file = slash;
		}
		return fk_lb_name(b, id, name, (size_t)(ne - name), file, flen, line, l->err);
	}
	if (fk_lines_contains(name, (size_t)(end - name), "generated stub/JIT"))
		return fk_lb_name(b, id, "STUB", 4, NULL, 0, 0, l->err);
	return fk_lb_name(b, id, name, (size_t)(end - name), NULL, 0, 0, l->err);
}

int fk_legacy_java_names(struct fk_lb *b, const char *data, size_t len, uint64_t first_line,
			 struct fk_err *err)
{
	struct fk_lines l;
	const char *s;
	size_t n;
	int r;

	fk_lines_init(&l, data, len, err);
	l.lineno = first_line ? first_line - 1 : 0;
	while ((r = fk_lines_next(&l, &s, &n)) > 0)
		if (n && name_line(&l, b, s, n) < 0)
			return -1;
	return r;
}

/* "SIZE COUNT @ 0x..": the two numbers, the addresses' start; 0 when the
 * line is not a sample. */
static int sample_line(const char *s, size_t n, int64_t *a, int64_t *c, const char **at)
{
	const char *end = s + n, *t = s, *u;
	int64_t *out[2] = { a, c };
	int i;

	for (i = 0; i < 2; i++) {
		while (t < end && *t == ' ')
			t++;
		for (u = t; u < end && *u >= '0' && *u <= '9'; u++)
			;
		if (u == t || u == end || *u != ' ' || fk_parse_i64(t, (size_t)(u - t), out[i]) < 0)
			return 0;
		t = u;
	}
	while (t < end && *t == ' ')
		t++;
	if (t + 1 >= end || t[0] != '@' || t[1] != ' ')
		return 0;
	*at = t + 1;
	return 1;
}

int fk_legacy_java(const char *data, size_t len, uint8_t **out, size_t *outlen,
		    struct fk_err *err)
{
	struct fk_lb *b;
	uint64_t *addrs;
	struct fk_lines l;
	const char *s, *k, *v, *at, *ptype;
	char unit[64] = "";
	size_t n, kn, vn, na;
	int64_t period = 0, ms = 0, size, count, val[2], bytes;
	uint64_t first;
	int heap, rc = -1, r;

	if (fk_lines_begin(&l, data, len, &b, &addrs, err) < 0)
		goto out;
	if (fk_lines_next(&l, &s, &n) <= 0)
		goto out;
	heap = is(s, n, "--- heapz 1 ---");
	while ((r = fk_lines_next(&l, &s, &n)) > 0) {
		if (n == 0)
			continue;
		if (!attribute(s, n, &k, &kn, &v, &vn))
			break;
		if (is(k, kn, "format")) {
			if (!is(v, vn, "java")) {
				fk_lines_bad(&l, "unsupported format", v, vn);
				goto out;
			}
		} else if (is(k, kn, "resolution")) {
			if (vn >= sizeof unit) {
				fk_lines_bad(&l, "bad resolution", v, vn);
				goto out;
			}
			memcpy(unit, v, vn);
			unit[vn] = 0;
		} else if (!heap && is(k, kn, "sampling period")) {
			if (fk_lines_attr(&l, s, n, v, vn, INT64_MAX, &period) < 0)
				goto out;
		} else if (!heap && is(k, kn, "ms since reset")) {
			if (fk_lines_attr(&l, s, n, v, vn, INT64_MAX / 1000000, &ms) < 0)
				goto out;
		} else {
			fk_lines_bad(&l, "unknown attribute", s, n);
			goto out;
		}
	}
	if (r < 0)
		goto out;
	if (!unit[0]) {
		fk_err_set(err, FK_ESYNTAX, l.lineno, "no 'resolution' attribute");
		goto out;
	}
	/* A heap profile has no period; a contention one has its own. */
	ptype = !heap && period ? "contentions" : "";
	if (fk_lb_type(b, heap ? "inuse_objects" : "contentions", "count", err) < 0 ||
	    fk_lb_type(b, heap ? "inuse_space" : "delay", unit, err) < 0 ||
	    fk_lb_period(b, ptype, *ptype ? "count" : "", *ptype ? period : 0, ms * 1000000,
			 err) < 0)
		goto out;
	/* The samples, from the line that ended the attributes. */
	for (; r > 0; r = fk_lines_next(&l, &s, &n)) {
		if (n == 0)
			continue;
		if (!sample_line(s, n, &size, &count, &at))
			break;
		if (fk_lines_hexes(&l, at, (size_t)(s + n - at), addrs, &na) < 0)
			goto out;
		bytes = -1;
		if (heap) {
			if (count == 0) {
				fk_lines_bad(&l, "heap sample with a count of zero", s, n);
				goto out;
			}
			bytes = size / count;
			if (size != 0) {
				double f = 1.0 / (1.0 - exp(-((double)size / (double)count) /
							    JAVA_HEAP_RATE));

				count = (int64_t)((double)count * f);
				size = (int64_t)((double)size * f);
			} else {
				count = 0;
			}
		} else if (period) {
			if (count > INT64_MAX / period || size > INT64_MAX / period) {
				fk_lines_bad(&l, "values overflow", s, n);
				goto out;
			}
			count *= period;
			size *= period;
		}
		val[0] = count;
		val[1] = size;
		if (fk_lb_sample(b, val, addrs, na, bytes, l.lineno, err) < 0)
			goto out;
	}
	if (r < 0)
		goto out;
	if (r > 0) {
		/* The line that ended the samples is the first name. */
		if (name_line(&l, b, s, n) < 0)
			goto out;
		s = fk_lines_rest(&l, &n, &first);
		if (fk_legacy_java_names(b, s, n, first, err) < 0)
			goto out;
	}
	rc = fk_lb_finish(b, out, outlen, err);
out:
	fk_lines_end(b, addrs);
	return rc;
}
