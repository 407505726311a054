/* SPDX-License-Identifier: MIT */
/* Legacy heap and growth profiles ("heap profile: N: S [AN: AS] @ TYPE")
 * as pprof: read by core's dump readers (heapdump.c, heapdump_gperf.c), then
 * valued as google/pprof's parseHeap values them (profile/legacy_profile.go):
 * alloc_* and inuse_* when the header's two pairs differ, else objects and
 * space; every sampled pair scaled by 1/(1-exp(-(S/N)/R)) and truncated to an
 * integer; every address less one (it points after its call). */
#include "encode_int.h"

#include <math.h>
#include <stdlib.h>

#include "heapdump.h"
#include "profile.h"

/* pprof's scaleHeapSample: rate <= 1 is not sampled. */
static void scale(int64_t *count, int64_t *size, uint64_t rate)
{
	double f;

	if (*count == 0 || *size == 0) {
		*count = 0;
		*size = 0;
		return;
	}
	if (rate <= 1)
		return;
	f = 1.0 / (1.0 - exp(-((double)*size / (double)*count) / (double)rate));
	*count = (int64_t)((double)*count * f);
	*size = (int64_t)((double)*size * f);
}

/* One (count, size) pair: the label's block size, then scaled. */
static void pair(int64_t count, int64_t size, uint64_t rate, int64_t *out, int64_t *bytes)
{
	if (count != 0) {
		*bytes = size / count;
		scale(&count, &size, rate);
	}
	out[0] = count;
	out[1] = size;
}

int fk_legacy_heap(const char *data, size_t len, uint8_t **out, size_t *outlen,
		    struct fk_err *err)
{
	struct fk_profile *p = fk_profile_new("legacy");
	struct fk_lb *b = fk_lb_new();
	uint64_t addrs[FK_MAX_DEPTH + 1];
	int64_t v[4];
	int alloc, rc = -1;
	size_t i, j;

	if (!p || !b) {
		fk_err_set(err, FK_ENOMEM, 0, "out of memory");
		goto out;
	}
	if (fk_heapdump_parse(p, data, len, err) < 0)
		goto out;
	/* Go compares the header's pairs; a growth profile has one pair. */
	alloc = p->format != FK_FMT_GROWTH &&
		((p->header.acc_objs != p->header.objs && p->header.acc_objs != 0) ||
		 (p->header.acc_bytes != p->header.bytes && p->header.acc_bytes != 0));
	if ((alloc && (fk_lb_type(b, "alloc_objects", "count", err) < 0 ||
		       fk_lb_type(b, "alloc_space", "bytes", err) < 0 ||
		       fk_lb_type(b, "inuse_objects", "count", err) < 0 ||
		       fk_lb_type(b, "inuse_space", "bytes", err) < 0)) ||
	    (!alloc && (fk_lb_type(b, "objects", "count", err) < 0 ||
			fk_lb_type(b, "space", "bytes", err) < 0)) ||
	    fk_lb_period(b, "space", "bytes", p->period ? (int64_t)p->period : 1, 0, err) < 0)
		goto out;
	for (i = 0; i < p->nstacks; i++) {
		const struct fk_stack *s = &p->stacks[i];
		int64_t bytes = 0;

		/* go tool pprof (1.19) shows no sample of a bare "@" line: its
		 * totals leave them out (gobench.heap's "1: 288 [2: 296] @"). */
		if (s->depth == 0)
			continue;
		if (alloc) {
			pair(s->c.acc_objs, s->c.acc_bytes, p->period, v, &bytes);
			pair(s->c.objs, s->c.bytes, p->period, v + 2, &bytes);
		} else {
			pair(s->c.objs, s->c.bytes, p->period, v, &bytes);
		}
		for (j = 0; j < s->depth && j <= FK_MAX_DEPTH; j++)
			addrs[j] = s->addrs[j] - 1;
		if (fk_lb_sample(b, v, addrs, j, bytes, 0, err) < 0)
			goto out;
	}
	if (p->nmaps) {
		/* core parsed the maps already; hand their text to the builder. */
		if (fk_lb_maps(b, p->maps_text, p->maps_len, 1, err) < 0)
			goto out;
	}
	rc = fk_lb_finish(b, out, outlen, err);
out:
	fk_lb_free(b);
	fk_profile_free(p);
	return rc;
}
