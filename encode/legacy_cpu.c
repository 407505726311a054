/* SPDX-License-Identifier: MIT */
/* The binary CPU profile of gperftools' profiler and Google's Java agent
 * (google/pprof profile/legacy_profile.go parseCPU, legacy_java_profile.go
 * javaCPUProfile): words of 32 or 64 bits in either byte order; a header
 * 0, 3, 0 (C++) or 1 (Java), the period in microseconds, 0; then records
 * "count, depth, PC..." up to the record 0, 1, 0; then the memory map
 * (C++) or the names of the addresses (Java). Values: samples/count and
 * cpu/nanoseconds (count times the period). */
#include "encode_int.h"

#include <stdlib.h>
#include <string.h>

#include "limits.h"
#include "u64map.h"

struct words {
	const unsigned char *p, *end;
	int size, big;
};

/* The next word into *v; 0 at the end of the data. */
static int word(struct words *w, uint64_t *v)
{
	int i;

	if (w->end - w->p < w->size)
		return 0;
	*v = 0;
	for (i = 0; i < w->size; i++)
		*v |= (uint64_t)w->p[w->big ? w->size - 1 - i : i] << (8 * i);
	w->p += w->size;
	return 1;
}

/* Finds the encoding whose header reads 0, 3, 0|1, period > 0, 0; returns
 * 1 (C++) or 2 (Java) with *w after the header, or 0. */
static int header(const unsigned char *data, size_t len, struct words *w, uint64_t *period)
{
	static const int sizes[4] = { 4, 4, 8, 8 }, bigs[4] = { 0, 1, 0, 1 };
	uint64_t h[5];
	int k, i;

	for (k = 0; k < 4; k++) {
		w->p = data;
		w->end = data + len;
		w->size = sizes[k];
		w->big = bigs[k];
		for (i = 0; i < 5 && word(w, &h[i]); i++)
			;
		if (i == 5 && h[0] == 0 && h[1] == 3 && h[2] <= 1 && h[3] > 0 && h[4] == 0) {
			*period = h[3];
			return (int)h[2] + 1;
		}
	}
	return 0;
}

int fk_legacy_is_cpu(const unsigned char *data, size_t len)
{
	struct words w;
	uint64_t period;

	return header(data, len, &w, &period) != 0;
}

/* gperftools' profiler puts its own signal frame second in most stacks:
 * when all but one in 32 samples share the second address, pprof drops it
 * from all, twice over (cpuProfile). */
static int strip_handler_frames(struct fk_lb *b, struct fk_err *err)
{
	size_t ns = fk_lb_nsamples(b), margin = ns / 32, i, n;
	int iter;

	for (iter = 0; iter < 2; iter++) {
		struct fk_u64map counts;
		uint64_t found = 0;
		int have = 0;

		fk_u64map_init(&counts);
		for (i = 0; i < ns && !have; i++) {
			uint64_t *a = fk_lb_addrs(b, i, &n);
			uint32_t c;

			if (n < 2)
				continue;
			c = fk_u64map_get(&counts, a[1]);
			c = c == UINT32_MAX ? 1 : c + 1;
			if (fk_u64map_put(&counts, a[1], c) < 0) {
				fk_u64map_release(&counts);
				return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
			}
		}
		/* pprof takes the first address it meets in a map's order with
		 * enough samples; at most one address can have that many. */
		for (i = 0; i < ns; i++) {
			uint64_t *a = fk_lb_addrs(b, i, &n);
			uint32_t c;

			if (n < 2)
				continue;
			c = fk_u64map_get(&counts, a[1]);
			if (c != UINT32_MAX && (size_t)c + margin >= ns) {
				found = a[1];
				have = 1;
				break;
			}
		}
		fk_u64map_release(&counts);
		if (!have)
			continue;
		for (i = 0; i < ns; i++) {
			uint64_t *a = fk_lb_addrs(b, i, &n);

			if (n > 1 && a[1] == found) {
				memmove(a + 1, a + 2, (n - 2) * sizeof *a);
				fk_lb_set_depth(b, i, n - 1);
			}
		}
	}
	return 0;
}

/* The leaf may come twice, from the signal context and the unwinder, the
 * second less one (pprof's cleanupDuplicateLocations). */
static void drop_duplicate_leaves(struct fk_lb *b)
{
	size_t i, n, ns = fk_lb_nsamples(b);

	for (i = 0; i < ns; i++) {
		uint64_t *a = fk_lb_addrs(b, i, &n);

		if (n > 1 && a[0] == a[1] + 1) {
			memmove(a + 1, a + 2, (n - 2) * sizeof *a);
			fk_lb_set_depth(b, i, n - 1);
		}
	}
}

/* An error at line L of the text after the samples, told as the byte
 * offset of that line in the file: a binary file has no lines. */
static void text_error_offset(struct fk_err *err, const unsigned char *text,
			      const unsigned char *end, size_t base)
{
	const unsigned char *p = text;
	uint64_t line = 1;

	if (!err || err->line == 0)
		return;
	while (p < end && line < err->line)
		if (*p++ == '\n')
			line++;
	err->offset = base + (size_t)(p - text);
	err->line = 0;
}

int fk_legacy_cpu(const unsigned char *data, size_t len, uint8_t **out,
		  size_t *outlen, struct fk_err *err)
{
	struct fk_lb *b = fk_lb_new();
	uint64_t *addrs = malloc(FK_MAX_DEPTH_ANY * sizeof *addrs);
	struct words w;
	uint64_t period, count, depth, i;
	int64_t v[2];
	int kind, rc = -1;

	if (!b || !addrs) {
		fk_err_set(err, FK_ENOMEM, 0, "out of memory");
		goto out;
	}
	kind = header(data, len, &w, &period);
	if (period > INT64_MAX / 1000) {
		fk_err_set_off(err, FK_ESYNTAX, 0, "bad period '%llu'", (unsigned long long)period);
		goto out;
	}
	if (fk_lb_type(b, "samples", "count", err) < 0 ||
	    fk_lb_type(b, "cpu", "nanoseconds", err) < 0 ||
	    fk_lb_period(b, "cpu", "nanoseconds", (int64_t)period * 1000, 0, err) < 0)
		goto out;
	while (w.p < w.end) {
		size_t off = (size_t)(w.p - data);

		if (!word(&w, &count) || !word(&w, &depth) ||
		    depth > (uint64_t)(w.end - w.p) / (uint64_t)w.size) {
			fk_err_set_off(err, FK_ESYNTAX, off, "truncated sample record");
			goto out;
		}
		if (depth > FK_MAX_DEPTH_ANY) {
			fk_err_set_off(err, FK_ELIMIT, off, "stack deeper than %d frames",
				       FK_MAX_DEPTH_ANY);
			goto out;
		}
		for (i = 0; i < depth; i++) {
			word(&w, &addrs[i]);
			/* A caller's address points after its call (C++ only). */
			if (kind == 1 && i > 0)
				addrs[i]--;
		}
		if (count == 0 && depth == 1 && addrs[0] == 0)
			break;         /* the end of the samples */
		if (count > (uint64_t)INT64_MAX / (period * 1000)) {
			fk_err_set_off(err, FK_ESYNTAX, off, "sample count '%llu' overflows",
				       (unsigned long long)count);
			goto out;
		}
		v[0] = (int64_t)count;
		v[1] = (int64_t)(count * period * 1000);
		if (fk_lb_sample(b, v, addrs, (size_t)depth, -1, 0, err) < 0)
			goto out;
	}
	if (kind == 1) {
		if (strip_handler_frames(b, err) < 0)
			goto out;
		if (fk_lb_maps(b, (const char *)w.p, (size_t)(w.end - w.p), 1, err) < 0) {
			text_error_offset(err, w.p, w.end, (size_t)(w.p - data));
			goto out;
		}
		drop_duplicate_leaves(b);
	} else if (fk_legacy_java_names(b, (const char *)w.p, (size_t)(w.end - w.p), 1, err) < 0) {
		text_error_offset(err, w.p, w.end, (size_t)(w.p - data));
		goto out;
	}
	rc = fk_lb_finish(b, out, outlen, err);
out:
	free(addrs);
	fk_lb_free(b);
	return rc;
}
