/* SPDX-License-Identifier: MIT */
/* A lifetimes view written out: its per-site figures as JSON
 * (man/heap-lifetimes.1, FORMAT), what the hook's
 * /internal/heap/lifetimes?format=json and heap-lifetimes --format json
 * write, or the view as pprof or folded stacks. */
#ifndef FK_LIFE_ENC_H
#define FK_LIFE_ENC_H

#include <stdio.h>

#include "err.h"
#include "life.h"
#include "profile.h"

/* Writes the view q of p (made by fk_life_parse with info, then
 * symbolized or not: unresolved frames are "module+0xOFFSET") as one JSON
 * object: the record's figures and "sites", one per stack heaviest first,
 * each with its frames root first, its leaf "function", "count" and
 * "bytes" unbiased, "records", "live", "freed" and "lifetime_ms" (median,
 * p90, max: milliseconds, "live", or null). 0, or -1 with err on a write
 * error. */
int fk_life_json_write(const struct fk_profile *p, const struct fk_life_info *info,
		       const struct fk_life_query *q, FILE *out, struct fk_err *err);

/* Writes p's stacks (a view made by fk_life_parse with info) as
 * multi-column folded stacks (man/render-flame.1, "Value columns") after
 * the record's origin ("# info:" lines: records, span_s, sample_period):
 * a column "all" of every record's bytes, then one per lifetime bucket
 * (fk_life_bucket_name), each unbiased as fk_folded_write's; the page
 * render-flame draws of it shows a lifetime histogram of the selected
 * frame. p's counts are left as they were. 0, or -1 with err. */
int fk_life_columns_write(struct fk_profile *p, const struct fk_life_info *info, FILE *out,
			  struct fk_err *err);

/* Writes the view in fmt: "json" (fk_life_json_write), "pprof"
 * (fk_pprof_write), "folded" (fk_folded_write) or "columns"
 * (fk_life_columns_write); p symbolized or not. 0, or -1 with err
 * (FK_EUNSUPP for another fmt). */
int fk_life_write(struct fk_profile *p, const struct fk_life_info *info,
		  const struct fk_life_query *q, const char *fmt, FILE *out,
		  struct fk_err *err);

#endif
