/* SPDX-License-Identifier: MIT */
/* A request's query parameters checked against the list its route takes
 * (a column of the route table, serve_routes.c) and read, once, into the
 * typed struct fk_req its handler gets (serve_req.h): an unknown, repeated
 * or malformed parameter, one without its '=', or one whose decoded name
 * or value holds a NUL byte (%00) is a 400 that names it and says what is
 * allowed, never ignored (libflamekit-hook(3), ENDPOINTS). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve_int.h"
#include "num.h"
#include "serve_req.h"

static const char *const arg_names[FK_ARG_COUNT] = {
	[FK_ARG_PID] = "pid", [FK_ARG_FORMAT] = "format", [FK_ARG_TITLE] = "title",
	[FK_ARG_COLORS] = "colors", [FK_ARG_MINWIDTH] = "minwidth",
	[FK_ARG_INVERTED] = "inverted", [FK_ARG_LINES] = "lines",
	[FK_ARG_SAMPLE_TYPE] = "sample_type", [FK_ARG_MAX_SAMPLES] = "max_samples",
	[FK_ARG_SNAPSHOT] = "snapshot", [FK_ARG_BASE] = "base", [FK_ARG_SECONDS] = "seconds",
	[FK_ARG_VIEW] = "view", [FK_ARG_MAX_MS] = "max_ms", [FK_ARG_MIN_S] = "min_s",
	[FK_ARG_ENABLED] = "enabled", [FK_ARG_LG_SAMPLE] = "lg_sample",
};

/* The given bits hold every parameter. */
_Static_assert(FK_ARG_COUNT <= 32, "struct fk_req's given has a bit a parameter");

const char *fk_arg_name(enum fk_arg a)
{
	return a > FK_ARG_END && a < FK_ARG_COUNT ? arg_names[a] : NULL;
}

/* What every route takes besides its own list. */
static const struct fk_param pid_param = { .arg = FK_ARG_PID, .kind = FK_PARAM_PID };

/* A route's list is at most as long as there are parameters. */
struct walk {
	const struct fk_param *params;
	size_t n;                  /* entries of params */
	const char *route;
	char *msg;
	size_t size;
	struct fk_req *q;
};

static int param_bool(const char *s, int *out);
static int param_word(const char *(*word)(int i), const char *v);

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
		has_pid |= w->params[i].arg == FK_ARG_PID;
	if (!has_pid)
		total++;
	buf[0] = '\0';
	if (total == 1)
		return "only pid";
	for (size_t i = 0; i < total && k < size; i++) {
		const char *nm = fk_arg_name(i < w->n ? w->params[i].arg : FK_ARG_PID);

		k += (size_t)snprintf(buf + k, size - k, "%s%s",
				      i == 0 ? "" : i == total - 1 ? " and " : ", ", nm);
	}
	return buf;
}

/* v (n bytes, NUL-terminated there: the caller refused a NUL inside) as
 * a value of p's kind, into its field of q: 0, or -1 when it is none. */
static int take(struct fk_req *q, const struct fk_param *p, const char *v, size_t n)
{
	uint64_t x = 0;
	double width = 0;
	int b = 1, pct = 0;

	switch (p->kind) {
	case FK_PARAM_FLAG:
	case FK_PARAM_BOOL:
		/* A flag alone, or with "=", is true. */
		if (!(p->kind == FK_PARAM_FLAG && n == 0) && param_bool(v, &b) < 0)
			return -1;
		break;
	case FK_PARAM_UINT:
		if (fk_parse_u64(v, n, &x) < 0 || x > p->max)
			return -1;
		break;
	case FK_PARAM_ID:
		if (fk_parse_u64(v, n, &x) < 0 || x < 1 || x > p->max)
			return -1;
		break;
	case FK_PARAM_WORD:
		if ((b = param_word(p->word, v)) < 0)
			return -1;
		x = (uint64_t)b;
		break;
	case FK_PARAM_TEXT:
		if (n > FK_HOOK_MAX_URL)
			return -1;
		break;
	case FK_PARAM_WIDTH:
		/* render-flame's "PX" or "N%" (core/num.h's one parser), at
		 * most 1e6. */
		if (fk_parse_minwidth(v, n, &width, &pct) < 0 || width > 1e6)
			return -1;
		break;
	case FK_PARAM_PID_ALL:
	case FK_PARAM_PID:
		if (p->kind == FK_PARAM_PID_ALL && n == 3 && memcmp(v, "all", 3) == 0) {
			q->pid_all = 1;
			return 0;
		}
		if (fk_parse_u64(v, n, &x) < 0 || x < 1 || x > FK_HOOK_PID_MAX)
			return -1;
		break;
	}
	switch (p->arg) {
	case FK_ARG_END:
	case FK_ARG_COUNT:
		break;
	case FK_ARG_PID: q->pid = (pid_t)x; break;
	case FK_ARG_FORMAT: q->format = (int)x; break;
	case FK_ARG_TITLE: q->title = v; break;
	case FK_ARG_COLORS: q->colors = v; break;
	case FK_ARG_MINWIDTH: q->minwidth = width; q->minwidth_pct = pct; break;
	case FK_ARG_INVERTED: q->inverted = b; break;
	case FK_ARG_LINES: q->lines = b; break;
	case FK_ARG_SAMPLE_TYPE: q->sample_type = (int)x; break;
	case FK_ARG_MAX_SAMPLES: q->max_samples = x; break;
	case FK_ARG_SNAPSHOT: q->snapshot = (uint32_t)x; break;
	case FK_ARG_BASE: q->base = (uint32_t)x; break;
	case FK_ARG_SECONDS: q->seconds = x; break;
	case FK_ARG_VIEW: q->view = (int)x; break;
	case FK_ARG_MAX_MS: q->max_ms = x; break;
	case FK_ARG_MIN_S: q->min_s = x; break;
	case FK_ARG_ENABLED: q->enabled = b; break;
	case FK_ARG_LG_SAMPLE: q->lg_sample = (int)x; break;
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
	const char *name;
	uint32_t bit;

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
		if (strcmp(fk_arg_name(w->params[i].arg), key) == 0)
			p = &w->params[i];
	if (!p && strcmp(key, "pid") == 0)
		p = &pid_param;
	if (!p)
		return fail(w, "unknown parameter '%s': %s takes %s", show(kb, sizeof kb, key, klen),
			    w->route, names(w, nb, sizeof nb));
	name = fk_arg_name(p->arg);
	bit = UINT32_C(1) << p->arg;
	if (w->q->given & bit)
		return fail(w, "parameter '%s' given twice: give it once", name);
	w->q->given |= bit;
	if (!val) {
		if (p->kind == FK_PARAM_FLAG)
			return take(w->q, p, "", 0);
		return fail(w, "parameter '%s' has no value (no '='): want %s=VALUE, VALUE %s",
			    name, name, want(p, wb, sizeof wb));
	}
	if (strlen(val) != vlen)
		return fail(w, "bad %s '%s': it holds a NUL byte (%%00); want %s", name,
			    show(vb, sizeof vb, val, vlen), want(p, wb, sizeof wb));
	if (take(w->q, p, val, vlen) < 0)
		return fail(w, "%s %s '%s': want %s", p->kind == FK_PARAM_WORD ? "unknown" : "bad",
			    name, show(vb, sizeof vb, val, vlen), want(p, wb, sizeof wb));
	return 0;
}

int fk_req_parse(struct fk_req *q, fk_each_fn *each, void *tctx, const struct fk_param *params,
		 const char *route, char *msg, size_t size)
{
	struct walk w = { .params = params, .route = route, .msg = msg, .size = size, .q = q };

	memset(q, 0, sizeof *q);
	q->minwidth = -1;
	q->inverted = -1;
	msg[0] = '\0';
	while (params && params[w.n].arg != FK_ARG_END)
		w.n++;
	if (!each)
		return 0;
	if (each(tctx, one, &w) == 0)
		return 0;
	if (!msg[0])
		snprintf(msg, size, "the query's parameters could not be read");
	return -1;
}

static int param_bool(const char *s, int *out)
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

static int param_word(const char *(*word)(int i), const char *v)
{
	for (int i = 0; word(i); i++)
		if (strcmp(word(i), v) == 0)
			return i;
	return -1;
}
