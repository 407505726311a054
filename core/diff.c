/* SPDX-License-Identifier: MIT */
/* Per-stack difference of two dumps after unbiasing (see diff.h). */
#include "diff.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "maps.h"
#include "strtab.h"

struct entry {
	const struct fk_stack *stack;  /* first stack seen with these addresses */
	struct fk_values base, cur;
	int in_cur;
};

struct table {
	struct entry *v;
	size_t n, cap;
	uint32_t *slots;               /* index + 1 into v, 0 = empty */
	size_t nslots;
};

static uint64_t stack_hash(const struct fk_stack *s)
{
	return fk_hash(s->addrs, s->depth * sizeof *s->addrs) ^ s->depth;
}

static int same(const struct fk_stack *a, const struct fk_stack *b)
{
	return a->depth == b->depth &&
	       (a->depth == 0 || memcmp(a->addrs, b->addrs, a->depth * sizeof *a->addrs) == 0);
}

static struct entry *lookup(struct table *t, const struct fk_stack *s)
{
	size_t j;

	for (j = stack_hash(s) & (t->nslots - 1); t->slots[j]; j = (j + 1) & (t->nslots - 1))
		if (same(t->v[t->slots[j] - 1].stack, s))
			return &t->v[t->slots[j] - 1];
	if (t->n == t->cap)
		return NULL;            /* cannot happen: sized for all stacks */
	t->v[t->n].stack = s;
	t->slots[j] = (uint32_t)++t->n;
	return &t->v[t->n - 1];
}

static void add(struct fk_values *to, const struct fk_values *v)
{
	to->objs += v->objs;
	to->bytes += v->bytes;
	to->acc_objs += v->acc_objs;
	to->acc_bytes += v->acc_bytes;
}

static int64_t clamp(double x)
{
	if (!(x > -9.2e18))
		return x != x ? 0 : -9200000000000000000LL;
	if (x > 9.2e18)
		return 9200000000000000000LL;
	return llround(x);
}

/* Raw counts at period 1 whose unbiased values are (n, s). */
static void raw_pair(double n, double s, int64_t *rn, int64_t *rs)
{
	double f = 1.0;

	if (fabs(n) > 0 && fabs(s) > 0)
		f = -expm1(-fabs(s) / fabs(n));
	if (!(f > 0 && f <= 1))
		f = 1.0;
	*rn = clamp(n * f);
	*rs = clamp(s * f);
}

int fk_profile_diff(struct fk_profile *out, const struct fk_profile *base,
		    const struct fk_profile *cur, enum fk_diff_mode mode,
		    struct fk_err *err)
{
	struct table t;
	size_t i, total = base->nstacks + cur->nstacks, keep = 0;
	int rc = -1;

	memset(&t, 0, sizeof t);
	t.cap = total;
	for (t.nslots = 64; t.nslots < total * 2; t.nslots *= 2)
		;
	t.v = calloc(total ? total : 1, sizeof *t.v);
	t.slots = calloc(t.nslots, sizeof *t.slots);
	out->stacks = calloc(total ? total : 1, sizeof *out->stacks);
	if (!t.v || !t.slots || !out->stacks) {
		fk_err_set(err, FK_ENOMEM, 0, "out of memory");
		goto done;
	}
	/* Current stacks first, so the output keeps the current dump's order. */
	for (i = 0; i < cur->nstacks; i++) {
		struct entry *e = lookup(&t, &cur->stacks[i]);
		struct fk_values v = fk_unbias(cur, &cur->stacks[i].c);

		add(&e->cur, &v);
		e->in_cur = 1;
	}
	for (i = 0; i < base->nstacks; i++) {
		struct entry *e = lookup(&t, &base->stacks[i]);
		struct fk_values v = fk_unbias(base, &base->stacks[i].c);

		add(&e->base, &v);
	}
	for (i = 0; i < t.n; i++) {
		const struct entry *e = &t.v[i];
		struct fk_stack *s = &out->stacks[keep];

		memset(s, 0, sizeof *s);
		if (mode == FK_DIFF_WINDOW)
			raw_pair(e->cur.objs, e->cur.bytes, &s->c.objs, &s->c.bytes);
		else
			raw_pair(e->cur.objs - e->base.objs, e->cur.bytes - e->base.bytes,
				 &s->c.objs, &s->c.bytes);
		raw_pair(e->cur.acc_objs - e->base.acc_objs,
			 e->cur.acc_bytes - e->base.acc_bytes, &s->c.acc_objs, &s->c.acc_bytes);
		if (mode == FK_DIFF_GROWTH ? s->c.bytes <= 0
		    : (s->c.objs == 0 && s->c.bytes == 0 &&
		       s->c.acc_objs == 0 && s->c.acc_bytes == 0))
			continue;
		if (s->c.acc_objs || s->c.acc_bytes)
			out->has_accum = 1;
		s->depth = e->stack->depth;
		if (s->depth) {
			uint64_t *a = fk_arena_alloc(out->arena, s->depth * sizeof *a);

			if (!a) {
				fk_err_set(err, FK_ENOMEM, 0, "out of memory");
				goto done;
			}
			memcpy(a, e->stack->addrs, s->depth * sizeof *a);
			s->addrs = a;
		}
		keep++;
	}
	out->nstacks = keep;
	out->format = FK_FMT_V2;
	out->period = 1;
	out->maps_text = cur->maps_text;
	out->maps_len = cur->maps_len;
	rc = fk_maps_parse(out, cur->maps_text, cur->maps_len, 1, err);
done:
	free(t.v);
	free(t.slots);
	return rc;
}
