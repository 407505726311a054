/* SPDX-License-Identifier: MIT */
/* libFuzzer target: malloc_stats_print's JSON reader (core/jestats.c)
 * and the waste estimate over what it read (core/waste.c). Statistics
 * that parse have classes of growing sizes whose regions in use fit their
 * slabs, and an estimate that lays to sites no more than a class's waste;
 * a failure has a message and an offset inside the input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jestats.h"
#include "waste.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy = malloc(size ? size : 1);
	struct fk_jestats st;
	struct fk_waste w;
	struct fk_err err;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	fk_jestats_init(&st);
	fk_err_init(&err, "fuzz");
	if (fk_jestats_parse(&st, copy, size, &err) < 0) {
		if (!err.msg[0] || (err.offset != UINT64_MAX && err.offset > size))
			abort();
	} else {
		for (size_t c = 0; c < st.nbins; c++)
			if ((c && st.bins[c].size <= st.bins[c - 1].size) ||
			    st.bins[c].curregs > st.bins[c].curslabs * st.bins[c].nregs)
				abort();
		if (fk_waste_compute(&w, &st, NULL, NULL, &err) == 0) {
			for (size_t k = 0; k < w.nclasses; k++)
				if (w.classes[k].attributed > (double)w.classes[k].waste + 1)
					abort();
			fk_waste_release(&w);
		}
	}
	fk_jestats_release(&st);
	free(copy);
	return 0;
}
