/* SPDX-License-Identifier: MIT */
/* The checks of a profile's sites against budgets: totals, growth against
 * a base, per-pattern budgets; each records what a report says of it. */
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "heapcheck.h"

void fk_verdict_init(struct fk_verdict *vd, const struct fk_sites *s)
{
	memset(vd, 0, sizeof *vd);
	vd->source = s->source;
	vd->inuse = s->inuse;
	vd->alloc = s->alloc;
	vd->has_alloc = s->has_alloc;
}

void fk_verdict_release(struct fk_verdict *vd)
{
	free(vd->v);
	memset(vd, 0, sizeof *vd);
}

static struct fk_check *add(struct fk_verdict *vd, enum fk_check_kind kind,
			    struct fk_err *err)
{
	void *nv = fk_grow(vd->v, &vd->cap, vd->n, sizeof *vd->v, 8);
	struct fk_check *c;

	if (!nv) {
		fk_err_set(err, FK_ENOMEM, 0, "out of memory");
		return NULL;
	}
	vd->v = nv;
	c = &vd->v[vd->n++];
	memset(c, 0, sizeof *c);
	c->kind = kind;
	c->pct = -1;
	return c;
}

/* Keeps the FK_CHECK_LIST largest values offered in c->sites, largest
 * first (ties: the stack that sorts first), counting the rest in more. */
static void offer(struct fk_check *c, const char *stack, size_t len, int64_t value,
		  int64_t base)
{
	size_t i;

	if (c->nsites == FK_CHECK_LIST) {
		c->more++;
		if (value <= c->sites[FK_CHECK_LIST - 1].value)
			return;
		c->nsites--;
	}
	for (i = c->nsites; i > 0 && c->sites[i - 1].value < value; i--)
		c->sites[i] = c->sites[i - 1];
	c->sites[i] = (struct fk_check_site){ stack, len, value, base };
	c->nsites++;
}

static void settle(struct fk_verdict *vd, struct fk_check *c)
{
	if (c->over)
		vd->nover++;
	else
		c->nsites = c->more = 0;
}

int fk_verdict_total(struct fk_verdict *vd, const struct fk_sites *s,
		     enum fk_check_kind kind, int64_t limit, struct fk_err *err)
{
	int alloc = kind == FK_CHECK_ALLOC;
	struct fk_check *c;
	size_t i;

	if (alloc && !s->has_alloc)
		return fk_err_set(err, FK_EUNSUPP, 0,
				  "no allocated bytes in the input (a dump needs prof_accum:true; "
				  "a pprof, alloc_space; folded stacks, a '# columns:' header)");
	if (!(c = add(vd, kind, err)))
		return -1;
	c->value = c->total = alloc ? s->alloc : s->inuse;
	c->limit = limit;
	c->over = c->value > limit;
	for (i = 0; c->over && i < s->n; i++) {
		int64_t v = alloc ? s->v[i].alloc : s->v[i].inuse;

		if (v > 0)
			offer(c, s->v[i].stack, s->v[i].len, v, 0);
	}
	settle(vd, c);
	return 0;
}

static int cmp_stack(const struct fk_site *x, const struct fk_site *y)
{
	size_t n = x->len < y->len ? x->len : y->len;
	int d = memcmp(x->stack, y->stack, n);

	return d ? d : (x->len > y->len) - (x->len < y->len);
}

int fk_verdict_growth(struct fk_verdict *vd, const struct fk_sites *s,
		      const struct fk_sites *base, int64_t limit, int pct,
		      struct fk_err *err)
{
	struct fk_check *c;
	size_t i = 0, j = 0;

	if (!(c = add(vd, FK_CHECK_GROWTH, err)))
		return -1;
	vd->base_source = base->source;
	c->base = base->inuse;
	c->total = s->inuse;
	if (__builtin_sub_overflow(s->inuse, base->inuse, &c->value))
		return fk_err_set(err, FK_ELIMIT, 0, "growth overflows");
	if (pct) {
		/* N% of the base's total, rounded down; a base of nothing
		 * allows no growth. */
		c->pct = limit;
		limit = base->inuse > 0 ? (int64_t)((double)base->inuse * (double)limit / 10000.0) : 0;
	}
	c->limit = limit;
	c->over = c->value > limit;
	/* The sites of both, merged by stack (both are sorted). */
	while (i < s->n || j < base->n) {
		int d = i == s->n ? 1 : j == base->n ? -1 : cmp_stack(&s->v[i], &base->v[j]);
		const struct fk_site *t = d <= 0 ? &s->v[i] : &base->v[j];
		int64_t now = d <= 0 ? s->v[i].inuse : 0, then = d >= 0 ? base->v[j].inuse : 0;
		int64_t g;

		if (__builtin_sub_overflow(now, then, &g))
			return fk_err_set(err, FK_ELIMIT, 0, "growth overflows");
		if (g > limit) {
			c->sites_over++;
			c->over = 1;
		}
		if (g > 0)
			offer(c, t->stack, t->len, g, then);
		i += d <= 0;
		j += d >= 0;
	}
	settle(vd, c);
	return 0;
}

int fk_verdict_budget(struct fk_verdict *vd, const struct fk_sites *s,
		      const struct fk_budget *b, struct fk_err *err)
{
	size_t first = vd->n, i;
	long *line = malloc((s->n ? s->n : 1) * sizeof *line);
	struct fk_budget_match *m = fk_budget_match_new(b);

	if (!line || !m) {
		fk_err_set(err, FK_ENOMEM, 0, "out of memory");
		goto fail;
	}
	for (i = 0; i < b->n; i++) {
		struct fk_check *c = add(vd, FK_CHECK_BUDGET, err);

		if (!c)
			goto fail;
		c->pattern = b->v[i].pattern;
		c->lineno = b->v[i].lineno;
		c->limit = b->v[i].limit;
		c->total = s->inuse;
	}
	/* Each site is charged to its line first; then the sites of the
	 * lines that went over are listed. */
	for (i = 0; i < s->n; i++) {
		struct fk_check *c;

		if ((line[i] = fk_budget_match_stack(m, s->v[i].stack, s->v[i].len)) == -2) {
			fk_err_set(err, FK_ENOMEM, 0, "out of memory");
			goto fail;
		}
		if (line[i] < 0)
			continue;
		c = &vd->v[first + (size_t)line[i]];
		c->matched++;
		if (__builtin_add_overflow(c->value, s->v[i].inuse, &c->value)) {
			fk_err_set(err, FK_ELIMIT, 0, "a budget's total overflows");
			goto fail;
		}
	}
	for (i = 0; i < b->n; i++)
		vd->v[first + i].over = vd->v[first + i].value > vd->v[first + i].limit;
	for (i = 0; i < s->n; i++) {
		struct fk_check *c = line[i] >= 0 ? &vd->v[first + (size_t)line[i]] : NULL;

		if (c && c->over && s->v[i].inuse > 0)
			offer(c, s->v[i].stack, s->v[i].len, s->v[i].inuse, 0);
	}
	for (i = 0; i < b->n; i++)
		settle(vd, &vd->v[first + i]);
	fk_budget_match_free(m);
	free(line);
	return 0;
fail:
	fk_budget_match_free(m);
	free(line);
	return -1;
}
