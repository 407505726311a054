/* SPDX-License-Identifier: MIT */
/* What the last scrapes made, kept for the next (bench/README.md,
 * "Repeated scrapes"): a continuous profiler asks for the same heap every
 * few seconds, and most of it has not changed.
 * - The stacks: each stack line's addresses by the hash of its text
 *   (core/stackmemo.h), so the dump reader reads hex only for new stacks.
 * - The pprof encoder's: the sample limit's trie, used again while the
 *   stacks stay the same (fk_pprof_memo).
 * - The answers: the last answer of each format with the dump and the
 *   request it was made of; the same dump and request again (a heap at
 *   rest) gets it back, a pprof stamped with the time of this request
 *   (fk_pprof_stamp).
 * They go with the module cache (sampling off for good) and together
 * hold at most its budget, FLAMEKIT_CACHE_MB: half for the stacks, a
 * quarter for the trie, a quarter for the answers. Everything here runs
 * under fk_je_lock, like every conversion. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve_int.h"
#include "pprof_enc.h"
#include "stackmemo.h"
#include "hash.h"

/* One answer kept per format. */
struct answer {
	uint64_t key;
	size_t dump_len;
	struct fk_pprof_body *body;    /* pprof */
	char *bytes;                   /* every other format */
	size_t len;
};

static struct {
	struct fk_stackmemo *stacks;
	struct fk_pprof_memo *pprof;
	struct answer answers[FK_OUT_NFMT];
	uint64_t hits, misses;
} mm;

struct fk_stackmemo *fk_memo_stacks(void)
{
	/* Its budget is the module cache's: 0 keeps nothing. */
	if (!mm.stacks && fk_env_get()->cache_mb > 0)
		mm.stacks = fk_stackmemo_new((fk_env_get()->cache_mb << 20) / 2);
	return mm.stacks;
}

struct fk_pprof_memo *fk_memo_pprof(void)
{
	if (!mm.pprof && fk_env_get()->cache_mb > 0)
		mm.pprof = fk_pprof_memo_new((fk_env_get()->cache_mb << 20) / 4);
	return mm.pprof;
}

uint64_t fk_memo_key(const char *dump, size_t len, int fmt, const struct fk_serve_opts *o)
{
	char req[512];
	int n;

	/* Nothing is kept without a budget: no hash of the whole dump. */
	if (fk_env_get()->cache_mb == 0)
		return 0;
	/* Everything of a request an answer depends on, with the dump. */
	n = snprintf(req, sizeof req, "%d|%s|%s|%.17g|%d|%d|%d|%zu|%d|%d|%d", fmt,
		     o && o->title ? o->title : "", o && o->colors ? o->colors : "",
		     o ? o->minwidth : -1.0, o ? o->minwidth_pct : 0, o ? o->inverted : -1,
		     o ? o->allocs : 0, o ? o->max_samples : fk_env_get()->max_samples,
		     fk_je_prof_accum(), o ? o->lines : 0, o ? o->sample_type : 0);
	if (n < 0 || (size_t)n >= sizeof req)
		return 0;          /* a title too long to tell apart: never kept */
	return fk_hash_long(dump, len) ^ (fk_hash_long(req, (size_t)n) * 0x9e3779b97f4a7c15ULL);
}

/* Whether a holds the answer for key, of a dump dump_len long. */
static int holds(const struct answer *a, uint64_t key, size_t dump_len)
{
	return key && a->key == key && a->dump_len == dump_len;
}

static size_t answer_size(const struct answer *a)
{
	return fk_pprof_body_size(a->body) + a->len;
}

static void forget(struct answer *a)
{
	fk_pprof_body_free(a->body);
	free(a->bytes);
	memset(a, 0, sizeof *a);
}

const struct fk_pprof_body *fk_memo_body(uint64_t key, size_t dump_len)
{
	struct answer *a = &mm.answers[FK_OUT_PPROF];

	if (a->body && holds(a, key, dump_len)) {
		mm.hits++;
		return a->body;
	}
	mm.misses++;
	return NULL;
}

int fk_memo_bytes(uint64_t key, size_t dump_len, int fmt, char **out, size_t *len)
{
	struct answer *a = &mm.answers[fmt];

	if (!a->bytes || !holds(a, key, dump_len)) {
		mm.misses++;
		return 0;
	}
	if (!(*out = malloc(a->len ? a->len : 1)))
		return 0;
	memcpy(*out, a->bytes, a->len);
	*len = a->len;
	mm.hits++;
	return 1;
}

/* Whether an answer of n bytes may be kept in place of fmt's: the
 * answers hold at most a quarter of the budget, the newest first (the
 * others are forgotten to make room). */
static int fits(int fmt, size_t n)
{
	size_t room = (fk_env_get()->cache_mb << 20) / 4, held = 0;

	if (n > room)
		return 0;
	for (int i = 0; i < FK_OUT_NFMT; i++)
		if (i != fmt)
			held += answer_size(&mm.answers[i]);
	for (int i = 0; i < FK_OUT_NFMT && held + n > room; i++)
		if (i != fmt) {
			held -= answer_size(&mm.answers[i]);
			forget(&mm.answers[i]);
		}
	return 1;
}

void fk_memo_keep_body(uint64_t key, size_t dump_len, struct fk_pprof_body *b)
{
	struct answer *a = &mm.answers[FK_OUT_PPROF];

	forget(a);
	if (!key || !fits(FK_OUT_PPROF, fk_pprof_body_size(b))) {
		fk_pprof_body_free(b);
		return;
	}
	*a = (struct answer){ .key = key, .dump_len = dump_len, .body = b };
}

void fk_memo_keep_bytes(uint64_t key, size_t dump_len, int fmt, const char *bytes,
			size_t len)
{
	struct answer *a = &mm.answers[fmt];

	forget(a);
	if (!key || !fits(fmt, len) || !(a->bytes = malloc(len ? len : 1)))
		return;
	memcpy(a->bytes, bytes, len);
	a->len = len;
	a->key = key;
	a->dump_len = dump_len;
}

void fk_memo_drop(void)
{
	fk_stackmemo_free(mm.stacks);
	mm.stacks = NULL;
	fk_pprof_memo_free(mm.pprof);
	mm.pprof = NULL;
	for (int i = 0; i < FK_OUT_NFMT; i++)
		forget(&mm.answers[i]);
}

void fk_memo_atfork_child(void)
{
	/* The parent's, in memory this child shares until written: left. */
	mm.stacks = NULL;
	mm.pprof = NULL;
	memset(mm.answers, 0, sizeof mm.answers);
	mm.hits = mm.misses = 0;
}

void fk_memo_stats(struct fk_memo_stats *st)
{
	struct fk_stackmemo_stats ss;

	memset(st, 0, sizeof *st);
	fk_stackmemo_stats(mm.stacks, &ss);
	st->stacks = ss.stacks;
	st->bytes = ss.bytes;
	st->stack_hits = ss.hits;
	st->stack_misses = ss.misses;
	st->bytes += fk_pprof_memo_bytes(mm.pprof);
	for (int i = 0; i < FK_OUT_NFMT; i++)
		st->bytes += answer_size(&mm.answers[i]);
	st->hits = mm.hits;
	st->misses = mm.misses;
}
