/* SPDX-License-Identifier: MIT */
/* A strict JSON reader's pieces (jsonlex.h; RFC 8259's grammar): blanks,
 * punctuation, strings with their escapes checked, numbers and literals,
 * and skipping a value of any shape to a bounded depth. */
#include "jsonlex.h"

#include <stdio.h>
#include <string.h>

#include "num.h"

void fk_json_init(struct fk_json *j, const char *data, size_t len, struct fk_err *err)
{
	j->s = j->base = data;
	j->end = data + len;
	j->err = err;
}

void fk_json_ws(struct fk_json *j)
{
	while (j->s < j->end && (*j->s == ' ' || *j->s == '\t' || *j->s == '\n' || *j->s == '\r'))
		j->s++;
}

int fk_json_bad(struct fk_json *j, const char *at, const char *what)
{
	return fk_err_set_off(j->err, FK_ESYNTAX, (uint64_t)(at - j->base), "%s", what);
}

int fk_json_bad_span(struct fk_json *j, const char *v, size_t n, const char *what,
		     const char *want)
{
	char q[200] = "", msg[256];

	fk_err_quote(q, sizeof q, v, n);
	snprintf(msg, sizeof msg, "bad %s '%s': want %s", what, q, want);
	return fk_json_bad(j, v, msg);
}

int fk_json_expect(struct fk_json *j, char c, const char *what)
{
	fk_json_ws(j);
	if (j->s >= j->end || *j->s != c)
		return fk_json_bad(j, j->s, what);
	j->s++;
	return 0;
}

int fk_json_next(struct fk_json *j, char close, const char *what)
{
	fk_json_ws(j);
	if (j->s < j->end && *j->s == ',') {
		j->s++;
		return 1;
	}
	return fk_json_expect(j, close, what) < 0 ? -1 : 0;
}

int fk_json_string(struct fk_json *j, const char **v, size_t *n)
{
	const char *p;

	if (fk_json_expect(j, '"', "want a string") < 0)
		return -1;
	for (p = j->s; p < j->end && *p != '"'; p++) {
		if ((unsigned char)*p < 0x20)
			return fk_json_bad(j, p, "control character in a string");
		if (*p == '\\') {
			if (++p >= j->end || !strchr("\"\\/bfnrtu", *p))
				return fk_json_bad(j, p, "bad escape in a string");
		}
	}
	if (p >= j->end)
		return fk_json_bad(j, j->s - 1, "unterminated string");
	*v = j->s;
	*n = (size_t)(p - j->s);
	j->s = p + 1;
	return 0;
}

/* The bad value at the next byte (to the next delimiter) quoted. */
static int bad_value(struct fk_json *j, const char *what, const char *want)
{
	const char *e = j->s;

	while (e < j->end && !strchr(",}]\n", *e) && e - j->s < 40)
		e++;
	return fk_json_bad_span(j, j->s, (size_t)(e - j->s), what, want);
}

/* 1 when c may end a scalar. */
static int delim(const char *p, const char *end)
{
	return p >= end || strchr(",}] \t\r\n", *p) != NULL;
}

int fk_json_u64(struct fk_json *j, const char *name, uint64_t *v)
{
	const char *p;

	fk_json_ws(j);
	for (p = j->s; p < j->end && *p >= '0' && *p <= '9'; p++)
		;
	if (p == j->s || !delim(p, j->end) || fk_parse_u64(j->s, (size_t)(p - j->s), v) < 0)
		return bad_value(j, name, "an unsigned integer");
	j->s = p;
	return 0;
}

int fk_json_bool(struct fk_json *j, const char *name, int *v)
{
	fk_json_ws(j);
	if ((size_t)(j->end - j->s) >= 4 && memcmp(j->s, "true", 4) == 0 && delim(j->s + 4, j->end)) {
		*v = 1;
		j->s += 4;
		return 0;
	}
	if ((size_t)(j->end - j->s) >= 5 && memcmp(j->s, "false", 5) == 0 &&
	    delim(j->s + 5, j->end)) {
		*v = 0;
		j->s += 5;
		return 0;
	}
	return bad_value(j, name, "true or false");
}

/* The digits from p: their end. */
static const char *digits(const char *p, const char *end)
{
	while (p < end && *p >= '0' && *p <= '9')
		p++;
	return p;
}

int fk_json_scalar(struct fk_json *j, const char **v, size_t *n)
{
	static const char *const words[] = { "true", "false", "null" };
	const char *p, *q;

	fk_json_ws(j);
	p = j->s;
	for (size_t i = 0; i < 3; i++) {
		size_t k = strlen(words[i]);

		if ((size_t)(j->end - p) >= k && memcmp(p, words[i], k) == 0 &&
		    delim(p + k, j->end)) {
			*v = p;
			*n = k;
			j->s = p + k;
			return 0;
		}
	}
	/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
	if (p < j->end && *p == '-')
		p++;
	if (p < j->end && *p == '0')
		p++;
	else if ((q = digits(p, j->end)) > p)
		p = q;
	else
		return bad_value(j, "value", "a number, a string, an object, an array, true, "
				 "false or null");
	if (p < j->end && *p == '.') {
		if ((q = digits(p + 1, j->end)) == p + 1)
			return bad_value(j, "number", "digits after '.'");
		p = q;
	}
	if (p < j->end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < j->end && (*p == '+' || *p == '-'))
			p++;
		if ((q = digits(p, j->end)) == p)
			return bad_value(j, "number", "digits in the exponent");
		p = q;
	}
	if (!delim(p, j->end))
		return bad_value(j, "number", "a number");
	*v = j->s;
	*n = (size_t)(p - j->s);
	j->s = p;
	return 0;
}

int fk_json_skip(struct fk_json *j, int depth, int max)
{
	const char *v;
	size_t n;
	int more;

	if (depth > max)
		return fk_json_bad(j, j->s, "values nested too deep");
	fk_json_ws(j);
	if (j->s >= j->end)
		return fk_json_bad(j, j->s, "want a value");
	if (*j->s == '"')
		return fk_json_string(j, &v, &n);
	if (*j->s != '{' && *j->s != '[')
		return fk_json_scalar(j, &v, &n);
	char close = *j->s == '{' ? '}' : ']';

	j->s++;
	fk_json_ws(j);
	if (j->s < j->end && *j->s == close) {
		j->s++;
		return 0;
	}
	do {
		if (close == '}' && (fk_json_string(j, &v, &n) < 0 ||
				     fk_json_expect(j, ':', "want ':'") < 0))
			return -1;
		if (fk_json_skip(j, depth + 1, max) < 0)
			return -1;
	} while ((more = fk_json_next(j, close, close == '}' ? "want ',' or '}'"
				      : "want ',' or ']'")) == 1);
	return more;
}

int fk_json_key_is(const char *k, size_t n, const char *want)
{
	return strlen(want) == n && memcmp(k, want, n) == 0;
}
