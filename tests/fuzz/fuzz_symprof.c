/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the symbolized-profile reader (fk_profile_parse on
 * inputs that start with "--- symbol"). Whatever it accepts must write back
 * and read again to the same symbols. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symprof.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct fk_profile *parse(const char *buf, size_t len, char *copy)
{
	struct fk_profile *p = fk_profile_new("fuzz");
	struct fk_err err;

	if (!p) {
		free(copy);
		return NULL;
	}
	memcpy(copy, buf, len);
	copy[len] = '\0';
	fk_profile_own(p, copy);
	fk_err_init(&err, "fuzz");
	if (fk_profile_parse(p, copy, len, &err) < 0) {
		fk_profile_free(p);
		return NULL;
	}
	return p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char head[] = "--- symbol\n";
	size_t hl = sizeof head - 1, len;
	char *buf, *out = NULL;
	size_t outlen = 0;

	/* Keep the fuzzer inside the symbol section's grammar: inputs that
	 * do not open one get its first line. */
	if (size >= hl && memcmp(data, head, hl) == 0)
		hl = 0;
	len = size + hl;
	buf = malloc(len + 1);
	if (!buf)
		return 0;
	memcpy(buf, head, hl);
	memcpy(buf + hl, data, size);
	struct fk_profile *p = parse(buf, len, malloc(len + 1));
	free(buf);
	if (!p)
		return 0;
	FILE *f = open_memstream(&out, &outlen);
	struct fk_err err;
	fk_err_init(&err, "fuzz");
	if (!f || fk_symprof_write(p, f, &err) < 0)
		abort();
	fclose(f);
	struct fk_profile *q = parse(out, outlen, malloc(outlen + 1));
	if (!q || q->nsyms != p->nsyms || q->nstacks != p->nstacks)
		abort();
	for (size_t i = 0; i < p->nsyms; i++)
		if (q->syms[i].key != p->syms[i].key ||
		    q->syms[i].nframes != p->syms[i].nframes)
			abort();
	free(out);
	fk_profile_free(q);
	fk_profile_free(p);
	return 0;
}
