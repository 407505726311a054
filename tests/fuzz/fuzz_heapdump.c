/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the profile reader (raw dumps, symbolized profiles,
 * maps) and, on success, the writers, which must not fail; and the same
 * input read again through a stack memo kept from input to input (the
 * hook's, core/stackmemo.h), which must read what the reader read. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heapdump.h"
#include "stackmemo.h"
#include "symprof.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Reads copy[0..size) through one memo kept for the whole run and checks
 * it against p, the plain reader's result (NULL when it failed). */
static void check_memo(const char *copy, size_t size, const struct fk_profile *p)
{
	static struct fk_stackmemo *m;
	struct fk_profile *q;
	struct fk_err err;
	int rc;

	if (size < 8 || memcmp(copy, "heap_v2/", 8) != 0)
		return;
	if (!m && !(m = fk_stackmemo_new((size_t)1 << 20)))
		return;
	if (!(q = fk_profile_new("fuzz")))
		return;
	fk_err_init(&err, "fuzz");
	rc = fk_heapdump_parse_memo(q, copy, size, m, &err);
	if ((rc == 0) != (p != NULL))
		abort();
	if (rc == 0 && p->nstacks != q->nstacks)
		abort();
	for (size_t i = 0; rc == 0 && i < p->nstacks; i++) {
		const struct fk_stack *a = &p->stacks[i], *b = &q->stacks[i];

		if (a->depth != b->depth ||
		    (a->depth && memcmp(a->addrs, b->addrs, a->depth * sizeof *a->addrs) != 0))
			abort();
	}
	fk_profile_free(q);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fk_profile *p = fk_profile_new("fuzz");
	struct fk_err err;
	char *copy = malloc(size + 1);
	FILE *devnull;

	if (!p || !copy) {
		free(copy);
		fk_profile_free(p);
		return 0;
	}
	memcpy(copy, data, size);
	copy[size] = '\0';
	fk_profile_own(p, copy);
	fk_err_init(&err, "fuzz");
	if (fk_profile_parse(p, copy, size, &err) != 0) {
		check_memo(copy, size, NULL);
	} else {
		check_memo(copy, size, p);
		struct fk_values t = fk_profile_totals(p);

		if (t.objs != t.objs || t.bytes != t.bytes)
			abort();
		devnull = fopen("/dev/null", "w");
		if (devnull) {
			if (fk_symprof_write(p, devnull, &err) < 0)
				abort();
			fclose(devnull);
		}
	}
	fk_profile_free(p);
	return 0;
}
