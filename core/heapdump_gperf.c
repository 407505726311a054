/* SPDX-License-Identifier: MIT */
/* Reader of the "heap profile:" forms that gperftools, tcmalloc and Go
 * write and jemalloc 3 does not: "@ heapz_v2/R" (tcmalloc's sampled heap),
 * "@ growthz" and "@ growth" (the stacks that grew the heap), "@ heap/R"
 * (Go's legacy heap, Poisson rate R/2). Sources: gperftools
 * src/malloc_extension.cc; google/pprof profile/legacy_profile.go
 * (parseHeap) and the readers of google-pprof and jeprof. Beside the
 * jemalloc 3 form it takes '#' comment lines, bare "@" lines, and maps
 * under MAPPED_LIBRARIES: or pprof's "--- Memory map: ---" (or none). */
#include "heapdump_gperf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "dumplex.h"
#include "grow.h"
#include "limits.h"
#include "maps.h"
#include "num.h"

struct greader {
	struct fk_profile *p;
	const char *cur, *end;
	uint64_t lineno;
	struct fk_err *err;
	size_t stack_cap;
	double sum[4];
};

static int gsyntax(struct greader *r, const char *what, const char *s, size_t n)
{
	return fk_dumplex_syntax(r->err, r->lineno, what, s, n);
}

static const char *token_end(const char *s, const char *end)
{
	while (s < end && *s != ' ' && *s != '\t' && *s != ':' && *s != '[' &&
	       *s != ']' && *s != '@')
		s++;
	return s;
}

/* One count; negative only when neg. */
static int gcount(struct greader *r, const char **sp, const char *end, int neg,
		  int64_t *v)
{
	const char *s = fk_dumplex_blanks(*sp, end), *t = token_end(s, end);

	if (t == s)
		return gsyntax(r, "expected a count at", s, (size_t)(end - s));
	if (fk_parse_i64(s, (size_t)(t - s), v) < 0 || (*v < 0 && !neg))
		return gsyntax(r, "bad count", s, (size_t)(t - s));
	*sp = t;
	return 0;
}

static int gexpect(struct greader *r, const char **sp, const char *end, char c)
{
	return fk_dumplex_expect(r->err, r->lineno, sp, end, c);
}

/* "N: S [AN: AS]"; in-use counts may be negative in a sample line (Go's
 * reader takes them), never in the header. A count of 0 with bytes is
 * refused, as Go refuses it. */
static int gcounts(struct greader *r, const char **sp, const char *end, int neg,
		   struct fk_counts *c)
{
	if (gcount(r, sp, end, neg, &c->objs) < 0 || gexpect(r, sp, end, ':') < 0 ||
	    gcount(r, sp, end, neg, &c->bytes) < 0 || gexpect(r, sp, end, '[') < 0 ||
	    gcount(r, sp, end, 0, &c->acc_objs) < 0 || gexpect(r, sp, end, ':') < 0 ||
	    gcount(r, sp, end, 0, &c->acc_bytes) < 0 || gexpect(r, sp, end, ']') < 0)
		return -1;
	if ((c->objs == 0 && c->bytes != 0) || (c->acc_objs == 0 && c->acc_bytes != 0))
		return fk_err_set(r->err, FK_ESYNTAX, r->lineno,
				  "bytes with a count of zero '%lld: %lld [%lld: %lld]'",
				  (long long)c->objs, (long long)c->bytes,
				  (long long)c->acc_objs, (long long)c->acc_bytes);
	return 0;
}

/* The type after the header's '@': sets p's format and period. */
static int gtype(struct greader *r, const char *s, const char *end)
{
	struct fk_profile *p = r->p;
	size_t n = (size_t)(end - s);
	uint64_t rate;

	p->format = FK_FMT_LEGACY;
	if ((n == 7 && memcmp(s, "growthz", 7) == 0) || (n == 6 && memcmp(s, "growth", 6) == 0)) {
		p->format = FK_FMT_GROWTH;
		p->period = 0;
		return 0;
	}
	if (n > 9 && memcmp(s, "heapz_v2/", 9) == 0) {
		if (fk_parse_u64(s + 9, n - 9, &rate) < 0 || rate > (uint64_t)1 << FK_MAX_PERIOD_LG)
			return gsyntax(r, "bad sampling period", s, n);
		p->period = rate;
		return 0;
	}
	if (n > 5 && memcmp(s, "heap/", 5) == 0) {
		/* Go's first heap profiles wrote twice the mean interval. */
		if (fk_parse_u64(s + 5, n - 5, &rate) < 0 || rate > (uint64_t)1 << FK_MAX_PERIOD_LG)
			return gsyntax(r, "bad sampling period", s, n);
		p->period = rate / 2;
		return 0;
	}
	return gsyntax(r, "unsupported profile type", s, n);
}

int fk_heapdump_gperf_header(const char *s, size_t n)
{
	const char *end = s + n, *at = memchr(s, '@', n);
	size_t k;

	if (n < 13 || memcmp(s, "heap profile:", 13) != 0 || !at)
		return 0;
	at = fk_dumplex_blanks(at + 1, end);
	k = (size_t)(end - at);
	return (k == 7 && memcmp(at, "growthz", 7) == 0) ||
	       (k == 6 && memcmp(at, "growth", 6) == 0) ||
	       (k > 9 && memcmp(at, "heapz_v2/", 9) == 0) ||
	       (k > 5 && memcmp(at, "heap/", 5) == 0);
}

/* "0xADDR ..." (leaf first) into the arena; past FK_MAX_DEPTH frames, the
 * innermost ones and the [truncated] root, as core/heapdump.c keeps them. */
static int gaddrs(struct greader *r, const char *s, const char *end, struct fk_stack *st)
{
	uint64_t tmp[FK_MAX_DEPTH + 1], spare;
	uint32_t depth = 0;

	for (;;) {
		const char *t;

		s = fk_dumplex_blanks(s, end);
		if (s >= end)
			break;
		for (t = s; t < end && *t != ' ' && *t != '\t'; t++)
			;
		if (fk_parse_hex(s, (size_t)(t - s), 1, depth < FK_MAX_DEPTH ? &tmp[depth] : &spare) < 0)
			return gsyntax(r, "bad address", s, (size_t)(t - s));
		if (depth < FK_MAX_DEPTH) {
			depth++;
		} else {
			tmp[FK_MAX_DEPTH] = FK_ADDR_TRUNCATED;
			depth = FK_MAX_DEPTH + 1;
		}
		s = t;
	}
	st->depth = depth;
	st->addrs = NULL;
	if (depth) {
		uint64_t *a = fk_arena_alloc(r->p->arena, depth * sizeof *a);

		if (!a)
			return fk_err_set(r->err, FK_ENOMEM, r->lineno, "out of memory");
		memcpy(a, tmp, depth * sizeof *a);
		st->addrs = a;
	}
	return 0;
}

static int gsample(struct greader *r, const char *s, const char *end)
{
	struct fk_profile *p = r->p;
	const double max = ldexp(1.0, FK_MAX_TOTAL_LG);
	struct fk_stack st;
	struct fk_values v;
	void *grown;

	memset(&st, 0, sizeof st);
	if (gcounts(r, &s, end, 1, &st.c) < 0 || gexpect(r, &s, end, '@') < 0)
		return -1;
	if (s < end && *s != ' ' && *s != '\t')
		return gsyntax(r, "expected a blank after '@' at", s, (size_t)(end - s));
	if (gaddrs(r, s, end, &st) < 0)
		return -1;
	v = fk_unbias(p, &st.c);
	r->sum[0] += fabs(v.objs);
	r->sum[1] += fabs(v.bytes);
	r->sum[2] += fabs(v.acc_objs);
	r->sum[3] += fabs(v.acc_bytes);
	if (r->sum[0] >= max || r->sum[1] >= max || r->sum[2] >= max || r->sum[3] >= max)
		return fk_err_set(r->err, FK_ELIMIT, r->lineno,
				  "values make the profile's unbiased total pass 2^%d",
				  FK_MAX_TOTAL_LG);
	if (st.c.acc_objs || st.c.acc_bytes)
		p->has_accum = 1;
	if (p->nstacks == FK_MAX_STACKS)
		return fk_err_set(r->err, FK_ELIMIT, r->lineno, "more than %d stacks",
				  FK_MAX_STACKS);
	grown = fk_grow(p->stacks, &r->stack_cap, p->nstacks, sizeof *p->stacks, 256);
	if (!grown)
		return fk_err_set(r->err, FK_ENOMEM, r->lineno, "out of memory");
	p->stacks = grown;
	p->stacks[p->nstacks++] = st;
	return 0;
}

/* The maps after their marker line: the rest of the input. */
static int gmaps(struct greader *r, int pprof_form)
{
	struct fk_profile *p = r->p;
	size_t n = (size_t)(r->end - r->cur);

	if (fk_dumplex_terminated(r->cur, r->end, r->lineno, r->err) < 0)
		return -1;
	if (pprof_form)
		return fk_maps_parse_pprof(p, r->cur, n, r->lineno + 1, r->err);
	p->maps_text = r->cur;
	p->maps_len = n;
	return fk_maps_parse(p, r->cur, n, r->lineno + 1, r->err);
}

int fk_heapdump_gperf_parse(struct fk_profile *p, const char *data, size_t len,
			    uint64_t first_line, struct fk_err *err)
{
	struct greader r = { .p = p, .cur = data, .end = data + len,
			     .lineno = first_line ? first_line - 1 : 0, .err = err };
	const char *s;
	size_t n;
	int header = 1, rc;

	while ((rc = fk_dumplex_next(&r.cur, r.end, &r.lineno, err, &s, &n)) > 0) {
		const char *end = s + n, *t;

		if (header) {
			/* "heap profile: N: S [AN: AS] @ TYPE" */
			s += 13;
			if (gcounts(&r, &s, end, 0, &p->header) < 0 ||
			    gexpect(&r, &s, end, '@') < 0 || gtype(&r, fk_dumplex_blanks(s, end), end) < 0)
				return -1;
			header = 0;
			continue;
		}
		t = fk_dumplex_blanks(s, end);
		if (t == end || *t == '#')
			continue;
		if ((size_t)(end - s) == 17 && memcmp(s, "MAPPED_LIBRARIES:", 17) == 0)
			return gmaps(&r, 0);
		if ((size_t)(end - t) >= 19 && memcmp(t, "--- Memory map: ---", 19) == 0 &&
		    fk_dumplex_blanks(t + 19, end) == end)
			return gmaps(&r, 1);
		if (gsample(&r, t, end) < 0)
			return -1;
	}
	if (rc < 0)
		return -1;
	/* Go's heap profiles may carry no maps at all. */
	return fk_profile_index_maps(p, err);
}
