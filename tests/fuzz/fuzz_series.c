/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the "# series:" lines of a series file (core/series.c).
 * Every line that starts with the tag is parsed; one that parses has a
 * valid id and known figures, and what fk_series_format writes of it
 * parses back to the same (the time to the millisecond written); one that
 * does not has an error at its line. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "series.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const char *s, size_t n, uint64_t lineno)
{
	struct fk_snapmeta m, back;
	struct fk_err err;
	char buf[FK_SERIES_LINE_MAX];
	size_t len;

	fk_err_init(&err, "fuzz");
	if (fk_series_parse(s, n, lineno, &m, &err) < 0) {
		if (err.line != lineno || !err.msg[0])
			abort();
		return;
	}
	len = strlen(m.id);
	if (len == 0 || len > FK_MAX_COLUMN_NAME)
		abort();
	for (size_t i = 0; i < len; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:-", m.id[i]))
			abort();
	if (m.time_ns < -1)
		abort();
	for (int i = 0; i < FK_SER_NSTATS; i++)
		if (m.stat[i] < -1)
			abort();
	len = fk_series_format(buf, sizeof buf, &m);
	if (len == 0 || len >= sizeof buf || buf[len - 1] != '\n')
		abort();
	if (fk_series_parse(buf, len - 1, 1, &back, &err) < 0)
		abort();
	if (strcmp(back.id, m.id) != 0 ||
	    back.time_ns != (m.time_ns < 0 ? -1 : m.time_ns / 1000000 * 1000000))
		abort();
	for (int i = 0; i < FK_SER_NSTATS; i++)
		if (back.stat[i] != m.stat[i])
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* A copy of exactly size bytes, so reads past the end are caught. */
	char *copy = malloc(size ? size : 1);
	const char *s, *end;
	uint64_t lineno = 0;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	for (s = copy, end = copy + size; s < end;) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);

		lineno++;
		if (fk_series_is_line(s, n))
			check(s, n, lineno);
		s = nl ? nl + 1 : end;
	}
	free(copy);
	return 0;
}
