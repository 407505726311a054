/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the waste estimate over a heap dump (core/waste.c
 * with core/heapdump.c's reader) and fixed statistics (a 64-byte class of
 * 64 regions with holes, a 4096-byte one full), each stack also split
 * by a record of two sizes made from its bytes. Every site's waste is
 * finite and not negative, a site that freed nothing in a small class is
 * blamed for nothing, and no class gets more than its waste. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "input.h"
#include "jestats.h"
#include "waste.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy = malloc(size ? size : 1);
	struct fk_profile *p = fk_profile_new("fuzz");
	struct fk_jestats st;
	struct fk_waste w;
	struct fk_waste_split *sp = NULL;
	struct fk_err err;
	int parsed;

	if (!copy || !p) {
		free(copy);
		fk_profile_free(p);
		return 0;
	}
	memcpy(copy, data, size);
	fk_jestats_init(&st);
	fk_err_init(&err, "fuzz");
	if (fk_jestats_classes(&st, 2, 1, &err) < 0)
		abort();
	st.stats = st.have_bins = 1;
	st.page = 4096;
	st.cache_oblivious = 1;
	st.bins[0] = (struct fk_jestats_bin){ 64, 64, 4096, 1000, 100, 90 };
	st.bins[1] = (struct fk_jestats_bin){ 4096, 1, 4096, 7, 7, 0 };
	st.lext[0] = (struct fk_jestats_lext){ 16384, 3 };
	/* A record of sizes for the dump's stacks, from its own bytes (the
	 * split, waste_split.c): two records a stack, one of them freed. */
	parsed = fk_profile_parse(p, copy, size, &err) == 0;
	if (parsed && (sp = fk_waste_split_new(&st, p))) {
		for (size_t i = 0; i < p->nstacks && i < 256; i++) {
			const struct fk_stack *k = &p->stacks[i];
			uint64_t u = (uint64_t)(k->c.bytes > 0 ? k->c.bytes : 0) % 40000;

			if (fk_waste_split_add(sp, u, (int)(i & 1), k->addrs, k->depth) < 0 ||
			    fk_waste_split_add(sp, u / 3 + 1, 1, k->addrs, k->depth) < 0)
				break;
		}
	}
	if (parsed && fk_waste_compute_split(&w, &st, p, NULL, sp, &err) == 0) {
		for (size_t i = 0; i < w.nsites; i++) {
			const struct fk_waste_site *s = &w.sites[i];

			if (!isfinite(s->waste) || s->waste < 0 ||
			    (s->bin >= 0 && s->freed_objs <= 0 && s->waste != 0))
				abort();
		}
		for (size_t k = 0; k < w.nclasses; k++)
			if (w.classes[k].attributed > (double)w.classes[k].waste * (1 + 1e-9) + 1)
				abort();
		fk_waste_apply(p, &w);
		fk_waste_release(&w);
	}
	fk_waste_split_free(sp);
	fk_jestats_release(&st);
	fk_profile_free(p);
	free(copy);
	return 0;
}
