/* SPDX-License-Identifier: MIT */
/* A lifetimes view's per-site figures as JSON (man/heap-lifetimes.1,
 * FORMAT): what the hook's /internal/heap/lifetimes?format=json and
 * heap-lifetimes --format json write. */
#ifndef FK_LIFE_JSON_H
#define FK_LIFE_JSON_H

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

#endif
