/* SPDX-License-Identifier: MIT */
/* The waste estimate (core/waste.h) written out: as JSON (the classes,
 * the sites, the pages and RSS's parts; man/heap-waste.1, FORMAT), what
 * the hook's /internal/heap/waste?format=json and heap-waste write, or as
 * folded stacks whose values are each site's waste. */
#ifndef FK_WASTE_ENC_H
#define FK_WASTE_ENC_H

#include <stdio.h>

#include "err.h"
#include "jestats.h"
#include "profile.h"
#include "waste.h"

/* Writes w (estimated from st and p; p symbolized or not, or NULL) as one
 * JSON object. 0, or -1 with err on a write error or out of memory. */
int fk_waste_json_write(const struct fk_profile *p, const struct fk_waste *w,
			const struct fk_jestats *st, FILE *out, struct fk_err *err);

/* Writes w in fmt: "json" (fk_waste_json_write) or "folded" (p's stacks
 * made to hold their waste by fk_waste_apply, then fk_folded_write; p must
 * not be NULL). 0, or -1 with err (FK_EUNSUPP for another fmt). */
int fk_waste_write(struct fk_profile *p, const struct fk_waste *w,
		   const struct fk_jestats *st, const char *fmt, FILE *out,
		   struct fk_err *err);

#endif
