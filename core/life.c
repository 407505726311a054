/* SPDX-License-Identifier: MIT */
/* The lifetimes raw form (life.h): its header, jemalloc's prof_recent JSON
 * (src/prof_recent.c, prof_recent_alloc_dump: "sample_interval",
 * "recent_alloc_max", "recent_alloc": objects of "size", "usize",
 * "released", "alloc_thread_uid", "alloc_thread_name", "alloc_time",
 * "alloc_trace", and the "dalloc_" fields when freed) and its maps, read
 * strictly, and the views built from the records. */
#include "life.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "io.h"
#include "limits.h"
#include "maps.h"
#include "num.h"

static const char *const views[] = { "sites", "temporary", "oldest", "freed" };

int fk_life_view_parse(const char *name)
{
	for (int i = 0; i < 4; i++)
		if (strcmp(name, views[i]) == 0)
			return i;
	return -1;
}

const char *fk_life_view_name(int i)
{
	return i >= 0 && i < 4 ? views[i] : NULL;
}

static const char *const buckets[FK_LIFE_NBUCKETS] = {
	"under-1ms", "under-10ms", "under-100ms", "under-1s", "under-10s", "under-1min",
	"over-1min", "live" };
static const double bucket_ms[] = { 1, 10, 100, 1000, 10000, 60000 };

const char *fk_life_bucket_name(int i)
{
	return i >= 0 && i < FK_LIFE_NBUCKETS ? buckets[i] : NULL;
}

/* The bucket of a lifetime in milliseconds (INFINITY: live). */
static int bucket_of(double ms)
{
	int b = 0;

	if (isinf(ms))
		return FK_LIFE_NBUCKETS - 1;
	while (b < 6 && ms >= bucket_ms[b])
		b++;
	return b;
}

/* One record; its traces are runs of the address pool. */
struct rec {
	uint64_t usize, at, dt;
	size_t atrace, dtrace;         /* offsets into the pool */
	uint32_t alen, dlen;
	unsigned released : 1, has_dt : 1;
};

struct rd {
	const char *s, *end, *base;
	struct fk_err *err;
	struct rec *recs;
	size_t nrecs, rcap;
	uint64_t *pool;
	size_t npool, pcap;
};

static uint64_t off(const struct rd *r, const char *at)
{
	return (uint64_t)(at - r->base);
}

static int bad(struct rd *r, const char *at, const char *what)
{
	return fk_err_set_off(r->err, FK_ESYNTAX, off(r, at), "%s", what);
}

static void ws(struct rd *r)
{
	while (r->s < r->end && (*r->s == ' ' || *r->s == '\t' || *r->s == '\n' || *r->s == '\r'))
		r->s++;
}

static int expect(struct rd *r, char c, const char *what)
{
	ws(r);
	if (r->s >= r->end || *r->s != c)
		return bad(r, r->s, what);
	r->s++;
	return 0;
}

/* A JSON string: its raw bytes between the quotes into *v, *n (escapes
 * checked, not decoded: only the names of keys and addresses are read). */
static int string(struct rd *r, const char **v, size_t *n)
{
	const char *p;

	if (expect(r, '"', "want a string") < 0)
		return -1;
	for (p = r->s; p < r->end && *p != '"'; p++) {
		if ((unsigned char)*p < 0x20)
			return bad(r, p, "control character in a string");
		if (*p == '\\') {
			if (++p >= r->end || !strchr("\"\\/bfnrtu", *p))
				return bad(r, p, "bad escape in a string");
		}
	}
	if (p >= r->end)
		return bad(r, r->s - 1, "unterminated string");
	*v = r->s;
	*n = (size_t)(p - r->s);
	r->s = p + 1;
	return 0;
}

/* The bad value v[0..n) quoted after what, at v. */
static int bad_span(struct rd *r, const char *v, size_t n, const char *what, const char *want)
{
	char q[200] = "", msg[256];

	fk_err_quote(q, sizeof q, v, n);
	snprintf(msg, sizeof msg, "bad %s '%s': want %s", what, q, want);
	return bad(r, v, msg);
}

/* The bad value at r->s (to the next delimiter) quoted after what. */
static int bad_value(struct rd *r, const char *what, const char *want)
{
	const char *e = r->s;

	while (e < r->end && !strchr(",}]\n", *e) && e - r->s < 40)
		e++;
	return bad_span(r, r->s, (size_t)(e - r->s), what, want);
}

/* An unsigned integer field (what jemalloc writes for sizes, times). */
static int unum(struct rd *r, const char *name, uint64_t *v)
{
	const char *p;

	ws(r);
	for (p = r->s; p < r->end && *p >= '0' && *p <= '9'; p++)
		;
	if (p == r->s || (p < r->end && !strchr(",}] \t\r\n", *p)) ||
	    fk_parse_u64(r->s, (size_t)(p - r->s), v) < 0)
		return bad_value(r, name, "an unsigned integer");
	r->s = p;
	return 0;
}

static int boolean(struct rd *r, const char *name, int *v)
{
	ws(r);
	if ((size_t)(r->end - r->s) >= 4 && memcmp(r->s, "true", 4) == 0) {
		*v = 1;
		r->s += 4;
		return 0;
	}
	if ((size_t)(r->end - r->s) >= 5 && memcmp(r->s, "false", 5) == 0) {
		*v = 0;
		r->s += 5;
		return 0;
	}
	return bad_value(r, name, "true or false");
}

/* Skips any value (a key this reader does not know: later jemallocs add
 * some), nesting at most FK_LIFE_MAX_NEST deep. */
static int skip(struct rd *r, int depth)
{
	const char *v;
	size_t n;

	if (depth > FK_LIFE_MAX_NEST)
		return bad(r, r->s, "values nested too deep");
	ws(r);
	if (r->s >= r->end)
		return bad(r, r->s, "want a value");
	if (*r->s == '"')
		return string(r, &v, &n);
	if (*r->s == '{' || *r->s == '[') {
		char close = *r->s == '{' ? '}' : ']';

		r->s++;
		ws(r);
		if (r->s < r->end && *r->s == close) {
			r->s++;
			return 0;
		}
		for (;;) {
			if (close == '}' && (string(r, &v, &n) < 0 || expect(r, ':', "want ':'") < 0))
				return -1;
			if (skip(r, depth + 1) < 0)
				return -1;
			ws(r);
			if (r->s < r->end && *r->s == ',') {
				r->s++;
				continue;
			}
			return expect(r, close, close == '}' ? "want ',' or '}'" : "want ',' or ']'");
		}
	}
	/* A number or a word: the bytes a JSON number or literal may hold. */
	for (v = r->s; r->s < r->end && strchr("0123456789+-.eEtruefalsn", *r->s); r->s++)
		;
	return r->s == v ? bad(r, v, "want a value") : 0;
}

/* A trace: ["0xPC", ...] leaf first, appended to the pool; a trace of
 * FK_JE_BT_DEFAULT frames, or deeper than FK_MAX_DEPTH (cut to its
 * innermost ones), gets the FK_ADDR_TRUNCATED root, as in a dump. */
static int trace(struct rd *r, size_t *start, uint32_t *len)
{
	const char *v;
	size_t n;
	uint64_t a;
	uint32_t total = 0;
	void *g;

	*start = r->npool;
	*len = 0;
	if (expect(r, '[', "want a trace: an array of addresses") < 0)
		return -1;
	ws(r);
	if (r->s < r->end && *r->s == ']') {
		r->s++;
		return 0;
	}
	for (;;) {
		ws(r);
		const char *at = r->s;

		if (string(r, &v, &n) < 0)
			return -1;
		if (fk_parse_hex(v, n, 1, &a) < 0 || a >= FK_ADDR_TRUNCATED - 1)
			return bad_span(r, v, n, "address", "0x and hexadecimal digits");
		total += total < UINT32_MAX;
		if (*len < FK_MAX_DEPTH) {
			if (!(g = fk_grow(r->pool, &r->pcap, r->npool, sizeof *r->pool, 4096)))
				return fk_err_set_off(r->err, FK_ENOMEM, off(r, at), "out of memory");
			r->pool = g;
			r->pool[r->npool++] = a;
			(*len)++;
		}
		ws(r);
		if (r->s < r->end && *r->s == ',') {
			r->s++;
			continue;
		}
		if (expect(r, ']', "want ',' or ']' in a trace") < 0)
			return -1;
		break;
	}
	if (total > FK_MAX_DEPTH || total == FK_JE_BT_DEFAULT) {
		if (!(g = fk_grow(r->pool, &r->pcap, r->npool, sizeof *r->pool, 4096)))
			return fk_err_set_off(r->err, FK_ENOMEM, off(r, r->s), "out of memory");
		r->pool = g;
		r->pool[r->npool++] = FK_ADDR_TRUNCATED;
		(*len)++;
	}
	return 0;
}

static int key_is(const char *k, size_t n, const char *want)
{
	return strlen(want) == n && memcmp(k, want, n) == 0;
}

/* Says which record a syntax error is in ("record N: ..."); -1. */
static int in_record(struct rd *r, uint64_t nth)
{
	char was[sizeof r->err->msg];

	if (r->err && r->err->code == FK_ESYNTAX) {
		memcpy(was, r->err->msg, sizeof was);
		snprintf(r->err->msg, sizeof r->err->msg, "record %llu: %.200s",
			 (unsigned long long)nth, was);
	}
	return -1;
}

/* Fields of a record, for "has no" messages. */
enum { F_USIZE = 1, F_RELEASED = 2, F_ATIME = 4, F_ATRACE = 8, F_DTIME = 16, F_DTRACE = 32 };

/* One record object; its number (from 1) for messages. */
static int record(struct rd *r, uint64_t nth)
{
	const char *start, *k;
	size_t n;
	struct rec x;
	unsigned seen = 0;
	int b = 0;
	void *g;
	char msg[96];

	memset(&x, 0, sizeof x);
	ws(r);
	start = r->s;
	if (expect(r, '{', "want a record: an object") < 0)
		return -1;
	ws(r);
	if (r->s < r->end && *r->s == '}')
		r->s++;
	else
		for (;;) {
			if (string(r, &k, &n) < 0 || expect(r, ':', "want ':'") < 0)
				return in_record(r, nth);
			int rc;

			if (key_is(k, n, "usize"))
				rc = unum(r, "usize", &x.usize), seen |= F_USIZE;
			else if (key_is(k, n, "released"))
				rc = boolean(r, "released", &b), x.released = b == 1, seen |= F_RELEASED;
			else if (key_is(k, n, "alloc_time"))
				rc = unum(r, "alloc_time", &x.at), seen |= F_ATIME;
			else if (key_is(k, n, "dalloc_time"))
				rc = unum(r, "dalloc_time", &x.dt), seen |= F_DTIME;
			else if (key_is(k, n, "alloc_trace"))
				rc = trace(r, &x.atrace, &x.alen), seen |= F_ATRACE;
			else if (key_is(k, n, "dalloc_trace"))
				rc = trace(r, &x.dtrace, &x.dlen), seen |= F_DTRACE;
			else
				rc = skip(r, 1);
			if (rc < 0)
				return in_record(r, nth);
			ws(r);
			if (r->s < r->end && *r->s == ',') {
				r->s++;
				continue;
			}
			if (expect(r, '}', "want ',' or '}' in a record") < 0)
				return in_record(r, nth);
			break;
		}
	static const struct { unsigned bit; const char *name; } need[] = {
		{ F_USIZE, "usize" }, { F_RELEASED, "released" }, { F_ATIME, "alloc_time" },
		{ F_ATRACE, "alloc_trace" } };
	for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
		if (!(seen & need[i].bit)) {
			snprintf(msg, sizeof msg, "record %llu has no %s", (unsigned long long)nth,
				 need[i].name);
			return bad(r, start, msg);
		}
	if (!x.released && (seen & (F_DTIME | F_DTRACE))) {
		snprintf(msg, sizeof msg, "record %llu is live but has a free time or trace",
			 (unsigned long long)nth);
		return bad(r, start, msg);
	}
	if (!!(seen & F_DTIME) != !!(seen & F_DTRACE)) {
		snprintf(msg, sizeof msg, "record %llu has a free %s without its %s",
			 (unsigned long long)nth, seen & F_DTIME ? "time" : "trace",
			 seen & F_DTIME ? "trace" : "time");
		return bad(r, start, msg);
	}
	x.has_dt = (seen & F_DTIME) != 0;
	if (x.has_dt && x.dt < x.at) {
		snprintf(msg, sizeof msg, "record %llu is freed before it was allocated",
			 (unsigned long long)nth);
		return bad(r, start, msg);
	}
	if (r->nrecs == FK_LIFE_MAX_RECORDS)
		return fk_err_set_off(r->err, FK_ELIMIT, off(r, start), "more than %d records",
				      FK_LIFE_MAX_RECORDS);
	if (!(g = fk_grow(r->recs, &r->rcap, r->nrecs, sizeof *r->recs, 1024)))
		return fk_err_set_off(r->err, FK_ENOMEM, off(r, start), "out of memory");
	r->recs = g;
	r->recs[r->nrecs++] = x;
	return 0;
}

/* The JSON object: the records and the two figures. */
static int json(struct rd *r, struct fk_life_info *info)
{
	const char *k, *start;
	size_t n;
	int have = 0;
	int64_t max = 0;

	ws(r);
	start = r->s;
	if (expect(r, '{', "want jemalloc's prof_recent JSON object") < 0)
		return -1;
	for (;;) {
		ws(r);
		if (r->s < r->end && *r->s == '}' && !have)
			break;
		if (string(r, &k, &n) < 0 || expect(r, ':', "want ':'") < 0)
			return -1;
		if (key_is(k, n, "sample_interval")) {
			if (unum(r, "sample_interval", &info->period) < 0)
				return -1;
		} else if (key_is(k, n, "recent_alloc_max")) {
			const char *p, *at;

			ws(r);
			at = r->s;
			for (p = r->s; p < r->end && (*p == '-' || (*p >= '0' && *p <= '9')); p++)
				;
			if (fk_parse_i64(r->s, (size_t)(p - r->s), &max) < 0 || max < -1)
				return bad(r, at, "bad recent_alloc_max: want -1 or more");
			r->s = p;
			info->max = max;
		} else if (key_is(k, n, "recent_alloc")) {
			if (expect(r, '[', "want recent_alloc to be an array of records") < 0)
				return -1;
			ws(r);
			if (r->s < r->end && *r->s == ']')
				r->s++;
			else
				for (;;) {
					if (record(r, r->nrecs + 1) < 0)
						return -1;
					ws(r);
					if (r->s < r->end && *r->s == ',') {
						r->s++;
						continue;
					}
					if (expect(r, ']', "want ',' or ']' after a record") < 0)
						return -1;
					break;
				}
			have = 1;
		} else if (skip(r, 1) < 0) {
			return -1;
		}
		ws(r);
		if (r->s < r->end && *r->s == ',') {
			r->s++;
			continue;
		}
		if (expect(r, '}', "want ',' or '}' after a field") < 0)
			return -1;
		break;
	}
	if (!have)
		return bad(r, start, "no recent_alloc array: not a prof_recent record");
	return 0;
}

/* "NAME: DIGITS\n" at r->s. */
static int header_num(struct rd *r, const char *name, uint64_t *v)
{
	size_t n = strlen(name);
	const char *at = r->s;
	char msg[80];

	snprintf(msg, sizeof msg, "want the line '%s: N'", name);
	if ((size_t)(r->end - r->s) <= n + 1 || memcmp(r->s, name, n) != 0 || r->s[n] != ':' ||
	    r->s[n + 1] != ' ')
		return bad(r, at, msg);
	r->s += n + 2;
	if (unum(r, name, v) < 0 || r->s >= r->end || *r->s != '\n')
		return bad(r, at, msg);
	r->s++;
	return 0;
}

static int header(struct rd *r, struct fk_life_info *info)
{
	static const char magic[] = FK_LIFE_MAGIC "\n";
	static const char mono[] = "clock: monotonic\n", real[] = "clock: realtime\n";
	size_t left = (size_t)(r->end - r->s);

	if (left < sizeof magic - 1 || memcmp(r->s, magic, sizeof magic - 1) != 0)
		return bad(r, r->s, "not a lifetimes record: want the line '" FK_LIFE_MAGIC "'");
	r->s += sizeof magic - 1;
	if (header_num(r, "now_ns", &info->now_ns) < 0)
		return -1;
	left = (size_t)(r->end - r->s);
	if (left >= sizeof mono - 1 && memcmp(r->s, mono, sizeof mono - 1) == 0)
		r->s += sizeof mono - 1;
	else if (left >= sizeof real - 1 && memcmp(r->s, real, sizeof real - 1) == 0) {
		r->s += sizeof real - 1;
		info->realtime = 1;
	} else
		return bad(r, r->s, "want the line 'clock: monotonic' or 'clock: realtime'");
	return 0;
}

/* The maps after the JSON: "MAPPED_LIBRARIES:" and /proc/PID/maps lines. */
static int maps(struct rd *r, struct fk_profile *p)
{
	static const char head[] = "MAPPED_LIBRARIES:\n";
	uint64_t line = 1;

	ws(r);
	if ((size_t)(r->end - r->s) < sizeof head - 1 || memcmp(r->s, head, sizeof head - 1) != 0)
		return bad(r, r->s, "want MAPPED_LIBRARIES: after the records");
	for (const char *c = r->base; c < r->s; c++)
		line += *c == '\n';
	r->s += sizeof head - 1;
	return fk_maps_parse(p, r->s, (size_t)(r->end - r->s), line + 1, r->err);
}

/* The records a query selects, and the trace each is grouped by. */
struct pick {
	const uint64_t *addrs;
	uint32_t depth;
	uint32_t rec;
};

static int by_trace(const void *a, const void *b)
{
	const struct pick *x = a, *y = b;
	uint32_t n = x->depth < y->depth ? x->depth : y->depth;

	for (uint32_t i = 0; i < n; i++)
		if (x->addrs[i] != y->addrs[i])
			return x->addrs[i] < y->addrs[i] ? -1 : 1;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return (x->rec > y->rec) - (x->rec < y->rec);
}

static int by_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Nearest-rank quantile q of the n sorted lifetimes v (INFINITY: live). */
static double quantile(const double *v, size_t n, double q)
{
	size_t i = (size_t)ceil(q * (double)n);

	if (n == 0)
		return FK_LIFE_NONE;
	i = i ? i - 1 : 0;
	return isinf(v[i]) ? FK_LIFE_LIVE : v[i];
}

/* A stack and its lifetimes, for ordering heaviest first. */
struct grp {
	struct fk_stack st;
	struct fk_life_site site;
};

static int by_weight(const void *a, const void *b)
{
	const struct grp *x = a, *y = b;

	if (x->st.c.bytes != y->st.c.bytes)
		return x->st.c.bytes > y->st.c.bytes ? -1 : 1;
	if (x->st.c.objs != y->st.c.objs)
		return x->st.c.objs > y->st.c.objs ? -1 : 1;
	return 0;
}

static int selected(const struct rec *x, const struct fk_life_query *q, uint64_t now)
{
	switch (q->view) {
	case FK_LIFE_TEMPORARY:
		return x->has_dt && (double)(x->dt - x->at) / 1e6 <= q->max_ms;
	case FK_LIFE_OLDEST:
		return !x->released && now > x->at && (double)(now - x->at) / 1e9 >= q->min_s;
	case FK_LIFE_FREED:
		return x->has_dt;
	default:
		return 1;
	}
}

/* Groups the selected records into p's stacks, heaviest first. */
static int build(struct rd *r, struct fk_profile *p, const struct fk_life_query *q,
		 struct fk_life_info *info)
{
	struct pick *pk = malloc((r->nrecs ? r->nrecs : 1) * sizeof *pk);
	double *life = malloc((r->nrecs ? r->nrecs : 1) * sizeof *life);
	double *age = malloc((r->nrecs ? r->nrecs : 1) * sizeof *age);
	struct grp *g = malloc((r->nrecs ? r->nrecs : 1) * sizeof *g);
	size_t n = 0, ng = 0;

	if (!pk || !life || !age || !g) {
		free(pk);
		free(life);
		free(age);
		free(g);
		return fk_err_set_off(r->err, FK_ENOMEM, 0, "out of memory");
	}
	for (size_t i = 0; i < r->nrecs; i++) {
		const struct rec *x = &r->recs[i];

		if (!selected(x, q, info->now_ns))
			continue;
		pk[n].rec = (uint32_t)i;
		if (q->view == FK_LIFE_FREED) {
			pk[n].addrs = r->pool + x->dtrace;
			pk[n].depth = x->dlen;
		} else {
			pk[n].addrs = r->pool + x->atrace;
			pk[n].depth = x->alen;
		}
		n++;
	}
	qsort(pk, n, sizeof *pk, by_trace);
	for (size_t i = 0, j; i < n; i = j) {
		struct grp *e = &g[ng++];
		size_t nl = 0, na = 0;

		memset(e, 0, sizeof *e);
		e->st.addrs = pk[i].addrs;
		e->st.depth = pk[i].depth;
		for (j = i; j < n && pk[j].depth == pk[i].depth &&
		     memcmp(pk[j].addrs, pk[i].addrs, pk[i].depth * sizeof *pk[i].addrs) == 0; j++) {
			const struct rec *x = &r->recs[pk[j].rec];

			e->st.c.objs++;
			e->st.c.bytes += (int64_t)x->usize;
			if (!x->released) {
				e->site.live++;
				life[nl++] = INFINITY;
				age[na++] = info->now_ns > x->at ? (double)(info->now_ns - x->at) / 1e9 : 0;
			} else {
				e->site.freed++;
				if (x->has_dt)
					life[nl++] = (double)(x->dt - x->at) / 1e6;
			}
			if (!x->released || x->has_dt) {
				struct fk_counts *bc = &e->site.bucket[bucket_of(life[nl - 1])];

				bc->objs++;
				bc->bytes += (int64_t)x->usize;
			}
		}
		e->site.records = j - i;
		qsort(life, nl, sizeof *life, by_double);
		e->site.median_ms = quantile(life, nl, 0.5);
		e->site.p90_ms = quantile(life, nl, 0.9);
		e->site.max_ms = quantile(life, nl, 1.0);
		qsort(age, na, sizeof *age, by_double);
		e->site.age_median_s = quantile(age, na, 0.5);
		e->site.age_max_s = quantile(age, na, 1.0);
	}
	qsort(g, ng, sizeof *g, by_weight);
	p->stacks = malloc((ng ? ng : 1) * sizeof *p->stacks);
	info->sites = malloc((ng ? ng : 1) * sizeof *info->sites);
	if (!p->stacks || !info->sites) {
		free(pk);
		free(life);
		free(age);
		free(g);
		return fk_err_set_off(r->err, FK_ENOMEM, 0, "out of memory");
	}
	for (size_t i = 0; i < ng; i++) {
		p->stacks[i] = g[i].st;
		info->sites[i] = g[i].site;
	}
	p->nstacks = ng;
	free(pk);
	free(life);
	free(age);
	free(g);
	return 0;
}

/* The header and the records of data[0..len) into r and info. 0 or -1. */
static int records(struct rd *r, const char *data, size_t len, struct fk_life_info *info,
		   struct fk_err *err)
{
	*r = (struct rd){ .s = data, .end = data + len, .base = data, .err = err };
	memset(info, 0, sizeof *info);
	info->max = -1;
	return header(r, info) < 0 ? -1 : json(r, info);
}

int fk_life_parse(struct fk_profile *p, const char *data, size_t len,
		  const struct fk_life_query *q, struct fk_life_info *info,
		  struct fk_err *err)
{
	struct rd r;
	int rc = records(&r, data, len, info, err);

	if (rc == 0)
		rc = maps(&r, p);
	if (rc == 0) {
		uint64_t oldest = UINT64_MAX;

		for (size_t i = 0; i < r.nrecs; i++) {
			const struct rec *x = &r.recs[i];

			info->live += !x->released;
			info->freed += x->released;
			if (x->at < oldest)
				oldest = x->at;
		}
		info->records = r.nrecs;
		if (r.nrecs && info->now_ns > oldest)
			info->span_s = (double)(info->now_ns - oldest) / 1e9;
		p->format = FK_FMT_V2;
		p->period = info->period;
		rc = build(&r, p, q, info);
	}
	free(r.recs);
	if (rc < 0) {
		free(r.pool);
		fk_life_info_release(info);
		return -1;
	}
	/* The stacks point into the pool: it goes with p. */
	if (r.pool)
		fk_profile_own(p, r.pool);
	return 0;
}

int fk_life_each(const char *data, size_t len, fk_life_rec_fn *fn, void *ctx,
		 struct fk_life_info *info, struct fk_err *err)
{
	struct rd r;
	int rc = records(&r, data, len, info, err);

	for (size_t i = 0; rc == 0 && i < r.nrecs; i++) {
		const struct rec *x = &r.recs[i];

		info->records++;
		info->live += !x->released;
		info->freed += x->released;
		if (fn(ctx, x->usize, x->released, r.pool + x->atrace, x->alen) < 0)
			rc = fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	}
	free(r.recs);
	free(r.pool);
	return rc;
}

void fk_life_info_release(struct fk_life_info *info)
{
	free(info->sites);
	info->sites = NULL;
}

struct fk_profile *fk_life_load(const char *path, const struct fk_life_query *q,
				struct fk_life_info *info, struct fk_err *err)
{
	struct fk_profile *p = fk_profile_new(path);
	char *data;
	size_t len;
	int mapped;

	memset(info, 0, sizeof *info);
	if (!p) {
		fk_err_set(err, FK_ENOMEM, 0, "out of memory");
		return NULL;
	}
	if (fk_map_text_input(strcmp(path, "-") ? path : NULL, &data, &len, &mapped, err) < 0) {
		fk_profile_free(p);
		return NULL;
	}
	fk_profile_own_input(p, data, len, mapped);
	if (fk_life_parse(p, data, len, q, info, err) < 0) {
		fk_profile_free(p);
		return NULL;
	}
	return p;
}
