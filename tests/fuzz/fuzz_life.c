/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the lifetimes reader (core/life.c) in every view. A
 * record that parses gives stacks whose counts are positive and sum to
 * at most its records, sites whose quantiles are ordered, and the same
 * record count in every view; one that does not has a message and an
 * offset inside the input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "life.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A quantile: milliseconds, FK_LIFE_LIVE or FK_LIFE_NONE. */
static double rank(double v)
{
	return v == FK_LIFE_LIVE ? 1e300 : v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* A copy of exactly size bytes, so reads past the end are caught. */
	char *copy = malloc(size ? size : 1);
	uint64_t records = UINT64_MAX;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	for (int v = 0; v < 4; v++) {
		struct fk_life_query q = { (enum fk_life_view)v, 100, 1 };
		struct fk_profile *p = fk_profile_new("fuzz");
		struct fk_life_info info;
		struct fk_err err;
		uint64_t sum = 0;

		if (!p)
			break;
		fk_err_init(&err, "fuzz");
		if (fk_life_parse(p, copy, size, &q, &info, &err) < 0) {
			if (!err.msg[0] || (err.line == 0 && err.offset > size) || info.sites)
				abort();
			fk_profile_free(p);
			break;
		}
		if (records != UINT64_MAX && info.records != records)
			abort();
		records = info.records;
		for (size_t i = 0; i < p->nstacks; i++) {
			const struct fk_life_site *s = &info.sites[i];

			if (p->stacks[i].c.objs <= 0 || p->stacks[i].c.bytes < 0 ||
			    s->records != (uint64_t)p->stacks[i].c.objs || s->live + s->freed != s->records)
				abort();
			if (s->median_ms != FK_LIFE_NONE &&
			    (rank(s->median_ms) > rank(s->p90_ms) || rank(s->p90_ms) > rank(s->max_ms)))
				abort();
			sum += s->records;
		}
		if (sum > info.records || info.live + info.freed != info.records)
			abort();
		fk_life_info_release(&info);
		fk_profile_free(p);
	}
	free(copy);
	return 0;
}
