/* SPDX-License-Identifier: MIT */
/* What every format of heap-check's report shows alike: a check's title,
 * sizes in binary units, shares, and a site named by its leaf and callers. */
#include <inttypes.h>
#include <stdio.h>

#include "heapcheck.h"

char *fk_report_size(int64_t v, char *buf, size_t size)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double d = (double)v, a = d < 0 ? -d : d;
	size_t u = 0;

	if (a < 1024) {
		snprintf(buf, size, "%" PRId64 " B", v);
		return buf;
	}
	d /= 1024;
	a /= 1024;
	while (a >= 1024 && u + 1 < sizeof units / sizeof units[0]) {
		d /= 1024;
		a /= 1024;
		u++;
	}
	snprintf(buf, size, "%.1f %s", d, units[u]);
	return buf;
}

char *fk_report_share(int64_t v, int64_t total, char *buf, size_t size)
{
	if (total <= 0)
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%.1f%%", 100.0 * (double)v / (double)total);
	return buf;
}

char *fk_report_title(const struct fk_check *c, char *buf, size_t size)
{
	switch (c->kind) {
	case FK_CHECK_INUSE: snprintf(buf, size, "in use"); break;
	case FK_CHECK_ALLOC: snprintf(buf, size, "allocated"); break;
	case FK_CHECK_GROWTH: snprintf(buf, size, "growth of in use"); break;
	case FK_CHECK_BUDGET:
		snprintf(buf, size, "budget line %" PRIu64 " '%s'", c->lineno, c->pattern);
		break;
	}
	return buf;
}

char *fk_report_site(const char *stack, size_t len, char *buf, size_t size)
{
	size_t e = len, n = 0, k;

	buf[0] = '\0';
	for (k = 0; k < 4 && e > 0; k++) {
		size_t b = e;
		int w;

		while (b > 0 && stack[b - 1] != ';')
			b--;
		w = snprintf(buf + n, size - n, "%s%.*s", k ? " < " : "", (int)(e - b), stack + b);
		if (w < 0 || (size_t)w >= size - n)
			return buf;
		n += (size_t)w;
		e = b ? b - 1 : 0;
		if (b == 0)
			return buf;
	}
	if (e > 0 && n + 6 < size)
		snprintf(buf + n, size - n, " < ...");
	return buf;
}
