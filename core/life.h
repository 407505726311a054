/* SPDX-License-Identifier: MIT */
/* Allocation lifetimes: the "lifetimes" raw form the hook writes (jemalloc
 * 5.3's experimental.prof_recent.alloc_dump JSON, src/prof_recent.c, with
 * the dump's time and the memory maps; man/heap-lifetimes.1, FORMAT), read
 * into a view that is a profile: the records a question selects, grouped
 * by allocation (or free) stack, for the encoders and the renderer. */
#ifndef FK_LIFE_H
#define FK_LIFE_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "profile.h"

/* The first line of the raw form. */
#define FK_LIFE_MAGIC "flamekit-lifetimes/1"

enum fk_life_view {
	FK_LIFE_SITES,                 /* every record, by allocation stack */
	FK_LIFE_TEMPORARY,             /* freed within max_ms, by allocation stack */
	FK_LIFE_OLDEST,                /* still live after min_s, by allocation stack */
	FK_LIFE_FREED,                 /* freed (with a known free stack), by free stack */
};

/* Looks up a view name ("sites", "temporary", "oldest", "freed"); -1 when
 * unknown. fk_life_view_name(i) is the i-th, NULL past the last. */
int fk_life_view_parse(const char *name);
const char *fk_life_view_name(int i);

struct fk_life_query {
	enum fk_life_view view;
	double max_ms;                 /* temporary: lifetime at most this */
	double min_s;                  /* oldest: age at least this */
};

/* The lifetimes of the records of one stack of a view. Quantiles count
 * live records as longer than any freed one: FK_LIFE_LIVE when the
 * quantile falls among them; records freed at a time jemalloc did not
 * keep are left out of them (FK_LIFE_NONE when no record is left). */
#define FK_LIFE_LIVE (-1.0)
#define FK_LIFE_NONE (-2.0)
/* A stack's records by lifetime: freed under 1 ms, 10 ms, 100 ms, 1 s,
 * 10 s, a minute, later, and still live (records freed at an unknown time
 * are in none). fk_life_bucket_name(i) names bucket i for a column
 * ("under-1ms", ..., "live"), NULL past the last. */
#define FK_LIFE_NBUCKETS 8
const char *fk_life_bucket_name(int i);
struct fk_life_site {
	uint64_t records, freed, live;
	struct fk_counts bucket[FK_LIFE_NBUCKETS];  /* raw, as a stack's */
	double median_ms, p90_ms, max_ms;
	double age_median_s, age_max_s;  /* of the live ones at the dump; FK_LIFE_NONE: none */
};

struct fk_life_info {
	uint64_t now_ns;               /* the dump's time in the records' clock */
	int realtime;                  /* the clock is the wall clock (prof_time_resolution:high) */
	uint64_t period;               /* sample_interval; 0 when the JSON lacks it */
	int64_t max;                   /* recent_alloc_max (-1 unlimited) */
	uint64_t records, live, freed; /* in the whole record */
	double span_s;                 /* the oldest record's age; 0 without records */
	struct fk_life_site *sites;    /* one per stack of the view, as p->stacks */
};

/* Parses the raw form data[0..len) into p (new and empty): its maps, and
 * as its stacks the records q selects, grouped by stack (counts: records
 * and their usable sizes, raw, p->period the sampling interval so that
 * fk_unbias scales them as a heap dump's), heaviest first; info gets the
 * record's figures and each stack's lifetimes (info->sites, malloc'd,
 * freed with fk_life_info_release). data must outlive p. Strict: a
 * missing or malformed field fails with err naming its byte offset (a
 * maps line by its line). 0 or -1. */
int fk_life_parse(struct fk_profile *p, const char *data, size_t len,
		  const struct fk_life_query *q, struct fk_life_info *info,
		  struct fk_err *err);

void fk_life_info_release(struct fk_life_info *info);

/* One record, as fk_life_each gives it: its usable size, whether it was
 * freed, and its allocation stack (leaf first, valid during the call).
 * 0 to go on, -1 to stop (out of memory). */
typedef int fk_life_rec_fn(void *ctx, uint64_t usize, int released, const uint64_t *addrs,
			   uint32_t depth);

/* Reads the raw form data[0..len) as fk_life_parse does (its maps left
 * unread) and gives every record to fn, in the record's order; info gets
 * the record's figures (no sites). 0, or -1 with err (malformed, or fn
 * stopped: out of memory). */
int fk_life_each(const char *data, size_t len, fk_life_rec_fn *fn, void *ctx,
		 struct fk_life_info *info, struct fk_err *err);

/* Reads the file path ("-" = standard input) into a new profile (named
 * path; it owns the input) with fk_life_parse. The profile, or NULL with
 * err. */
struct fk_profile *fk_life_load(const char *path, const struct fk_life_query *q,
				struct fk_life_info *info, struct fk_err *err);

#endif
