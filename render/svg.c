/* SPDX-License-Identifier: MIT */
/* Writes a laid-out flame graph as one self-contained SVG page through
 * libxml2's xmlTextWriter (SVG 1.1): every string from the input or the
 * options is cleaned to valid XML characters and escaped by the writer. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libxml/xmlwriter.h>

#include "bigmem.h"
#include "render_int.h"



static double frame_y(const struct fk_geom *g, uint32_t depth)
{
	if (g->inverted)
		return g->ypad1 + depth * g->fh;
	return g->H - g->ypad2 - (depth + 1) * g->fh;
}

static int64_t tenths(double v)
{
	return (int64_t)llround(v * 10.0);
}

/* The shade of a frame: FNV-1a over the first 64 bytes of its cleaned
 * name, mixed with its depth unless --hash, then murmur3's finaliser.
 * flame.js computes the same, so the page's redrawn frames keep their
 * colours. */
static unsigned shade(const char *s, size_t n, uint32_t depth, int hash)
{
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < n && i < 64; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	if (!hash)
		h ^= depth * 0x9e3779b9u;
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h % FK_SHADES;
}

/* The differential step of a change from base b to new v (both >= 0, b
 * already scaled when normalising): log2(v / b) in bands, so x3 and /3 get
 * the same depth of opposite colours whatever the frame's size. A frame
 * that appeared or vanished takes the deepest step. flame.js has the same
 * bands. */
static int diff_step(double v, double b)
{
	static const double band[FK_DIFF_STEPS] = { 0.05, 0.25, 0.6, 1.2, 2.2 };
	double r;
	int k;

	if (v == b)
		return 0;
	if (b <= 0)
		return FK_DIFF_STEPS;
	if (v <= 0)
		return -FK_DIFF_STEPS;
	r = log2(v / b);
	for (k = 0; k < FK_DIFF_STEPS; k++)
		if (fabs(r) < band[k])
			break;
	return r < 0 ? -k : k;
}

/* The CSS class of a frame: a shade picked from the name (and depth unless
 * --hash), or the differential step of its change. */
static void frame_class(const struct fk_emit *e, const struct fk_efr *f, char cls[8])
{
	if (f->node == NO_NODE) {
		strcpy(cls, "m");
	} else if (e->diff) {
		int step = diff_step((double)f->v, (double)f->bv * e->bnorm);
		if (step == 0) {
			strcpy(cls, "d0");
			return;
		}
		snprintf(cls, 8, "%c%d", ((step > 0) != !!e->o->negate) ? 'r' : 'b',
			 step < 0 ? -step : step);
	} else {
		const char *nm = fk_emit_name(e, f->name);
		snprintf(cls, 8, "c%u", shade(nm, strlen(nm), f->depth, e->o->hash));
	}
}

/* libxml2 reports its own errors on stderr; the library reports through
 * fk_err only, so they are silenced while the writer runs. */
/* Whether a font-family list ends in a generic family (CSS Fonts 4). */
static int has_generic(const char *list)
{
	static const char *const gen[] = { "serif", "sans-serif", "monospace", "cursive",
		"fantasy", "system-ui", "ui-sans-serif", "ui-serif", "ui-monospace" };
	const char *last = strrchr(list, ',');
	size_t k, len;

	last = last ? last + 1 : list;
	while (*last == ' ' || *last == '\t')
		last++;
	len = strlen(last);
	while (len && (last[len - 1] == ' ' || last[len - 1] == '\t'))
		len--;
	for (k = 0; k < sizeof gen / sizeof gen[0]; k++)
		if (strlen(gen[k]) == len && strncasecmp(last, gen[k], len) == 0)
			return 1;
	return 0;
}

static void quiet(void *ctx, const char *msg, ...)
{
	(void)ctx;
	(void)msg;
}

static int wr_cb(void *ctx, const char *buf, int len)
{
	FILE *fp = ctx;

	if (len > 0 && fwrite(buf, 1, (size_t)len, fp) != (size_t)len)
		return -1;
	return len;
}

#define X(call) do { if ((call) < 0) goto fail; } while (0)
#define BC(call) do { if ((call) < 0) goto nomem; } while (0)
/* A part's result: -1 a write error, -2 out of memory. */
#define H(call) do { int h_ = (call); if (h_ == -2) goto nomem; if (h_ < 0) goto fail; } while (0)

/* Writes a <text> with attributes and cleaned content through the writer. */
static int text_el(xmlTextWriterPtr w, struct fk_buf *tmp, const char *id,
		   const char *cls, double x, double y, const char *anchor,
		   const char *content)
{
	char num[32];

	tmp->len = 0;
	if (fk_buf_add_clean(tmp, content, strlen(content)) < 0 || fk_buf_add(tmp, "", 1) < 0)
		return -1;
	if (xmlTextWriterStartElement(w, BAD_CAST "text") < 0)
		return -1;
	if (id && xmlTextWriterWriteAttribute(w, BAD_CAST "id", BAD_CAST id) < 0)
		return -1;
	if (cls && xmlTextWriterWriteAttribute(w, BAD_CAST "class", BAD_CAST cls) < 0)
		return -1;
	snprintf(num, sizeof num, "%.1f", x);
	if (xmlTextWriterWriteAttribute(w, BAD_CAST "x", BAD_CAST num) < 0)
		return -1;
	snprintf(num, sizeof num, "%.1f", y);
	if (xmlTextWriterWriteAttribute(w, BAD_CAST "y", BAD_CAST num) < 0)
		return -1;
	if (anchor && xmlTextWriterWriteAttribute(w, BAD_CAST "text-anchor", BAD_CAST anchor) < 0)
		return -1;
	if (xmlTextWriterWriteString(w, BAD_CAST tmp->p) < 0)
		return -1;
	return xmlTextWriterEndElement(w);
}

/* Writes data as the escaped content of element name (with the id, when
 * not NULL), on lines of its own: an embedded asset (render/flame.css, the
 * page script), the page's origin. Uses b. -1 a write error, -2 out of
 * memory. */
static int block_el(xmlTextWriterPtr w, struct fk_buf *b, const char *name, const char *id,
		    const char *data, size_t len)
{
	b->len = 0;
	if (fk_buf_add(b, data, len) < 0 || fk_buf_add(b, "", 1) < 0)
		return -2;
	if (xmlTextWriterStartElement(w, BAD_CAST name) < 0 ||
	    (id && xmlTextWriterWriteAttribute(w, BAD_CAST "id", BAD_CAST id) < 0) ||
	    xmlTextWriterWriteRaw(w, BAD_CAST "\n") < 0 ||
	    xmlTextWriterWriteString(w, BAD_CAST b->p) < 0 ||
	    xmlTextWriterEndElement(w) < 0 ||
	    xmlTextWriterWriteRaw(w, BAD_CAST "\n") < 0)
		return -1;
	return 0;
}

/* Writes the frames: markup of numbers goes out raw through the writer in
 * batches; every label is escaped by xmlTextWriterWriteString. */
static int write_frames(const struct fk_emit *e, const struct fk_geom *g,
			xmlTextWriterPtr w, struct fk_buf *b, struct fk_buf *lab)
{
	double chw = g->fs * FONTWIDTH;
	size_t i;
	char rh[32];

	/* The height is an attribute, not CSS, so renderers without SVG 2
	 * geometry properties draw the frames too. */
	snprintf(rh, sizeof rh, "%.10g", g->fh > 1 ? g->fh - 1 : g->fh);

	b->len = 0;
	for (i = 0; i < e->nfr; i++) {
		const struct fk_efr *f = &e->fr[i];
		int64_t x0 = tenths(XPAD + (double)f->x * e->scale);
		int64_t x1 = tenths(XPAD + (double)(f->x + f->v) * e->scale);
		int64_t y = tenths(frame_y(g, f->depth));
		double wpx = (double)(x1 - x0) / 10.0;
		size_t chars = (size_t)((wpx - 6) / chw), nchars, cut;
		const char *nm = fk_emit_name(e, f->name);
		char cls[8];

		frame_class(e, f, cls);
		/* A frame with a label is a <g> holding the rect and the text; one
		 * without is a bare rect (half the elements of a big graph). */
		if (chars >= 3) {
			size_t len = strlen(nm);
			cut = fk_utf8_prefix(nm, len, chars, &nchars);
			lab->len = 0;
			if (cut < len) {
				/* Cut in the middle: the start and the end of a C++
				 * name tell frames apart, its middle rarely does. */
				size_t head = chars / 2, tail = chars - 1 - head;
				size_t hb = fk_utf8_prefix(nm, len, head, &nchars);
				size_t all, tb;
				fk_utf8_prefix(nm, len, SIZE_MAX, &all);
				tb = fk_utf8_prefix(nm, len, all - tail, &nchars);
				if (fk_buf_add(lab, nm, hb) < 0 ||
				    fk_buf_add(lab, "\xe2\x80\xa6", 3) < 0 ||
				    fk_buf_add(lab, nm + tb, len - tb) < 0)
					return -1;
			} else if (fk_buf_add(lab, nm, len) < 0) {
				return -1;
			}
			if (fk_buf_add(lab, "", 1) < 0)
				return -1;
			if (fk_buf_adds(b, "<g class=\"") < 0 || fk_buf_adds(b, cls) < 0 ||
			    fk_buf_adds(b, "\"><rect") < 0)
				return -1;
		} else {
			if (fk_buf_adds(b, "<rect class=\"") < 0 || fk_buf_adds(b, cls) < 0 ||
			    fk_buf_adds(b, "\"") < 0)
				return -1;
		}
		if (fk_buf_adds(b, " x=\"") < 0 || fk_buf_add_fix1(b, x0) < 0 ||
		    fk_buf_adds(b, "\" y=\"") < 0 || fk_buf_add_fix1(b, y) < 0 ||
		    fk_buf_adds(b, "\" width=\"") < 0 || fk_buf_add_fix1(b, x1 - x0) < 0 ||
		    fk_buf_adds(b, "\" height=\"") < 0 || fk_buf_adds(b, rh) < 0 ||
		    fk_buf_adds(b, "\"/>") < 0)
			return -1;
		if (chars >= 3) {
			if (fk_buf_adds(b, "<text x=\"") < 0 || fk_buf_add_fix1(b, x0 + 30) < 0 ||
			    fk_buf_adds(b, "\" y=\"") < 0 ||
			    fk_buf_add_fix1(b, y + tenths(g->fh / 2 + g->fs / 3)) < 0 ||
			    fk_buf_adds(b, "\">") < 0)
				return -1;
			if (xmlTextWriterWriteRawLen(w, BAD_CAST b->p, (int)b->len) < 0 ||
			    xmlTextWriterWriteString(w, BAD_CAST lab->p) < 0)
				return -1;
			b->len = 0;
			if (fk_buf_adds(b, "</text></g>\n") < 0)
				return -1;
		} else if (fk_buf_adds(b, "\n") < 0) {
			return -1;
		}
		if (b->len > 60000) {
			if (xmlTextWriterWriteRawLen(w, BAD_CAST b->p, (int)b->len) < 0)
				return -1;
			b->len = 0;
		}
	}
	if (b->len && xmlTextWriterWriteRawLen(w, BAD_CAST b->p, (int)b->len) < 0)
		return -1;
	b->len = 0;
	return 0;
}

static int legend(const struct fk_emit *e, const struct fk_geom *g, xmlTextWriterPtr w,
		  struct fk_buf *tmp)
{
	static const char *const dcls[] = { "b5", "b3", "d0", "r3", "r5" };
	double x = g->W - XPAD - 5 * 12 - 4, y = g->fs * 2 - 2;
	char num[32];
	int i;

	if (xmlTextWriterStartElement(w, BAD_CAST "g") < 0 ||
	    xmlTextWriterWriteAttribute(w, BAD_CAST "id", BAD_CAST "legend") < 0)
		return -1;
	for (i = 0; i < 5; i++) {
		char cls[8];
		if (e->diff)
			snprintf(cls, sizeof cls, "%s", dcls[e->o->negate ? 4 - i : i]);
		else
			snprintf(cls, sizeof cls, "c%d", i * (FK_SHADES - 1) / 4);
		if (xmlTextWriterStartElement(w, BAD_CAST "rect") < 0 ||
		    xmlTextWriterWriteAttribute(w, BAD_CAST "class", BAD_CAST cls) < 0)
			return -1;
		snprintf(num, sizeof num, "%.1f", x + i * 12);
		if (xmlTextWriterWriteAttribute(w, BAD_CAST "x", BAD_CAST num) < 0)
			return -1;
		snprintf(num, sizeof num, "%.1f", y - 10);
		if (xmlTextWriterWriteAttribute(w, BAD_CAST "y", BAD_CAST num) < 0 ||
		    xmlTextWriterWriteAttribute(w, BAD_CAST "width", BAD_CAST "11") < 0 ||
		    xmlTextWriterWriteAttribute(w, BAD_CAST "height", BAD_CAST "11") < 0 ||
		    xmlTextWriterEndElement(w) < 0)
			return -1;
	}
	if (text_el(w, tmp, NULL, "lg", x - 4, y, "end",
		    e->diff ? "colour: change of each frame, shrank \xe2\x86\x90 \xe2\x86\x92 grew" :
		    e->o->hash ? "colour: name only, not size" : "colour: name and depth, not size") < 0)
		return -1;
	return xmlTextWriterEndElement(w);
}

/* The page's opening: the <svg> element, its title, notes and style, the
 * background, the title texts, the details and match lines and the legend.
 * 0, -1 on a write error, -2 when out of memory. */
static int write_open(const struct fk_emit *e, const struct fk_geom *gp, xmlTextWriterPtr w,
		      struct fk_buf *b, struct fk_buf *tmp, int64_t total, int64_t vtotal)
{
	const struct fk_flame_opts *o = e->o;
	const struct fk_geom g = *gp;
	char num[64];

	X(xmlTextWriterStartDocument(w, NULL, "UTF-8", NULL));
	X(xmlTextWriterStartElement(w, BAD_CAST "svg"));
	X(xmlTextWriterWriteAttribute(w, BAD_CAST "xmlns", BAD_CAST "http://www.w3.org/2000/svg"));
	X(xmlTextWriterWriteAttribute(w, BAD_CAST "version", BAD_CAST "1.1"));
	if (g.fitpage) {
		X(xmlTextWriterWriteAttribute(w, BAD_CAST "width", BAD_CAST "100%"));
	} else {
		snprintf(num, sizeof num, "%.10g", g.W);
		X(xmlTextWriterWriteAttribute(w, BAD_CAST "width", BAD_CAST num));
		snprintf(num, sizeof num, "%.10g", g.H);
		X(xmlTextWriterWriteAttribute(w, BAD_CAST "height", BAD_CAST num));
	}
	snprintf(num, sizeof num, "0 0 %.10g %.10g", g.W, g.H);
	X(xmlTextWriterWriteAttribute(w, BAD_CAST "viewBox", BAD_CAST num));
	/* Fitted to the window's width, the drawing starts at its top. */
	if (g.fitpage)
		X(xmlTextWriterWriteAttribute(w, BAD_CAST "preserveAspectRatio", BAD_CAST "xMidYMin meet"));
	tmp->len = 0;
	BC(fk_buf_add_clean(tmp, o->fonttype, strlen(o->fonttype)));
	/* A family the machine lacks (Verdana on Linux) falls back to the
	 * browser's default, a serif font: name a generic family last. */
	if (!has_generic(o->fonttype))
		BC(fk_buf_adds(tmp, ", sans-serif"));
	BC(fk_buf_add(tmp, "", 1));
	X(xmlTextWriterWriteAttribute(w, BAD_CAST "font-family", BAD_CAST tmp->p));
	snprintf(num, sizeof num, "%.10g", g.fs);
	X(xmlTextWriterWriteAttribute(w, BAD_CAST "font-size", BAD_CAST num));
	X(xmlTextWriterWriteAttribute(w, BAD_CAST "class", BAD_CAST (e->diff ? "fk diff" : "fk")));
	X(xmlTextWriterWriteRaw(w, BAD_CAST "\n"));
	/* The document's title (a browser tab's name). */
	tmp->len = 0;
	BC(fk_buf_add_clean(tmp, o->title, strlen(o->title)));
	BC(fk_buf_add(tmp, "", 1));
	X(xmlTextWriterWriteElement(w, BAD_CAST "title", BAD_CAST tmp->p));
	X(xmlTextWriterWriteRaw(w, BAD_CAST "\n"));

	if (o->notes && *o->notes) {
		tmp->len = 0;
		BC(fk_buf_add_clean(tmp, o->notes, strlen(o->notes)));
		BC(fk_buf_add(tmp, "", 1));
		X(xmlTextWriterWriteElement(w, BAD_CAST "desc", BAD_CAST tmp->p));
		X(xmlTextWriterWriteRaw(w, BAD_CAST "\n"));
	}

	/* Style: the embedded sheet, then the palette and this graph's sizes.
	 * Top-level elements start lines, so the page reads well. */
	H(block_el(w, b, "style", NULL, fk_flame_css, fk_flame_css_len));
	b->len = 0;
	BC(fk_palette_css(b, o->colors, e->diff));
	/* A timeline shows snapshots and the growth between them, and any
	 * other page can become a diff in the browser (flame-compare.js). */
	if (!e->diff)
		BC(fk_palette_css(b, o->colors, 1));
	BC(fk_buf_add(b, "", 1));
	X(xmlTextWriterWriteElement(w, BAD_CAST "style", BAD_CAST b->p));
	X(xmlTextWriterWriteRaw(w, BAD_CAST "\n"));

	X(xmlTextWriterStartElement(w, BAD_CAST "rect"));
	X(xmlTextWriterWriteAttribute(w, BAD_CAST "class", BAD_CAST "bg"));
	X(xmlTextWriterWriteAttribute(w, BAD_CAST "width", BAD_CAST "100%"));
	X(xmlTextWriterWriteAttribute(w, BAD_CAST "height", BAD_CAST "100%"));
	X(xmlTextWriterEndElement(w));
	X(xmlTextWriterWriteRaw(w, BAD_CAST "\n"));

	X(text_el(w, tmp, "title", NULL, g.W / 2, g.fs * 2, "middle", o->title));
	X(xmlTextWriterWriteRaw(w, BAD_CAST "\n"));
	if (o->subtitle && *o->subtitle) {
		X(text_el(w, tmp, "subtitle", NULL, g.W / 2, g.fs * 4, "middle", o->subtitle));
		X(xmlTextWriterWriteRaw(w, BAD_CAST "\n"));
	}
	if (total == 0 && vtotal == 0) {
		/* flamegraph.pl refuses such input; an empty profile is still a
		 * profile (the hook may serve one), so say so on the page. */
		X(text_el(w, tmp, "empty", NULL, g.W / 2, frame_y(&g, 0) + g.fh * 0.75, "middle",
			  "no stack has a value"));
		X(xmlTextWriterWriteRaw(w, BAD_CAST "\n"));
	}
	X(text_el(w, tmp, "details", NULL, XPAD, g.H - g.ypad2 / 2, NULL, " "));
	X(xmlTextWriterWriteRaw(w, BAD_CAST "\n"));
	X(text_el(w, tmp, "matched", NULL, g.W - XPAD, g.H - g.ypad2 / 2, "end", " "));
	X(xmlTextWriterWriteRaw(w, BAD_CAST "\n"));
	X(legend(e, &g, w, tmp));
	X(xmlTextWriterWriteRaw(w, BAD_CAST "\n"));

	return 0;
fail:
	return -1;
nomem:
	return -2;
}

/* The page's data for its script (the names, the value columns, the frame
 * table, the geometry), then the script itself, last, so that every
 * element exists when it runs. 0, -1 on a write error, -2 out of memory. */
static int write_data(const struct fk_emit *e, const struct fk_geom *gp, xmlTextWriterPtr w,
		      struct fk_buf *b, struct fk_buf *tmp, const char *cols,
		      const struct fk_buf *info, struct fk_table_job *job)
{
	const struct fk_flame_opts *o = e->o;
	const struct fk_geom g = *gp;
	int i;

	/* The data for the script. Names and labels from the input are text
	 * and attributes escaped by the writer; names are one a line (a
	 * cleaned name holds no control character). */
	X(xmlTextWriterStartElement(w, BAD_CAST "metadata"));
	X(xmlTextWriterWriteAttribute(w, BAD_CAST "id", BAD_CAST "fknames"));
	tmp->len = 0;
	BC(fk_buf_add_clean(tmp, o->countname, strlen(o->countname)));
	BC(fk_buf_add(tmp, "", 1));
	X(xmlTextWriterWriteAttribute(w, BAD_CAST "data-countname", BAD_CAST tmp->p));
	tmp->len = 0;
	BC(fk_buf_add_clean(tmp, o->nametype, strlen(o->nametype)));
	BC(fk_buf_add(tmp, "", 1));
	X(xmlTextWriterWriteAttribute(w, BAD_CAST "data-nametype", BAD_CAST tmp->p));
	X(xmlTextWriterWriteRaw(w, BAD_CAST "\n"));
	/* Names go out in runs, raw, escaped here as the writer escapes text
	 * (its escaping, a copy of each name, was 4 % of the time on
	 * bench/gen-synth.py's input; C++ names are full of '<' and '>'). */
	b->len = 0;
	for (i = 0; (uint32_t)i < e->nreal; i++) {
		const char *nm = fk_emit_name(e, (uint32_t)i);
		for (;;) {
			size_t n = strcspn(nm, "<>&\"\r");
			BC(fk_buf_add(b, nm, n));
			nm += n;
			if (!*nm)
				break;
			BC(fk_buf_adds(b, *nm == '<' ? "&lt;" : *nm == '>' ? "&gt;" :
				       *nm == '&' ? "&amp;" : *nm == '"' ? "&quot;" : "&#13;"));
			nm++;
		}
		BC(fk_buf_add(b, "\n", 1));
		if (b->len >= 60000) {
			X(xmlTextWriterWriteRawLen(w, BAD_CAST b->p, (int)b->len));
			b->len = 0;
		}
	}
	if (b->len)
		X(xmlTextWriterWriteRawLen(w, BAD_CAST b->p, (int)b->len));
	b->len = 0;
	X(xmlTextWriterEndElement(w));
	X(xmlTextWriterWriteRaw(w, BAD_CAST "\n"));
	if (cols && *cols) {
		/* Column names, checked by the reader to [A-Za-z0-9_.:/-]. */
		X(xmlTextWriterStartElement(w, BAD_CAST "metadata"));
		X(xmlTextWriterWriteAttribute(w, BAD_CAST "id", BAD_CAST "fkcols"));
		X(xmlTextWriterWriteString(w, BAD_CAST cols));
		X(xmlTextWriterEndElement(w));
		X(xmlTextWriterWriteRaw(w, BAD_CAST "\n"));
	}
	if (info->len) {
		BC(fk_info_text(info, tmp));
		H(block_el(w, b, "metadata", "fkinfo", tmp->p, tmp->len));
	}
	if (e->t->series)
		H(fk_series_write(e->t->series, w, tmp));
	/* The frame table: only the characters of enc(), so raw is safe. */
	X(xmlTextWriterStartElement(w, BAD_CAST "metadata"));
	X(xmlTextWriterWriteAttribute(w, BAD_CAST "id", BAD_CAST "fktable"));
	if (job->started) {
		pthread_join(job->th, NULL);
		job->started = 0;
		if (job->rc < 0)
			goto nomem;
		if (fk_emit_table_out(w, &job->b) < 0)
			goto fail;
	} else if (fk_emit_table(e, w, b) < 0) {
		goto fail;
	}
	X(xmlTextWriterEndElement(w));
	X(xmlTextWriterWriteRaw(w, BAD_CAST "\n"));
	/* Numbers and fixed keys only, so raw is safe. */
	X(xmlTextWriterStartElement(w, BAD_CAST "script"));
	X(xmlTextWriterWriteAttribute(w, BAD_CAST "type", BAD_CAST "application/json"));
	X(xmlTextWriterWriteAttribute(w, BAD_CAST "id", BAD_CAST "fkdata"));
	b->len = 0;
	if (fk_emit_json(e, &g, b) < 0)
		goto nomem;
	X(xmlTextWriterWriteRawLen(w, BAD_CAST b->p, (int)b->len));
	X(xmlTextWriterEndElement(w));
	X(xmlTextWriterWriteRaw(w, BAD_CAST "\n"));

	/* The script last, so every element exists when it runs. */
	H(block_el(w, b, "script", NULL, fk_flame_js, fk_flame_js_len));
	return 0;
fail:
	return -1;
nomem:
	return -2;
}

int fk_svg_write(const struct fk_tree *t, const struct fk_flame_opts *o,
		 const char *cols, const struct fk_buf *info, FILE *out,
		 struct fk_err *err)
{
	struct fk_emit e;
	struct fk_geom g;
	struct fk_buf b = { 0 }, tmp = { 0 }, lab = { 0 };
	struct fk_table_job job = { 0 };
	xmlOutputBufferPtr ob = NULL;
	xmlTextWriterPtr w = NULL;
	xmlGenericErrorFunc old_err = NULL;
	void *old_ctx = NULL;
	int64_t total, vtotal;
	int rc = -1, i, saved = 0;

	memset(&e, 0, sizeof e);
	e.t = t;
	e.o = o;
	e.diff = t->has_base;
	e.ncols = t->ncols > 1 ? t->ncols : 1;
	total = t->nodes[0].total;
	vtotal = e.diff ? t->vtotal[0] : total;

	memset(&g, 0, sizeof g);
	g.fitpage = o->width <= 0;
	g.W = g.fitpage ? 1200 : o->width;
	g.fh = o->frameheight;
	g.fs = o->fontsize;
	g.inverted = o->inverted;
	g.ypad1 = g.fs * 3 + (o->subtitle && *o->subtitle ? g.fs * 2 : 0);
	g.ypad2 = g.fs * 2 + 10;
	e.scale = total > 0 ? (g.W - 2 * XPAD) / (double)total : 0;
	e.vscale = vtotal > 0 ? (g.W - 2 * XPAD) / (double)vtotal : 0;
	e.minw = o->minwidth_pct ? (g.W - 2 * XPAD) * o->minwidth / 100.0 : o->minwidth;

	e.nameidx = malloc((size_t)t->nnames * sizeof *e.nameidx);
	if (!e.nameidx)
		goto nomem;
	memset(e.nameidx, 0xff, (size_t)t->nnames * sizeof *e.nameidx);
	e.bnorm = 1;
	if (e.diff && o->normalize && t->btotal[0] > 0 && total > 0)
		e.bnorm = (double)total / (double)t->btotal[0];
	if (fk_emit_names(&e) < 0)
		goto nomem;
	if (o->threads) {
		job.e = &e;
		job.started = pthread_create(&job.th, NULL, fk_emit_table_thread, &job) == 0;
	}
	if (fk_emit_collect(&e, 0, 0, 0) < 0)
		goto nomem;
	g.H = g.ypad1 + (e.maxdepth + 1) * g.fh + g.ypad2;

	old_err = xmlGenericError;
	old_ctx = xmlGenericErrorContext;
	saved = 1;
	xmlSetGenericErrorFunc(NULL, quiet);
	ob = xmlOutputBufferCreateIO(wr_cb, NULL, out, NULL);
	if (!ob || !(w = xmlNewTextWriter(ob))) {
		if (ob)
			xmlOutputBufferClose(ob);
		goto nomem;
	}
	H(write_open(&e, &g, w, &b, &tmp, total, vtotal));

	X(xmlTextWriterStartElement(w, BAD_CAST "g"));
	X(xmlTextWriterWriteAttribute(w, BAD_CAST "id", BAD_CAST "frames"));
	X(xmlTextWriterWriteRaw(w, BAD_CAST "\n"));
	if (write_frames(&e, &g, w, &b, &lab) < 0)
		goto fail;
	X(xmlTextWriterEndElement(w));
	X(xmlTextWriterWriteRaw(w, BAD_CAST "\n"));

	H(write_data(&e, &g, w, &b, &tmp, cols, info, &job));
	X(xmlTextWriterEndElement(w));
	X(xmlTextWriterWriteRaw(w, BAD_CAST "\n"));
	X(xmlTextWriterEndDocument(w));
	i = xmlTextWriterFlush(w);
	xmlFreeTextWriter(w);
	w = NULL;
	if (i < 0 || fflush(out) != 0 || ferror(out)) {
		fk_err_set(err, FK_EIO, 0, "write error");
		goto out;
	}
	rc = 0;
	goto out;
nomem:
	fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	goto out;
fail:
	fk_err_set(err, FK_EIO, 0, "write error");
out:
	/* Before anything it reads goes. */
	if (job.started)
		pthread_join(job.th, NULL);
	fk_buf_release(&job.b);
	if (w)
		xmlFreeTextWriter(w);
	if (saved)
		xmlSetGenericErrorFunc(old_ctx, old_err);
	fk_big_free(e.fr, e.capfr * sizeof *e.fr);
	free(e.nameidx);
	free(e.pn);
	fk_buf_release(&e.names);
	fk_buf_release(&b);
	fk_buf_release(&tmp);
	fk_buf_release(&lab);
	return rc;
}
