/* SPDX-License-Identifier: MIT */
/* Reading and writing the "# series:" lines of a multi-column folded file
 * (series.h; the format is in man/render-flame.1, "Series"). */
#include <stdio.h>
#include <string.h>

#include "num.h"
#include "series.h"

const char *const fk_series_keys[FK_SER_NSTATS] = {
	"allocated", "active", "resident", "mapped", "retained", "metadata", "rss",
	"hook", "sampling", "tcache", "slab_holes", "slab_tails", "large_pad", "dirty",
	"muzzy", "metadata_resident", "files", "waste",
};

static const char tag[] = "# series:";

void fk_series_meta_init(struct fk_snapmeta *m, const char *id)
{
	size_t n = strlen(id), i;

	if (n > FK_MAX_COLUMN_NAME)
		n = FK_MAX_COLUMN_NAME;
	memcpy(m->id, id, n);
	m->id[n] = 0;
	m->time_ns = -1;
	for (i = 0; i < FK_SER_NSTATS; i++)
		m->stat[i] = -1;
}

int fk_series_is_line(const char *s, size_t n)
{
	return n >= sizeof tag - 1 && memcmp(s, tag, sizeof tag - 1) == 0;
}

static int id_char(int c)
{
	return ((unsigned)c | 32) - 'a' < 26 || (unsigned)c - '0' < 10 ||
	    (c && strchr("_.:-", c));
}

/* Seconds with up to 9 decimals, as nanoseconds. */
static int parse_time(const char *s, size_t n, int64_t *out)
{
	const char *dot = memchr(s, '.', n);
	size_t ni = dot ? (size_t)(dot - s) : n, nf = dot ? n - ni - 1 : 0, i;
	uint64_t sec, frac = 0;

	if (fk_parse_u64(s, ni, &sec) < 0 || nf > 9 || (dot && nf == 0) ||
	    (nf && fk_parse_u64(dot + 1, nf, &frac) < 0) || sec > INT64_MAX / 1000000000 - 1)
		return -1;
	for (i = nf; i < 9; i++)
		frac *= 10;
	*out = (int64_t)(sec * 1000000000 + frac);
	return 0;
}

int fk_series_parse(const char *s, size_t n, uint64_t lineno,
		    struct fk_snapmeta *m, struct fk_err *err)
{
	const char *p, *e = s + n;
	char q[64];
	int first = 1;

	if (!fk_series_is_line(s, n))
		return fk_err_set(err, FK_ESYNTAX, lineno, "expected a '# series:' line");
	if (e > s && e[-1] == '\r')
		e--;
	fk_series_meta_init(m, "");
	for (p = s + sizeof tag - 1; p < e;) {
		const char *f, *eq;
		size_t i;

		while (p < e && (*p == ' ' || *p == '\t'))
			p++;
		if (p == e)
			break;
		for (f = p; p < e && *p != ' ' && *p != '\t'; p++)
			;
		fk_err_quote(q, sizeof q, f, (size_t)(p - f));
		if (first) {
			const char *c;
			first = 0;
			if ((size_t)(p - f) > FK_MAX_COLUMN_NAME)
				return fk_err_set(err, FK_ELIMIT, lineno,
						  "snapshot id longer than %d bytes", FK_MAX_COLUMN_NAME);
			for (c = f; c < p; c++)
				if (!id_char(*c))
					return fk_err_set(err, FK_ESYNTAX, lineno,
							  "bad snapshot id '%s'", q);
			memcpy(m->id, f, (size_t)(p - f));
			m->id[p - f] = 0;
			continue;
		}
		eq = memchr(f, '=', (size_t)(p - f));
		if (!eq || eq == f)
			return fk_err_set(err, FK_ESYNTAX, lineno, "bad series field '%s'", q);
		if ((size_t)(eq - f) == 4 && memcmp(f, "time", 4) == 0) {
			if (parse_time(eq + 1, (size_t)(p - eq - 1), &m->time_ns) < 0)
				return fk_err_set(err, FK_ESYNTAX, lineno, "bad time '%s'", q);
			continue;
		}
		for (i = 0; i < FK_SER_NSTATS; i++)
			if (strlen(fk_series_keys[i]) == (size_t)(eq - f) &&
			    memcmp(f, fk_series_keys[i], (size_t)(eq - f)) == 0)
				break;
		if (i < FK_SER_NSTATS) {
			if (fk_parse_i64(eq + 1, (size_t)(p - eq - 1), &m->stat[i]) < 0 ||
			    m->stat[i] < 0)
				return fk_err_set(err, FK_ESYNTAX, lineno, "bad value in '%s'", q);
			continue;
		}
		/* An unknown figure: a lowercase key and a number, else an error. */
		{
			const char *c;
			int64_t ignored;
			for (c = f; c < eq; c++)
				if (!((unsigned)*c - 'a' < 26 || *c == '_'))
					return fk_err_set(err, FK_ESYNTAX, lineno,
							  "bad series field '%s'", q);
			if (fk_parse_i64(eq + 1, (size_t)(p - eq - 1), &ignored) < 0 &&
			    parse_time(eq + 1, (size_t)(p - eq - 1), &ignored) < 0)
				return fk_err_set(err, FK_ESYNTAX, lineno, "bad value in '%s'", q);
		}
	}
	if (!m->id[0])
		return fk_err_set(err, FK_ESYNTAX, lineno, "no snapshot id in '# series:' line");
	return 0;
}

size_t fk_series_format(char *buf, size_t size, const struct fk_snapmeta *m)
{
	size_t n = 0, i;
	int k;

#define PUT(...) do { k = snprintf(buf + n, n < size ? size - n : 0, __VA_ARGS__); \
		if (k > 0) n += (size_t)k; } while (0)
	PUT("# series: %s", m->id);
	if (m->time_ns >= 0)
		PUT(" time=%lld.%03lld", (long long)(m->time_ns / 1000000000),
		    (long long)(m->time_ns % 1000000000 / 1000000));
	for (i = 0; i < FK_SER_NSTATS; i++)
		if (m->stat[i] >= 0)
			PUT(" %s=%lld", fk_series_keys[i], (long long)m->stat[i]);
	PUT("\n");
#undef PUT
	return n < size ? n : size ? size - 1 : 0;
}
