/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the profile reader (raw dumps, symbolized profiles,
 * maps) and, on success, the writers, which must not fail. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heapdump.h"
#include "symprof.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
	if (fk_profile_parse(p, copy, size, &err) == 0) {
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
