/* SPDX-License-Identifier: MIT */
/* Serving the snapshot ring (libflamekit-hook(3), "Snapshots"): one
 * snapshot made a profile again, the growth from one to another or to the
 * heap now, every snapshot as a series (the timeline's page and folded
 * text), and the list as JSON. The ring itself is serve_snap.c's. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "input.h"
#include "maps.h"
#include "serve_int.h"
#include "serve_ring.h"
#include "series.h"

static const struct snap *find(uint32_t id)
{
	for (size_t k = 0; k < fk_ring.n; k++)
		if (fk_ring.v[k].id == id)
			return &fk_ring.v[k];
	return NULL;
}

/* A new profile of the stacks of snapshots sel[0..nsel) (all of them, no
 * counts) with the maps of the last; its address arrays are the ring's,
 * so it must be freed before the ring changes (hold fk_snap_lock). */
static struct fk_profile *skeleton(const struct snap *const *sel, size_t nsel,
				   uint32_t **slotp, struct fk_err *err)
{
	struct fk_profile *p = fk_profile_new("snapshot");
	uint32_t *slot = calloc(fk_ring.nstk ? fk_ring.nstk : 1, sizeof *slot);
	size_t n = 0;

	if (!p || !slot)
		goto oom;
	for (size_t k = 0; k < nsel; k++)
		for (size_t j = 0; j < sel[k]->n; j++)
			if (!slot[sel[k]->stk[j]])
				slot[sel[k]->stk[j]] = (uint32_t)++n;
	p->stacks = calloc(n ? n : 1, sizeof *p->stacks);
	if (!p->stacks)
		goto oom;
	for (size_t i = 0; i < fk_ring.nstk; i++) {
		if (!slot[i])
			continue;
		struct fk_stack *s = &p->stacks[slot[i] - 1];

		s->addrs = fk_ring.stk[i].addrs;
		s->depth = fk_ring.stk[i].depth;
	}
	p->nstacks = n;
	p->format = FK_FMT_V2;
	const struct mapstext *m = &fk_ring.maps[sel[nsel - 1]->maps];
	p->maps_text = m->text;
	p->maps_len = m->len;
	if (fk_maps_parse(p, m->text, m->len, 1, err) < 0) {
		free(slot);
		fk_profile_free(p);
		return NULL;
	}
	p->period = sel[nsel - 1]->period;
	*slotp = slot;
	return p;
oom:
	free(slot);
	fk_profile_free(p);
	fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	return NULL;
}

/* Sets the counts of p's stacks to snapshot s's; slot (from skeleton,
 * for a selection holding s) maps the ring's stack ids to p's stacks. */
static void set_counts(struct fk_profile *p, const uint32_t *slot, const struct snap *s)
{
	for (size_t i = 0; i < p->nstacks; i++)
		memset(&p->stacks[i].c, 0, sizeof p->stacks[i].c);
	for (size_t j = 0; j < s->n; j++) {
		struct fk_stack *st = &p->stacks[slot[s->stk[j]] - 1];

		st->c.objs += s->objs[j];
		st->c.bytes += s->bytes[j];
	}
	p->period = s->period;
}

/* Snapshot s alone as a profile. */
static struct fk_profile *one(const struct snap *s, struct fk_err *err)
{
	uint32_t *slot = NULL;
	struct fk_profile *p = skeleton(&s, 1, &slot, err);

	if (p)
		set_counts(p, slot, s);
	free(slot);
	return p;
}

static struct fk_profile *snap_profile(uint32_t id, struct fk_err *err)
{
	const struct snap *s = find(id);

	if (!s) {
		fk_err_set(err, FK_EUNSUPP, 0, "no snapshot %u", id);
		return NULL;
	}
	return one(s, err);
}

/* The growth from snapshot base to cur (a profile) into a new profile. */
static struct fk_profile *growth(const struct snap *base, const struct fk_profile *cur,
				 struct fk_err *err)
{
	struct fk_profile *b = one(base, err), *g = NULL;

	if (b) {
		g = fk_profile_new("growth");
		if (!g)
			fk_err_set(err, FK_ENOMEM, 0, "out of memory");
		else if (fk_profile_diff(g, b, cur, FK_DIFF_GROWTH, err) < 0) {
			fk_profile_free(g);
			g = NULL;
		}
	}
	fk_profile_free(b);
	return g;
}

/* Serves with the ring locked: snapshot id, or the growth from base to
 * snapshot id or to live (a profile of the heap now). */
static int serve_locked(uint32_t id, uint32_t base, const struct fk_profile *live, int fmt,
			const struct fk_serve_opts *o, char **out, size_t *len,
			size_t *maplen, struct fk_err *err)
{
	const struct snap *b = base ? find(base) : NULL, *s = id ? find(id) : NULL;
	struct fk_profile *cur = NULL, *p;
	/* A snapshot's page has every column a snapshot keeps (in-use space
	 * and objects); a growth's, the growth of in-use space (its objects
	 * may shrink). Each at the time of the heap it ends at. */
	struct fk_origin origin = { .time = s ? (double)s->time_ns / 1e9 : 0,
				    .period = s ? s->period : live ? live->period : 0,
				    .sample_type = base ? "inuse_space" : NULL, .columns = !base };
	int rc;

	if (base && !b)
		return fk_err_set(err, FK_EUNSUPP, 0, "no snapshot %u", base);
	if (id && !(cur = snap_profile(id, err)))
		return -1;
	if (!base)
		p = cur;
	else
		p = growth(b, cur ? cur : live, err);
	rc = p ? fk_serve_emit(p, fmt, o, &origin, out, len, maplen, err) : -1;
	if (p != cur)
		fk_profile_free(p);
	fk_profile_free(cur);
	return rc;
}

int fk_snap_serve(uint32_t id, uint32_t base, int fmt, const struct fk_serve_opts *o,
		  char **out, size_t *len, size_t *maplen, struct fk_err *err)
{
	struct fk_profile *live = NULL;
	char *raw = NULL;
	size_t rlen = 0, rmap = 0;
	int rc = 0;

	/* Lock order: the dump's, then the ring's, as fk_snap_take. */
	fk_je_lock();
	if (base && !id) {
		rc = fk_serve_dump(&raw, &rlen, &rmap, err);
		if (rc == 0 && !(live = fk_profile_new("heap")))
			rc = fk_err_set(err, FK_ENOMEM, 0, "out of memory");
		if (rc == 0)
			rc = fk_profile_parse(live, raw, rlen, err);
	}
	if (rc == 0) {
		pthread_mutex_lock(&fk_ring.lock);
		rc = serve_locked(id, base, live, fmt, o, out, len, maplen, err);
		pthread_mutex_unlock(&fk_ring.lock);
	}
	fk_profile_free(live);
	if (raw)
		fk_hook_buf_release(raw, rmap);
	fk_je_unlock();
	return rc;
}

/* The metadata of snapshot s for a series. */
static void meta_of(const struct snap *s, struct fk_snapmeta *m)
{
	char id[24];

	snprintf(id, sizeof id, "s%u", s->id);
	fk_series_meta_init(m, id);
	m->time_ns = s->time_ns;
	memcpy(m->stat, s->stat, sizeof m->stat);
}

/* The snapshots of a series in parts, one per set of modules their maps
 * name (mapstext.modsig): part i's profile names the stacks of its
 * snapshots with their own maps. */
struct series_ctx {
	const struct snap *const *sel;     /* every snapshot, oldest first */
	size_t *part;                      /* each snapshot's part */
	uint32_t **slot;                   /* each part's skeleton slots */
};

static void series_set(void *ctx, size_t part, uint32_t k, struct fk_profile *p,
		       struct fk_snapmeta *m)
{
	const struct series_ctx *c = ctx;

	if (c->part[k] == part) {
		set_counts(p, c->slot[part], c->sel[k]);
	} else {
		for (size_t i = 0; i < p->nstacks; i++)
			memset(&p->stacks[i].c, 0, sizeof p->stacks[i].c);
	}
	meta_of(c->sel[k], m);
}

static int series_locked(int fmt, const struct fk_serve_opts *o, char **out, size_t *len,
			 struct fk_err *err)
{
	const struct snap **sel, **sub;
	struct fk_profile **parts;
	size_t n = fk_ring.n, nparts = 0;
	struct series_ctx c;
	int rc = 0;

	if (n == 0)
		return fk_err_set(err, FK_EUNSUPP, 0, "no snapshot yet");
	sel = malloc(n * sizeof *sel);
	sub = malloc(n * sizeof *sub);
	parts = calloc(n, sizeof *parts);
	c.part = malloc(n * sizeof *c.part);
	c.slot = calloc(n, sizeof *c.slot);
	c.sel = sel;
	if (!sel || !sub || !parts || !c.part || !c.slot) {
		rc = fk_err_set(err, FK_ENOMEM, 0, "out of memory");
		goto out;
	}
	for (size_t k = 0; k < n; k++) {
		sel[k] = &fk_ring.v[k];
		c.part[k] = SIZE_MAX;
	}
	for (size_t k = 0; k < n && rc == 0; k++) {
		size_t nsub = 0;
		uint64_t sig = fk_ring.maps[sel[k]->maps].modsig;

		if (c.part[k] != SIZE_MAX)
			continue;
		for (size_t j = k; j < n; j++)
			if (c.part[j] == SIZE_MAX && fk_ring.maps[sel[j]->maps].modsig == sig) {
				c.part[j] = nparts;
				sub[nsub++] = sel[j];
			}
		parts[nparts] = skeleton(sub, nsub, &c.slot[nparts], err);
		if (!parts[nparts])
			rc = -1;
		else
			nparts++;
	}
	if (rc == 0) {
		/* The snapshots' sampling period when they share one. */
		struct fk_origin origin = { .period = sel[0]->period, .sample_type = "inuse_space" };

		for (size_t k = 1; k < n; k++)
			if (sel[k]->period != origin.period)
				origin.period = 0;
		rc = fk_serve_series(parts, nparts, (uint32_t)n, series_set, &c, fmt, o, &origin,
				     out, len, err);
	}
out:
	for (size_t i = 0; parts && c.slot && i < nparts; i++) {
		fk_profile_free(parts[i]);
		free(c.slot[i]);
	}
	free(parts);
	free(c.slot);
	free(c.part);
	free(sub);
	free(sel);
	return rc;
}

int fk_snap_series(int fmt, const struct fk_serve_opts *o, char **out, size_t *len,
		   struct fk_err *err)
{
	int rc;

	pthread_mutex_lock(&fk_ring.lock);
	rc = series_locked(fmt, o, out, len, err);
	pthread_mutex_unlock(&fk_ring.lock);
	return rc;
}

void fk_snap_json(FILE *f)
{
	pthread_mutex_lock(&fk_ring.lock);
	fprintf(f, "{\"snapshots\":[");
	for (size_t k = 0; k < fk_ring.n; k++) {
		const struct snap *s = &fk_ring.v[k];

		fprintf(f, "%s{\"id\":%u,\"time\":%.3f,\"why\":\"%s\",\"sampled_bytes\":%.0f",
			k ? "," : "", s->id, (double)s->time_ns / 1e9, s->why, s->total);
		for (int i = 0; i < FK_SER_NSTATS; i++) {
			if (s->stat[i] >= 0)
				fprintf(f, ",\"%s\":%lld", fk_series_keys[i], (long long)s->stat[i]);
			else
				fprintf(f, ",\"%s\":null", fk_series_keys[i]);
		}
		fputs(",\"hook_memory\":{", f);
		for (int i = 0; i < 3; i++) {
			static const char *const key[3] = { "allocated", "active", "resident" };

			if (s->hook_mem[i] >= 0)
				fprintf(f, "%s\"%s\":%lld", i ? "," : "", key[i],
					(long long)s->hook_mem[i]);
			else
				fprintf(f, "%s\"%s\":null", i ? "," : "", key[i]);
		}
		if (s->sampling_how)
			fprintf(f, "},\"sampling_from\":\"%s\"}", s->sampling_how);
		else
			fputs("},\"sampling_from\":null}", f);
	}
	fprintf(f, "],\"peak\":%u,\"bytes\":%zu,\"budget\":%zu}\n",
		fk_ring.n ? fk_ring.v[fk_snap_peak()].id : 0, fk_ring.bytes, fk_env_get()->snapshot_bytes);
	pthread_mutex_unlock(&fk_ring.lock);
}

