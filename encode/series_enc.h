/* SPDX-License-Identifier: MIT */
/* A series of heap profiles as one multi-column folded file: one value
 * column of in-use bytes per snapshot under a "# columns:" line, and one
 * "# series:" line per snapshot with its id, time and memory figures
 * (core/series.h; man/heap-series.1, man/render-flame.1). heap-series
 * writes it from dumps; the hook's timeline can write it from its ring. */
#ifndef FK_SERIES_ENC_H
#define FK_SERIES_ENC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "err.h"
#include "profile.h"
#include "series.h"

struct fk_series_enc;

/* Returns a new series of ncols snapshots (1..FK_MAX_COLUMNS), or NULL
 * with err. */
struct fk_series_enc *fk_series_enc_new(uint32_t ncols, struct fk_err *err);

/* Frees s. NULL is a no-op. */
void fk_series_enc_free(struct fk_series_enc *s);

/* Adds profile p (raw or symbolized; frames named as to-folded names
 * them, values unbiased in-use bytes) as snapshot col with metadata m
 * (copied). Each column is added once. Returns 0, or -1 with err. */
int fk_series_enc_add(struct fk_series_enc *s, uint32_t col, const struct fk_profile *p,
		      const struct fk_snapmeta *m, struct fk_err *err);

/* The same for a snapshot already folded: text[0..len) is one-value
 * folded stacks (as fk_folded_write makes them; no header). Returns 0, or
 * -1 with err naming the bad line. */
int fk_series_enc_add_folded(struct fk_series_enc *s, uint32_t col, const char *text,
			     size_t len, const struct fk_snapmeta *m, struct fk_err *err);

/* Adds every snapshot at once from one profile p whose stacks are those
 * of all snapshots: for each k, set() gives p's stacks the counts of
 * snapshot k (and its period) and fills its metadata m. The same output
 * as fk_series_enc_add of each snapshot's own profile, with each stack
 * named once rather than once a snapshot. Returns 0, or -1 with err. */
int fk_series_enc_add_all(struct fk_series_enc *s, struct fk_profile *p,
			  void (*set)(void *ctx, uint32_t k, struct fk_profile *p,
				      struct fk_snapmeta *m),
			  void *ctx, struct fk_err *err);

/* The same for one part of the stacks (those named with one set of
 * maps), called once per part: set() gives p's stacks the counts of
 * snapshot k where k belongs to this part, none where it does not, and
 * fills m (the same each time). A line named alike in two parts is one
 * line. Every column counts as added after the first call. Returns 0, or
 * -1 with err. */
int fk_series_enc_add_part(struct fk_series_enc *s, struct fk_profile *p,
			   void (*set)(void *ctx, uint32_t k, struct fk_profile *p,
				       struct fk_snapmeta *m),
			   void *ctx, struct fk_err *err);

/* Writes the series: the header lines, then every stack with its value in
 * each snapshot, sorted bytewise. Every column must have been added.
 * Returns 0, or -1 with err. */
int fk_series_enc_write(struct fk_series_enc *s, FILE *out, struct fk_err *err);

/* The place of a dump in its series, from its file name: jemalloc's
 * PREFIX.PID.SEQ.{iN,uN,mN,f}.heap (prof_prefix with lg_prof_interval,
 * prof_gdump, prof.dump, prof_final) and the hook's flamekit.PID.SEQ.heap.
 * Fills *pid and *seq; returns 0, or -1 when the name has neither form. */
int fk_series_dump_seq(const char *name, uint64_t *pid, uint64_t *seq);

/* A dump of a series, placed: its path, the process its name says (0 when
 * it says none) and the number that orders it. */
struct fk_series_dump {
	const char *path;              /* borrowed */
	uint64_t pid, seq;
	size_t arg;                    /* position among the paths given */
};

/* Sets *m for dump d: its number as id, and with mtime the modification
 * time of its file. Returns 0, or -1 with err naming d (cannot stat). */
int fk_series_dump_meta(const struct fk_series_dump *d, int mtime, struct fk_snapmeta *m,
			struct fk_err *err);

/* Places the n dumps paths (borrowed) of one process's series into d[0..n):
 * ordered by the sequence number in their names (fk_series_dump_seq; equal
 * numbers in the order given), or with keep in the order given, numbered
 * by position. Returns 0, or -1 with err naming the dump: "-" (a series is
 * read from named files), a name without a number (unless keep), or names
 * of two processes. */
int fk_series_order(const char *const *paths, size_t n, int keep,
		    struct fk_series_dump *d, struct fk_err *err);

#endif
