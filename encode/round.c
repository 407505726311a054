/* SPDX-License-Identifier: MIT */
/* The one rounding rule of encoded values: unbiased values become integers
 * with the rounding error carried from stack to stack per leaf function
 * (see encode_int.h), so that to-pprof and to-folded agree exactly and
 * every function's flat value stays within 0.5 of jeprof's. */
#include "encode_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "profile.h"

int64_t fk_enc_round(double v)
{
	if (isnan(v))
		return 0;
	if (v >= 9223372036854775807.0)
		return INT64_MAX;
	if (v <= -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t)llround(v);
}

int64_t fk_enc_round_next(struct fk_enc_rounder *r, double v)
{
	int64_t target;

	if (v == 0 || isnan(v))
		return 0;
	r->exact += v;
	target = fk_enc_round(r->exact);
	v = (double)target - (double)r->emitted;
	r->emitted = target;
	return fk_enc_round(v);
}

void fk_enc_rounders_init(struct fk_enc_rounders *rs, size_t width)
{
	memset(rs, 0, sizeof *rs);
	fk_u64map_init(&rs->ix);
	rs->width = width;
}

void fk_enc_rounders_release(struct fk_enc_rounders *rs)
{
	fk_u64map_release(&rs->ix);
	free(rs->r);
	memset(rs, 0, sizeof *rs);
}

/* The leaf function of s: its interned name (names are interned, so equal
 * names are equal pointers), else the leaf address; 0 for an empty stack. */
static uint64_t leaf_key(const struct fk_profile *p, const struct fk_stack *s)
{
	const struct fk_sym *sym;
	uint32_t j;

	if (s->depth == 0)
		return 0;
	sym = p->symbolized ? fk_profile_sym(p, fk_stack_key(s, 0)) : NULL;
	for (j = 0; sym && j < sym->nframes; j++) {
		const struct fk_frame *f = &sym->frames[j];

		/* The innermost named frame, as to-folded and from-pprof name it. */
		if (f->name && *f->name)
			return (uint64_t)(uintptr_t)f->name;
		if (f->sysname && *f->sysname)
			return (uint64_t)(uintptr_t)f->sysname;
	}
	return s->addrs[0];
}

struct fk_enc_rounder *fk_enc_rounders_of(struct fk_enc_rounders *rs,
					  const struct fk_profile *p,
					  const struct fk_stack *s)
{
	uint64_t key = leaf_key(p, s);
	uint32_t g = fk_u64map_get(&rs->ix, key);

	if (g == UINT32_MAX) {
		if (rs->n == rs->cap) {
			size_t ncap = fk_grow_cap(rs->cap, rs->n + 1, rs->width * sizeof *rs->r, 256);
			struct fk_enc_rounder *nr;

			if (!ncap || ncap >= UINT32_MAX)
				return NULL;
			nr = fk_resize(rs->r, ncap * rs->width, ncap * rs->width, sizeof *nr);
			if (!nr)
				return NULL;
			rs->r = nr;
			rs->cap = ncap;
		}
		g = (uint32_t)rs->n++;
		memset(&rs->r[g * rs->width], 0, rs->width * sizeof *rs->r);
		if (fk_u64map_put(&rs->ix, key, g) < 0)
			return NULL;
	}
	return &rs->r[(size_t)g * rs->width];
}
