/* SPDX-License-Identifier: MIT */
/* The input dispatcher (input.h): a profile's first line says its format,
 * and every reader takes the input as (ptr, len), mapped when it is a file. */
#include "input.h"

#include <string.h>

#include "heapdump.h"
#include "io.h"
#include "symprof.h"

int fk_profile_parse(struct fk_profile *p, const char *data, size_t len,
		     struct fk_err *err)
{
	if (len >= 10 && memcmp(data, "--- symbol", 10) == 0)
		return fk_symprof_parse(p, data, len, err);
	return fk_heapdump_parse(p, data, len, err);
}

int fk_profile_load(struct fk_profile *p, const char *path, struct fk_err *err)
{
	char *data;
	size_t len;
	int mapped;

	if (fk_map_text_input(path, &data, &len, &mapped, err) < 0)
		return -1;
	fk_profile_own_input(p, data, len, mapped);
	return fk_profile_parse(p, data, len, err);
}
