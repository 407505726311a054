/* SPDX-License-Identifier: MIT */
/* A series input's timeline (render_int.h, "timeline.c"): the "# series:"
 * lines after the "# columns:" header (core/series.h), kept for the page,
 * and written as the page's #fkseries data, which flame-timeline.js draws
 * as a chart of memory over time above the flame graph. */
#include <stdlib.h>
#include <string.h>

#include <libxml/xmlwriter.h>

#include "render_int.h"

void fk_series_release(struct fk_series *s)
{
	free(s->m);
	s->m = NULL;
	s->n = 0;
}

/* Length of the line at data[0..len) with its newline; the line itself
 * (without newline) in *ll. */
static size_t line_at(const char *data, size_t len, size_t *ll)
{
	const char *nl = memchr(data, '\n', len);

	*ll = nl ? (size_t)(nl - data) : len;
	return nl ? *ll + 1 : len;
}

size_t fk_series_header_len(const char *data, size_t len)
{
	static const char tag[] = "# columns:";
	size_t off = 0, ll, k;

	if (len < sizeof tag - 1 || memcmp(data, tag, sizeof tag - 1) != 0)
		return 0;
	off = line_at(data, len, &ll);
	while (off < len) {
		k = line_at(data + off, len - off, &ll);
		if (!fk_series_is_line(data + off, ll))
			break;
		off += k;
	}
	return off;
}

long fk_series_read(struct fk_series *s, const char *data, size_t len,
		    uint32_t ncols, uint64_t *lineno, struct fk_err *err)
{
	size_t off = 0, ll, k;

	while (off < len) {
		struct fk_snapmeta *m;

		k = line_at(data + off, len - off, &ll);
		if (!fk_series_is_line(data + off, ll))
			break;
		++*lineno;
		if (s->n >= ncols)
			return fk_err_set(err, FK_ESYNTAX, *lineno,
					  "more '# series:' lines than columns (%u)", ncols);
		if (!s->m && !(s->m = calloc(ncols, sizeof *s->m)))
			return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
		m = &s->m[s->n];
		if (fk_series_parse(data + off, ll, *lineno, m, err) < 0)
			return -1;
		s->n++;
		off += k;
	}
	if (s->n && s->n != ncols)
		return fk_err_set(err, FK_ESYNTAX, *lineno,
				  "%u '# series:' lines for %u columns", s->n, ncols);
	return (long)off;
}

/* One number of the JSON, or null when unknown (< 0). */
static int num(struct fk_buf *b, const char *key, int64_t v)
{
	if (fk_buf_adds(b, ",\"") < 0 || fk_buf_adds(b, key) < 0 || fk_buf_adds(b, "\":") < 0)
		return -1;
	return v < 0 ? fk_buf_adds(b, "null") : fk_buf_add_i64(b, v);
}

int fk_series_write(const struct fk_series *s, struct _xmlTextWriter *w, struct fk_buf *b)
{
	uint32_t i, k;

	b->len = 0;
	if (fk_buf_adds(b, "[") < 0)
		return -2;
	for (i = 0; i < s->n; i++) {
		const struct fk_snapmeta *m = &s->m[i];
		char t[48];

		/* The id is [A-Za-z0-9_.:-] (series.c): safe in JSON and in
		 * XML text, like the numbers and fixed keys around it. */
		if (fk_buf_adds(b, i ? ",\n{\"id\":\"" : "\n{\"id\":\"") < 0 ||
		    fk_buf_adds(b, m->id) < 0 || fk_buf_adds(b, "\",\"time\":") < 0)
			return -2;
		if (m->time_ns < 0)
			strcpy(t, "null");
		else
			snprintf(t, sizeof t, "%lld.%09lld", (long long)(m->time_ns / 1000000000),
				 (long long)(m->time_ns % 1000000000));
		if (fk_buf_adds(b, t) < 0)
			return -2;
		for (k = 0; k < FK_SER_NSTATS; k++)
			if (num(b, fk_series_keys[k], m->stat[k]) < 0)
				return -2;
		if (fk_buf_adds(b, "}") < 0)
			return -2;
	}
	if (fk_buf_adds(b, "\n]") < 0)
		return -2;
	if (xmlTextWriterStartElement(w, BAD_CAST "metadata") < 0 ||
	    xmlTextWriterWriteAttribute(w, BAD_CAST "id", BAD_CAST "fkseries") < 0 ||
	    xmlTextWriterWriteRawLen(w, BAD_CAST b->p, (int)b->len) < 0 ||
	    xmlTextWriterEndElement(w) < 0 ||
	    xmlTextWriterWriteRaw(w, BAD_CAST "\n") < 0)
		return -1;
	return 0;
}
