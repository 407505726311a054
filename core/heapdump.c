/* SPDX-License-Identifier: MIT */
/* Reader of jemalloc heap dumps: "heap_v2/R" (jemalloc >= 4, src/prof_data.c)
 * and "heap profile: ... @ heap_v2/R" (jemalloc 3, gperftools). Strict: any
 * line that is not exactly what jemalloc writes is an error naming it. */
#include "heapdump.h"
#include "heapdump_gperf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "dumplex.h"
#include "grow.h"
#include "hash.h"
#include "limits.h"
#include "maps.h"
#include "num.h"
#include "stackmemo.h"
#include "strtab.h"
#include "u64map.h"

struct reader {
	struct fk_profile *p;
	const char *cur, *end;
	uint64_t lineno;
	struct fk_err *err;
	int allow_negative;
	struct fk_stackmemo *memo;     /* stacks read before, or NULL */

	/* Thread id -> index into p->threads (open addressing, ids + 1). */
	struct fk_u64map tmap;         /* thread id -> index in p->threads */
	size_t thread_cap, stack_cap;

	/* The stack being read. */
	int in_stack, have_total;
	uint64_t stack_line;           /* line of the stack's '@' */
	struct fk_stack st;
	struct fk_tcounts *scratch;
	size_t scap, sn;

	/* Unbiased totals without sign: of the t*: (legacy: stack) lines,
	 * and of the stacks' tN: lines (FK_MAX_TOTAL_LG). */
	double sum[2][4];
	/* The last counts unbiased and their values: a stack's t*: and tN:
	 * lines, and stacks of one size, repeat them (two expm1 a line). */
	struct fk_counts last_c;
	struct fk_values last_v;
	int have_last;
};

static int syntax(struct reader *r, const char *what, const char *s, size_t n)
{
	return fk_dumplex_syntax(r->err, r->lineno, what, s, n);
}

static int fail(struct reader *r, const char *what)
{
	return fk_err_set(r->err, FK_ESYNTAX, r->lineno, "%s", what);
}

static int nomem(struct reader *r)
{
	return fk_err_set(r->err, FK_ENOMEM, r->lineno, "out of memory");
}

/* Returns 1 with the next line in *s, *n (without its newline), 0 at EOF,
 * -1 on a line that no reader here accepts. */
static int next_line(struct reader *r, const char **s, size_t *n)
{
	return fk_dumplex_next(&r->cur, r->end, &r->lineno, r->err, s, n);
}

static const char *skip_ws(const char *s, const char *end)
{
	return fk_dumplex_blanks(s, end);
}

/* One count token: digits, or '-' and digits in a growth profile. */
static int parse_count(struct reader *r, const char **sp, const char *end, int64_t *v)
{
	const char *s = skip_ws(*sp, end), *t = s;

	while (t < end && ((*t >= '0' && *t <= '9') || *t == '-'))
		t++;
	if (t == s)
		return syntax(r, "expected a count at", s, (size_t)(end - s));
	if (fk_parse_i64(s, (size_t)(t - s), v) < 0)
		return syntax(r, "bad count", s, (size_t)(t - s));
	if (*v < 0 && !r->allow_negative)
		return syntax(r, "negative count", s, (size_t)(t - s));
	*sp = t;
	return 0;
}

static int expect(struct reader *r, const char **sp, const char *end, char c)
{
	return fk_dumplex_expect(r->err, r->lineno, sp, end, c);
}

/* A run of digits at *sp into *v (fk_parse_i64's rules), or -1. */
static int digits(const char **sp, const char *end, int64_t *v)
{
	const char *s = *sp, *t = s;

	while (t < end && *t >= '0' && *t <= '9')
		t++;
	if (fk_parse_i64(s, (size_t)(t - s), v) < 0)
		return -1;
	*sp = t;
	return 0;
}

/* "N: S [AN: AS]" exactly as jemalloc writes it (src/prof_data.c:
 * "%"FMTu64": %"FMTu64" [%"FMTu64": %"FMTu64"]"), after one blank: 0,
 * or -1 for anything else, which the general parser then reads. */
static int counts_fast(const char **sp, const char *end, struct fk_counts *c)
{
	const char *s = *sp;

	if (s >= end || *s++ != ' ' || digits(&s, end, &c->objs) < 0 || end - s < 2 ||
	    s[0] != ':' || s[1] != ' ' || (s += 2, digits(&s, end, &c->bytes) < 0) ||
	    end - s < 2 || s[0] != ' ' || s[1] != '[' || (s += 2, digits(&s, end, &c->acc_objs) < 0) ||
	    end - s < 2 || s[0] != ':' || s[1] != ' ' || (s += 2, digits(&s, end, &c->acc_bytes) < 0) ||
	    s >= end || *s != ']')
		return -1;
	*sp = s + 1;
	return 0;
}

/* "N: S [AN: AS]", the counts of every t*:, tN: and legacy line. */
static int parse_counts(struct reader *r, const char **sp, const char *end,
			struct fk_counts *c)
{
	if (counts_fast(sp, end, c) == 0) {
		/* Digits only: nothing negative to refuse. */
	} else if (parse_count(r, sp, end, &c->objs) < 0 || expect(r, sp, end, ':') < 0 ||
	    parse_count(r, sp, end, &c->bytes) < 0 || expect(r, sp, end, '[') < 0 ||
	    parse_count(r, sp, end, &c->acc_objs) < 0 || expect(r, sp, end, ':') < 0 ||
	    parse_count(r, sp, end, &c->acc_bytes) < 0 || expect(r, sp, end, ']') < 0)
		return -1;
	if ((c->objs == 0) != (c->bytes == 0) && !r->allow_negative)
		return fk_err_set(r->err, FK_ESYNTAX, r->lineno,
				  "objects and bytes disagree on zero '%lld: %lld'",
				  (long long)c->objs, (long long)c->bytes);
	if (c->acc_objs || c->acc_bytes)
		r->p->has_accum = 1;
	return 0;
}

/* Returns the index of thread id, adding it (with name, may be NULL). */
static int thread_index(struct reader *r, uint64_t id, const char *name,
			size_t nlen, uint32_t *out)
{
	struct fk_profile *p = r->p;
	uint32_t known = fk_u64map_get(&r->tmap, id);
	void *grown;

	if (known != UINT32_MAX) {
		*out = known;
		if (name && !p->threads[known].name) {
			p->threads[known].name = fk_strtab_intern(p->strs, name, nlen);
			if (!p->threads[known].name)
				return nomem(r);
		}
		return 0;
	}
	if (p->nthreads == FK_MAX_THREADS)
		return fk_err_set(r->err, FK_ELIMIT, r->lineno, "more than %d threads",
				  FK_MAX_THREADS);
	grown = fk_grow(p->threads, &r->thread_cap, p->nthreads, sizeof *p->threads, 16);
	if (!grown)
		return nomem(r);
	p->threads = grown;
	p->threads[p->nthreads].id = id;
	p->threads[p->nthreads].name = NULL;
	if (name) {
		p->threads[p->nthreads].name = fk_strtab_intern(p->strs, name, nlen);
		if (!p->threads[p->nthreads].name)
			return nomem(r);
	}
	if (fk_u64map_put(&r->tmap, id, (uint32_t)p->nthreads) < 0)
		return nomem(r);
	*out = (uint32_t)p->nthreads++;
	return 0;
}

/* Adds the unbiased values of c to the totals of kind which; -1 with err
 * naming this line when a total reaches 2^FK_MAX_TOTAL_LG. */
static int add_total(struct reader *r, const struct fk_counts *c, int which)
{
	struct fk_values v;
	double *t = r->sum[which];

	if (!r->have_last || memcmp(&r->last_c, c, sizeof *c) != 0) {
		r->last_c = *c;
		r->last_v = fk_unbias(r->p, c);
		r->have_last = 1;
	}
	v = r->last_v;
	const double max = ldexp(1.0, FK_MAX_TOTAL_LG);

	t[0] += fabs(v.objs);
	t[1] += fabs(v.bytes);
	t[2] += fabs(v.acc_objs);
	t[3] += fabs(v.acc_bytes);
	/* NaN cannot arise: the counts are integers and the factor finite. */
	if (t[0] >= max || t[1] >= max || t[2] >= max || t[3] >= max)
		return fk_err_set(r->err, FK_ELIMIT, r->lineno,
				  "values make the profile's unbiased total pass 2^%d",
				  FK_MAX_TOTAL_LG);
	return 0;
}

/* A "t*:" or "tN:" line (leading blanks already skipped). */
static int thread_line(struct reader *r, const char *s, const char *end, int header)
{
	const char *line = s, *colon = memchr(s, ':', (size_t)(end - s));
	struct fk_counts c;
	uint64_t id = 0;
	void *grown;
	int star;

	if (!colon)
		return syntax(r, "bad thread line", s, (size_t)(end - s));
	star = colon == s + 2 && s[1] == '*';
	if (!star && fk_parse_u64(s + 1, (size_t)(colon - s - 1), &id) < 0)
		return syntax(r, "bad thread id", s, (size_t)(colon - s));
	s = colon + 1;
	if (parse_counts(r, &s, end, &c) < 0)
		return -1;
	/* jemalloc writes a thread's name after the counts, on its tN: lines. */
	if (s < end && (*s != ' ' || star))
		return syntax(r, "unexpected text after counts", s, (size_t)(end - s));
	if (star) {
		if (header) {
			if (r->have_total)
				return fail(r, "second header totals line");
			r->p->header = c;
			r->have_total = 1;
			return 0;
		}
		if (r->have_total)
			return fail(r, "second 't*:' line in one stack");
		r->st.c = c;
		r->have_total = 1;
		return add_total(r, &c, 0);
	}
	if (!r->have_total)
		return syntax(r, header ? "thread line before the header totals line" :
			      "thread line before the stack's 't*:' line",
			      line, (size_t)(end - line));
	grown = fk_grow(r->scratch, &r->scap, r->sn, sizeof *r->scratch, 16);
	if (!grown)
		return nomem(r);
	r->scratch = grown;
	if (thread_index(r, id, s < end ? s + 1 : NULL, s < end ? (size_t)(end - s - 1) : 0,
			 &r->scratch[r->sn].thread) < 0)
		return -1;
	r->scratch[r->sn].c = c;
	r->sn++;
	return header ? 0 : add_total(r, &c, 1);
}

/* Moves the per-thread lines read so far into the arena; returns them. */
static struct fk_tcounts *take_threads(struct reader *r, int check_dups)
{
	struct fk_tcounts *t;
	size_t i, j;

	if (r->sn == 0)
		return NULL;
	if (check_dups && r->sn < 64) {
		for (i = 1; i < r->sn; i++)
			for (j = 0; j < i; j++)
				if (r->scratch[i].thread == r->scratch[j].thread) {
					fk_err_set(r->err, FK_ESYNTAX, r->lineno,
						   "thread 't%llu' listed twice in one stack",
						   (unsigned long long)r->p->threads[r->scratch[i].thread].id);
					return NULL;
				}
	}
	t = fk_arena_alloc(r->p->arena, r->sn * sizeof *t);
	if (!t) {
		nomem(r);
		return NULL;
	}
	memcpy(t, r->scratch, r->sn * sizeof *t);
	return t;
}

static int push_stack(struct reader *r)
{
	struct fk_profile *p = r->p;
	void *grown;

	if (p->nstacks == FK_MAX_STACKS)
		return fk_err_set(r->err, FK_ELIMIT, r->lineno, "more than %d stacks",
				  FK_MAX_STACKS);
	grown = fk_grow(p->stacks, &r->stack_cap, p->nstacks, sizeof *p->stacks, 256);
	if (!grown)
		return nomem(r);
	p->stacks = grown;
	p->stacks[p->nstacks++] = r->st;
	return 0;
}

/* Ends the stack being read, if any. */
static int end_stack(struct reader *r)
{
	if (!r->in_stack)
		return 0;
	if (!r->have_total)
		return fk_err_set(r->err, FK_ESYNTAX, r->stack_line,
				  "stack has no 't*:' line");
	r->st.nthr = (uint32_t)r->sn;
	r->st.thr = take_threads(r, 1);
	if (r->sn && !r->st.thr)
		return -1;
	r->in_stack = 0;
	return push_stack(r);
}

/* Hex digit values plus one; 0 marks a byte that is not a hex digit. */
static const unsigned char hexval[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7,
	['7'] = 8, ['8'] = 9, ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13,
	['d'] = 14, ['e'] = 15, ['f'] = 16, ['A'] = 11, ['B'] = 12, ['C'] = 13,
	['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/* "0xADDR 0xADDR ..." (leaf first) into tmp, *depthp of them; *end is the
 * line's newline (next_line's lines end there). A stack deeper than
 * FK_MAX_DEPTH keeps its FK_MAX_DEPTH innermost frames and the
 * FK_ADDR_TRUNCATED root (the rest is checked, then dropped), as jemalloc
 * cuts at prof_bt_max; so does one of exactly FK_JE_BT_DEFAULT frames,
 * which jemalloc cut at its default (cut_root() takes that one back when
 * the dump is deeper). */
static int read_addrs(struct reader *r, const char *s, const char *end,
		      uint64_t tmp[FK_MAX_DEPTH + 1], uint32_t *depthp)
{
	uint32_t depth = 0, total = 0;
	uint64_t spare;

	for (;;) {
		const char *t;

		s = skip_ws(s, end);
		if (s >= end)
			break;
		/* The common case in one pass over the characters: "0x" and
		 * at most 16 significant hex digits, then a blank or the end,
		 * below the depth limit. Anything else takes the checks below. */
		if (depth < FK_MAX_DEPTH && s[0] == '0' && end - s > 2 &&
		    (s[1] == 'x' || s[1] == 'X')) {
			const char *q = s + 2, *sig;
			uint64_t v = 0;
			unsigned d;

			/* *end is the line's newline (next_line), which is no
			 * digit: the scans need no bound of their own. */
			while (*q == '0')
				q++;
			for (sig = q; (d = hexval[(unsigned char)*q]) != 0; q++)
				v = v << 4 | (d - 1);
			if (q > s + 2 && q - sig <= 16 && (q == end || *q == ' ' || *q == '\t')) {
				tmp[depth++] = v;
				total++;
				s = q;
				continue;
			}
		}
		for (t = s; t < end && *t != ' ' && *t != '\t'; t++)
			;
		/* Past FK_MAX_DEPTH: read into spare, to check it, and drop. */
		uint64_t *slot = depth < FK_MAX_DEPTH ? &tmp[depth] : &spare;

		/* jemalloc prints with %#x, which writes a zero as "0". This is
		 * the reader's hot loop, hence the table instead of
		 * fk_parse_hex; the rules are the same. */
		if (t - s == 1 && *s == '0') {
			*slot = 0;
		} else {
			const char *q = s + 2;
			uint64_t v = 0;

			if (t - s < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
				goto bad;
			while (q < t && *q == '0')
				q++;
			if (t - q > 16)
				goto bad;
			for (; q < t; q++) {
				unsigned d = hexval[(unsigned char)*q];

				if (!d)
					goto bad;
				v = v << 4 | (d - 1);
			}
			*slot = v;
		}
		depth += depth < FK_MAX_DEPTH;
		if (total < UINT32_MAX)
			total++;
		s = t;
		continue;
bad:
		return syntax(r, "bad address", s, (size_t)(t - s));
	}
	/* A cut stack ends in the root mark: jemalloc's at its default
	 * depth, ours past FK_MAX_DEPTH (one frame more than that is the
	 * mark of a stack we cut and wrote). */
	if (total > FK_MAX_DEPTH || (depth == FK_JE_BT_DEFAULT && tmp[depth - 1] != FK_ADDR_TRUNCATED))
		tmp[depth++] = FK_ADDR_TRUNCATED;
	*depthp = depth;
	return 0;
}

/* tmp[0..depth) as st's addresses, in the profile's arena. */
static int store_addrs(struct reader *r, struct fk_stack *st, const uint64_t *tmp,
		       uint32_t depth)
{
	uint64_t *a;

	st->depth = depth;
	st->addrs = NULL;
	if (depth) {
		a = fk_arena_alloc(r->p->arena, depth * sizeof *a);
		if (!a)
			return nomem(r);
		memcpy(a, tmp, depth * sizeof *a);
		st->addrs = a;
	}
	return 0;
}

static int parse_addrs(struct reader *r, const char *s, const char *end,
		       struct fk_stack *st)
{
	uint64_t tmp[FK_MAX_DEPTH + 1];
	uint32_t depth;

	if (read_addrs(r, s, end, tmp, &depth) < 0)
		return -1;
	return store_addrs(r, st, tmp, depth);
}

/* The addresses of a v2 '@' line's text s[0..end): the memo's, when it
 * holds that text, else read (and kept in the memo for the next dump). */
static int read_stack_line(struct reader *r, const char *s, const char *end)
{
	size_t n = (size_t)(end - s);
	uint64_t tmp[FK_MAX_DEPTH + 1], h;
	const uint64_t *kept;
	uint32_t depth;

	if (!r->memo)
		return parse_addrs(r, s, end, &r->st);
	h = fk_hash_long(s, n);
	if (fk_stackmemo_find(r->memo, h, n, &r->st.addrs, &r->st.depth))
		return 0;
	/* Read once, into the memo, or the profile's arena past its budget. */
	if (read_addrs(r, s, end, tmp, &depth) < 0)
		return -1;
	if (!(kept = fk_stackmemo_add(r->memo, h, n, tmp, depth)))
		return store_addrs(r, &r->st, tmp, depth);
	r->st.addrs = depth ? kept : NULL;
	r->st.depth = depth;
	return 0;
}

/* "heap_v2/R" or "heapprofile" or "heap_v2/R" after the legacy '@'. */
static int parse_period(struct reader *r, const char *s, const char *end)
{
	size_t n = (size_t)(end - s);

	if (n == 11 && memcmp(s, "heapprofile", 11) == 0) {
		r->p->period = 0;
		return 0;
	}
	if (n > 8 && memcmp(s, "heap_v2/", 8) == 0) {
		if (fk_parse_u64(s + 8, n - 8, &r->p->period) < 0 ||
		    r->p->period > (uint64_t)1 << FK_MAX_PERIOD_LG)
			return syntax(r, "bad sampling period", s, n);
		return 0;
	}
	return syntax(r, "unsupported profile type (want heap_v2/R)", s, n);
}

static int read_maps(struct reader *r)
{
	struct fk_profile *p = r->p;

	p->maps_text = r->cur;
	p->maps_len = (size_t)(r->end - r->cur);
	if (fk_dumplex_terminated(r->cur, r->end, r->lineno, r->err) < 0)
		return -1;
	return fk_maps_parse(p, r->cur, p->maps_len, r->lineno + 1, r->err);
}

static int read_v2(struct reader *r)
{
	const char *s;
	size_t n;
	int rc;

	r->have_total = 0;
	while ((rc = next_line(r, &s, &n)) > 0) {
		const char *end = s + n, *t = skip_ws(s, end);

		if (n == 17 && memcmp(s, "MAPPED_LIBRARIES:", 17) == 0) {
			if (end_stack(r) < 0)
				return -1;
			return read_maps(r);
		}
		if (t == end)
			continue;
		if (*s == '@') {
			if (s + 1 < end && s[1] != ' ')
				return syntax(r, "bad stack line", s, n);
			if (end_stack(r) < 0)
				return -1;
			if (r->p->nstacks == 0 && r->in_stack == 0 && !r->have_total)
				return syntax(r, "stack before the header totals line", s, n);
			memset(&r->st, 0, sizeof r->st);
			if (read_stack_line(r, s + 1, end) < 0)
				return -1;
			if (r->p->nstacks == 0 && r->sn) {
				r->p->nhthr = r->sn;
				r->p->hthr = take_threads(r, 0);
				if (!r->p->hthr)
					return -1;
			}
			r->in_stack = 1;
			r->stack_line = r->lineno;
			r->have_total = 0;
			r->sn = 0;
			continue;
		}
		if (t[0] == 't' && t + 1 < end && (t[1] == '*' || (t[1] >= '0' && t[1] <= '9'))) {
			if (r->p->nstacks == 0 && !r->in_stack) {
				if (thread_line(r, t, end, 1) < 0)
					return -1;
			} else if (thread_line(r, t, end, 0) < 0) {
				return -1;
			}
			continue;
		}
		return syntax(r, "unexpected line", s, n);
	}
	if (rc < 0)
		return -1;
	return fail(r, "missing MAPPED_LIBRARIES: section (truncated dump?)");
}

static int read_legacy(struct reader *r, const char *s, const char *end)
{
	const char *at;
	size_t n;
	int rc;

	/* "heap profile: N: S [AN: AS] @ TYPE" */
	s += 13;
	if (parse_counts(r, &s, end, &r->p->header) < 0 || expect(r, &s, end, '@') < 0)
		return -1;
	s = skip_ws(s, end);
	if (parse_period(r, s, end) < 0)
		return -1;
	while ((rc = next_line(r, &s, &n)) > 0) {
		end = s + n;
		if (n == 17 && memcmp(s, "MAPPED_LIBRARIES:", 17) == 0)
			return read_maps(r);
		if (skip_ws(s, end) == end)
			continue;
		memset(&r->st, 0, sizeof r->st);
		if (parse_counts(r, &s, end, &r->st.c) < 0 || add_total(r, &r->st.c, 0) < 0)
			return -1;
		at = skip_ws(s, end);
		if (at >= end || *at != '@' || (at + 1 < end && at[1] != ' ' && at[1] != '\t'))
			return syntax(r, "expected '@' at", at, (size_t)(end - at));
		if (parse_addrs(r, at + 1, end, &r->st) < 0 || push_stack(r) < 0)
			return -1;
	}
	if (rc < 0)
		return -1;
	return fail(r, "missing MAPPED_LIBRARIES: section (truncated dump?)");
}

/* A dump holding a stack deeper than FK_JE_BT_DEFAULT frames was made
 * with a larger prof_bt_max (jemalloc 5.3.1), so its stacks of exactly
 * that depth are whole: they lose the root mark read_addrs gave them. */
static void cut_root(struct fk_profile *p)
{
	size_t i;

	for (i = 0; i < p->nstacks; i++) {
		const struct fk_stack *st = &p->stacks[i];

		if (st->depth > FK_JE_BT_DEFAULT + 1 ||
		    (st->depth == FK_JE_BT_DEFAULT + 1 && st->addrs[FK_JE_BT_DEFAULT] != FK_ADDR_TRUNCATED))
			break;
	}
	if (i == p->nstacks)
		return;
	for (i = 0; i < p->nstacks; i++) {
		struct fk_stack *st = &p->stacks[i];

		if (st->depth == FK_JE_BT_DEFAULT + 1 && st->addrs[FK_JE_BT_DEFAULT] == FK_ADDR_TRUNCATED)
			st->depth--;
	}
}

static int parse(struct fk_profile *p, const char *data, size_t len,
		 uint64_t first_line, struct fk_stackmemo *memo, struct fk_err *err)
{
	struct reader r;
	const char *s;
	size_t n;
	int rc;

	memset(&r, 0, sizeof r);
	r.memo = memo;
	r.p = p;
	r.cur = data;
	r.end = data + len;
	r.lineno = first_line ? first_line - 1 : 0;
	r.err = err;
	if (len > FK_MAX_INPUT)
		return fk_err_set(err, FK_ELIMIT, 0, "input larger than %zu bytes",
				  FK_MAX_INPUT);
	if (len == 0)
		return fk_err_set(err, FK_ESYNTAX, 0, "empty input");
	{
		/* One pass for NUL bytes instead of one per line. */
		const char *nul = memchr(data, '\0', len);

		if (nul) {
			const char *q;

			for (q = data; q < nul; q++)
				if (*q == '\n')
					r.lineno++;
			if (len >= 2 && (unsigned char)data[0] == 0x1f &&
			    (unsigned char)data[1] == 0x8b)
				return fk_err_set(err, FK_ESYNTAX, 1,
						  "not a jemalloc heap profile: gzip-compressed data");
			return fk_err_set(err, FK_ESYNTAX, r.lineno + 1, "NUL byte in line");
		}
	}
	if (len >= 2 && (unsigned char)data[0] == 0x1f && (unsigned char)data[1] == 0x8b)
		return fk_err_set(err, FK_ESYNTAX, 1,
				  "not a jemalloc heap profile: gzip-compressed data");
	rc = next_line(&r, &s, &n);
	if (rc <= 0) {
		rc = -1;
		goto out;
	}
	if (n >= 8 && memcmp(s, "heap_v2/", 8) == 0) {
		p->format = FK_FMT_V2;
		rc = parse_period(&r, s, s + n);
		r.allow_negative = p->period == 1;
		if (rc == 0)
			rc = read_v2(&r);
	} else if (fk_heapdump_gperf_header(s, n)) {
		rc = fk_heapdump_gperf_parse(p, data, len, first_line, err);
	} else if (n >= 13 && memcmp(s, "heap profile:", 13) == 0) {
		p->format = FK_FMT_LEGACY;
		rc = read_legacy(&r, s, s + n);
	} else {
		rc = syntax(&r, "not a jemalloc heap profile: first line is", s, n);
	}
	if (rc == 0)
		cut_root(p);
out:
	fk_u64map_release(&r.tmap);
	free(r.scratch);
	return rc;
}

int fk_heapdump_parse_at(struct fk_profile *p, const char *data, size_t len,
			 uint64_t first_line, struct fk_err *err)
{
	return parse(p, data, len, first_line, NULL, err);
}

int fk_heapdump_parse(struct fk_profile *p, const char *data, size_t len,
		      struct fk_err *err)
{
	return parse(p, data, len, 1, NULL, err);
}

int fk_heapdump_parse_memo(struct fk_profile *p, const char *data, size_t len,
			   struct fk_stackmemo *m, struct fk_err *err)
{
	int rc;

	fk_stackmemo_begin(m);
	rc = parse(p, data, len, 1, m, err);
	if (rc == 0)
		fk_stackmemo_sweep(m);
	return rc;
}
