/* SPDX-License-Identifier: MIT */
/* A request's query parameters checked against the list its route takes
 * (a column of the route table, hook_routes.c) before its handler runs:
 * an unknown, repeated or malformed parameter, one without its '=', or one
 * whose decoded name or value holds a NUL byte (%00) is a 400 that names
 * it and says what is allowed, never ignored (libflamekit-hook(3),
 * ENDPOINTS). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve_int.h"
#include "num.h"

/* What every route takes besides its own list. */
static const struct fk_param pid_param = { .name = "pid", .kind = FK_PARAM_PID };

/* A parameter list holds at most this many names (a bit each below). */
#define MAX_LIST 63

struct walk {
	const struct fk_param *params;
	size_t n;                  /* entries of params */
	const char *route;
	char *msg;
	size_t size;
	uint64_t seen;             /* bit i: params[i] given; bit MAX_LIST: pid */
};

/* v[0..n) for a message: at most 40 bytes, each byte that is not
 * printable ASCII (or is a quote) shown as '?', so that the answer stays
 * one line. */
static const char *show(char *buf, size_t size, const char *v, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n && i < 40 && k + 4 < size; i++) {
		unsigned char c = (unsigned char)v[i];

		buf[k++] = c >= 0x20 && c < 0x7f && c != '\'' ? (char)c : '?';
	}
	if (n > 40 && k + 4 < size) {
		memcpy(buf + k, "...", 3);
		k += 3;
	}
	buf[k] = '\0';
	return buf;
}

/* What p allows, in words, into buf. */
static const char *want(const struct fk_param *p, char *buf, size_t size)
{
	size_t k = 0;
	int n = 0;

	if (p->want)
		return p->want;
	switch (p->kind) {
	case FK_PARAM_BOOL:
	case FK_PARAM_FLAG:
		return "true or false";
	case FK_PARAM_UINT:
		snprintf(buf, size, "0 to %llu", (unsigned long long)p->max);
		return buf;
	case FK_PARAM_ID:
		snprintf(buf, size, "1 to %llu", (unsigned long long)p->max);
		return buf;
	case FK_PARAM_WORD:
		buf[0] = '\0';
		while (p->word(n))
			n++;
		for (int i = 0; i < n && k < size; i++)
			k += (size_t)snprintf(buf + k, size - k, "%s%s",
					      i == 0 ? "" : i == n - 1 ? " or " : ", ", p->word(i));
		return buf;
	case FK_PARAM_TEXT:
		return "text without NUL bytes";
	case FK_PARAM_WIDTH:
		return "a width in pixels (0 to 1000000) or a percentage (N%)";
	case FK_PARAM_PID:
		return "a process id (1 to " FK_HOOK_STR(FK_HOOK_PID_MAX) ")";
	case FK_PARAM_PID_ALL:
		return "a process id (1 to " FK_HOOK_STR(FK_HOOK_PID_MAX) ") or all";
	}
	return "?";
}

/* The names the route takes, "a, b and pid", into buf. */
static const char *names(const struct walk *w, char *buf, size_t size)
{
	size_t k = 0, total = w->n;
	int has_pid = 0;

	for (size_t i = 0; i < w->n; i++)
		has_pid |= strcmp(w->params[i].name, "pid") == 0;
	if (!has_pid)
		total++;
	buf[0] = '\0';
	if (total == 1)
		return "only pid";
	for (size_t i = 0; i < total && k < size; i++) {
		const char *nm = i < w->n ? w->params[i].name : "pid";

		k += (size_t)snprintf(buf + k, size - k, "%s%s",
				      i == 0 ? "" : i == total - 1 ? " and " : ", ", nm);
	}
	return buf;
}

/* A width render-flame takes ("PX" or "N%", core/num.h's one parser),
 * at most 1e6. */
static int width_ok(const char *v, size_t n)
{
	double x;
	int pct;

	return fk_parse_minwidth(v, n, &x, &pct) == 0 && x <= 1e6;
}

/* Whether v (n bytes, NUL-terminated there: the caller refused a NUL
 * inside) is a value of p's kind. */
static int value_ok(const struct fk_param *p, const char *v, size_t n)
{
	uint64_t x;
	int b;

	switch (p->kind) {
	case FK_PARAM_FLAG:
		if (n == 0)
			return 1;
		/* fall through */
	case FK_PARAM_BOOL:
		return fk_param_bool(v, &b) == 0;
	case FK_PARAM_UINT:
		return fk_parse_u64(v, n, &x) == 0 && x <= p->max;
	case FK_PARAM_ID:
		return fk_parse_u64(v, n, &x) == 0 && x >= 1 && x <= p->max;
	case FK_PARAM_WORD:
		return fk_param_word(p->word, v) >= 0;
	case FK_PARAM_TEXT:
		return n <= FK_HOOK_MAX_URL;
	case FK_PARAM_WIDTH:
		return width_ok(v, n);
	case FK_PARAM_PID_ALL:
		if (n == 3 && memcmp(v, "all", 3) == 0)
			return 1;
		/* fall through */
	case FK_PARAM_PID:
		return fk_parse_u64(v, n, &x) == 0 && x >= 1 && x <= FK_HOOK_PID_MAX;
	}
	return 0;
}

static int fail(struct walk *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct walk *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->msg, w->size, fmt, ap);
	va_end(ap);
	return -1;
}

static int one(void *cls, const char *key, size_t klen, const char *val, size_t vlen)
{
	struct walk *w = cls;
	const struct fk_param *p = NULL;
	char kb[64], vb[64], wb[200], nb[300];
	size_t bit = 0;

	if (strlen(key) != klen)
		return fail(w, "a parameter's name '%s' holds a NUL byte (%%00): %s takes %s",
			    show(kb, sizeof kb, key, klen), w->route, names(w, nb, sizeof nb));
	if (klen == 0) {
		/* An empty field ("a=1&&b=2", a trailing '&') carries nothing. */
		if (!val || vlen == 0)
			return 0;
		return fail(w, "a parameter without a name ('=%s'): %s takes %s",
			    show(vb, sizeof vb, val, vlen), w->route, names(w, nb, sizeof nb));
	}
	for (size_t i = 0; i < w->n && !p; i++)
		if (strcmp(w->params[i].name, key) == 0)
			p = &w->params[i], bit = i;
	if (!p && strcmp(key, "pid") == 0)
		p = &pid_param, bit = MAX_LIST;
	if (!p)
		return fail(w, "unknown parameter '%s': %s takes %s", show(kb, sizeof kb, key, klen),
			    w->route, names(w, nb, sizeof nb));
	if (w->seen & (UINT64_C(1) << bit))
		return fail(w, "parameter '%s' given twice: give it once", p->name);
	w->seen |= UINT64_C(1) << bit;
	if (!val) {
		if (p->kind == FK_PARAM_FLAG)
			return 0;
		return fail(w, "parameter '%s' has no value (no '='): want %s=VALUE, VALUE %s",
			    p->name, p->name, want(p, wb, sizeof wb));
	}
	if (strlen(val) != vlen)
		return fail(w, "bad %s '%s': it holds a NUL byte (%%00); want %s", p->name,
			    show(vb, sizeof vb, val, vlen), want(p, wb, sizeof wb));
	if (!value_ok(p, val, vlen))
		return fail(w, "%s %s '%s': want %s", p->kind == FK_PARAM_WORD ? "unknown" : "bad",
			    p->name, show(vb, sizeof vb, val, vlen), want(p, wb, sizeof wb));
	return 0;
}

int fk_params_check(const struct fk_request *rq, const struct fk_param *params,
		    const char *route, char *msg, size_t size)
{
	struct walk w = { .params = params, .route = route, .msg = msg, .size = size };

	msg[0] = '\0';
	while (params && params[w.n].name && w.n < MAX_LIST)
		w.n++;
	if (!rq->each)
		return 0;
	return rq->each(rq->tctx, one, &w) == 0 ? 0 : -1;
}

int fk_param_bool(const char *s, int *out)
{
	if (strcmp(s, "true") == 0 || strcmp(s, "1") == 0) {
		*out = 1;
		return 0;
	}
	if (strcmp(s, "false") == 0 || strcmp(s, "0") == 0) {
		*out = 0;
		return 0;
	}
	return -1;
}

int fk_param_word(const char *(*word)(int i), const char *v)
{
	for (int i = 0; word(i); i++)
		if (strcmp(word(i), v) == 0)
			return i;
	return -1;
}
