/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the hook's query parameter parser (capture/
 * serve_params.c) on a query string split and percent-decoded as
 * libmicrohttpd does (fields at '&', name and value at the first '=', no
 * '=' giving no value, %XY and '+' decoded, so that NUL bytes reach it),
 * against two lists that hold every kind of parameter. Its message must be
 * one line of printable bytes, non-empty exactly when it refuses, and a
 * request it accepts must hold only parameters of the list, each once,
 * without a NUL byte, with a value (but a flag) of its kind, and mark
 * exactly those given. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "serve_int.h"
#include "serve_req.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *fmt_word(int i)
{
	static const char *const w[] = { "pprof", "flame", "folded", "raw", "symbolized" };

	return i >= 0 && i < 5 ? w[i] : NULL;
}

static const struct fk_param heap_list[] = {
	{ .arg = FK_ARG_FORMAT, .kind = FK_PARAM_WORD, .word = fmt_word },
	{ .arg = FK_ARG_TITLE, .kind = FK_PARAM_TEXT },
	{ .arg = FK_ARG_MINWIDTH, .kind = FK_PARAM_WIDTH },
	{ .arg = FK_ARG_INVERTED, .kind = FK_PARAM_FLAG },
	{ .arg = FK_ARG_MAX_SAMPLES, .kind = FK_PARAM_UINT, .max = UINT32_MAX,
	  .want = "0 to 4294967295" },
	{ .arg = FK_ARG_SNAPSHOT, .kind = FK_PARAM_ID, .max = UINT32_MAX },
	{ .arg = FK_ARG_END },
};
static const struct fk_param settings_list[] = {
	{ .arg = FK_ARG_ENABLED, .kind = FK_PARAM_BOOL },
	{ .arg = FK_ARG_LG_SAMPLE, .kind = FK_PARAM_UINT, .max = 63 },
	{ .arg = FK_ARG_PID, .kind = FK_PARAM_PID_ALL },
	{ .arg = FK_ARG_END },
};

#define MAXF 64

struct field {
	char *key, *val;           /* decoded, NUL after; val NULL: no '=' */
	size_t klen, vlen;
};

struct query {
	struct field f[MAXF];
	size_t n;
};

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* s[0..n) decoded into a fresh exact-size buffer (plus its NUL). */
static char *decode(const uint8_t *s, size_t n, size_t *outlen)
{
	char *o = malloc(n + 1);
	size_t k = 0;

	if (!o)
		abort();
	for (size_t i = 0; i < n; i++) {
		int hi, lo;

		if (s[i] == '%' && i + 2 < n && (hi = hexval(s[i + 1])) >= 0 && (lo = hexval(s[i + 2])) >= 0) {
			o[k++] = (char)(hi * 16 + lo);
			i += 2;
		} else {
			o[k++] = s[i] == '+' ? ' ' : (char)s[i];
		}
	}
	o[k] = '\0';
	*outlen = k;
	return o;
}

static int each(void *tctx, int (*fn)(void *cls, const char *key, size_t klen,
				      const char *val, size_t vlen), void *cls)
{
	const struct query *q = tctx;

	for (size_t i = 0; i < q->n; i++) {
		int rc = fn(cls, q->f[i].key, q->f[i].klen, q->f[i].val, q->f[i].vlen);

		if (rc)
			return rc;
	}
	return 0;
}

static int digits(const char *v, size_t n)
{
	if (n == 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (v[i] < '0' || v[i] > '9')
			return 0;
	return 1;
}

/* What an accepted request must satisfy, checked apart from the checker. */
static void accepted(const struct query *q, const struct fk_param *list, const struct fk_req *rq)
{
	const struct fk_param *seen[MAXF];
	size_t ns = 0;
	uint32_t given = 0;

	for (size_t i = 0; i < q->n; i++) {
		const struct field *f = &q->f[i];
		const struct fk_param *p = NULL;

		if (f->klen == 0) {
			if (f->val && f->vlen)
				abort();
			continue;
		}
		if (strlen(f->key) != f->klen)
			abort();
		for (size_t k = 0; list[k].arg != FK_ARG_END && !p; k++)
			if (strcmp(fk_arg_name(list[k].arg), f->key) == 0)
				p = &list[k];
		if (!p && strcmp(f->key, "pid") != 0)
			abort();
		given |= UINT32_C(1) << (p ? p->arg : FK_ARG_PID);
		for (size_t k = 0; k < ns; k++)
			if (seen[k] == p && (p || strcmp(f->key, "pid") == 0))
				abort();
		seen[ns++] = p;
		if (!f->val) {
			if (!p || p->kind != FK_PARAM_FLAG || rq->inverted != 1)
				abort();
			continue;
		}
		if (strlen(f->val) != f->vlen)
			abort();
		if (!p || p->kind == FK_PARAM_UINT || p->kind == FK_PARAM_ID || p->kind == FK_PARAM_PID)
			if (!digits(f->val, f->vlen))
				abort();
		if (p && p->kind == FK_PARAM_PID_ALL && strcmp(f->val, "all") != 0 &&
		    !digits(f->val, f->vlen))
			abort();
		if (p && p->kind == FK_PARAM_BOOL && strcmp(f->val, "true") && strcmp(f->val, "false") &&
		    strcmp(f->val, "1") && strcmp(f->val, "0"))
			abort();
	}
	if (given != rq->given)
		abort();
}

static void check(const struct query *q, const struct fk_param *list)
{
	struct fk_req rq;
	char msg[600];
	int rc = fk_req_parse(&rq, each, (void *)q, list, "GET /x", msg, sizeof msg);
	size_t n = strnlen(msg, sizeof msg);

	if (n == sizeof msg)
		abort();
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)msg[i] < 0x20 || msg[i] == 0x7f)
			abort();
	if (rc == 0 && n != 0)
		abort();
	if (rc == -1 && n == 0)
		abort();
	if (rc != 0 && rc != -1)
		abort();
	if (rc == 0)
		accepted(q, list, &rq);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct query q;
	size_t i = 0;

	memset(&q, 0, sizeof q);
	while (i <= size && q.n < MAXF) {
		size_t end = i, eq;
		struct field *f = &q.f[q.n++];

		while (end < size && data[end] != '&')
			end++;
		for (eq = i; eq < end && data[eq] != '='; eq++)
			;
		f->key = decode(data + i, eq - i, &f->klen);
		if (eq < end)
			f->val = decode(data + eq + 1, end - eq - 1, &f->vlen);
		i = end + 1;
	}
	check(&q, heap_list);
	check(&q, settings_list);
	for (size_t k = 0; k < q.n; k++) {
		free(q.f[k].key);
		free(q.f[k].val);
	}
	return 0;
}
