/* SPDX-License-Identifier: MIT */
/* The page's data (render_int.h, "svg.c / svgdata.c"): which frames the
 * page draws without script ("(N more)" boxes for narrow runs), the page's
 * name table ordered by use, the compact frame table of the whole tree and
 * the geometry the script reads. svg.c writes them into the document. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/xmlwriter.h>

#include "bigmem.h"
#include "grow.h"
#include "render_int.h"

static int push(struct fk_emit *e, const struct fk_efr *f)
{
	if (e->nfr == e->capfr) {
		/* From one huge page, so one page fault (bigmem.h). */
		size_t cap = e->capfr ? e->capfr * 2 : FK_HUGE_PAGE / sizeof *e->fr;
		struct fk_efr *p = fk_big_resize(e->fr, e->capfr * sizeof *p, cap * sizeof *p);
		if (!p)
			return -1;
		e->fr = p;
		e->capfr = cap;
	}
	e->fr[e->nfr++] = *f;
	if (f->depth > e->maxdepth)
		e->maxdepth = f->depth;
	return 0;
}

/* Adds a cleaned name to the page's table; returns its index or NO_NODE.
 * stable: s is NUL-terminated and lives as long as the page is written,
 * so a name that needs no cleaning is not copied. */
static uint32_t add_name(struct fk_emit *e, const char *s, size_t n, int stable)
{
	if (fk_reserve((void **)&e->pn, &e->cappn, (size_t)e->nnames + 1, sizeof *e->pn, 256) < 0)
		return NO_NODE;
	if (stable && fk_clean_len(s, n) == n) {
		e->pn[e->nnames] = (struct fk_pname){ s, 0 };
		return e->nnames++;
	}
	e->pn[e->nnames] = (struct fk_pname){ NULL, e->names.len };
	if (fk_buf_add_clean(&e->names, s, n) < 0 || fk_buf_add(&e->names, "", 1) < 0)
		return NO_NODE;
	return e->nnames++;
}

/* Page name i, cleaned and NUL-terminated. */
const char *fk_emit_name(const struct fk_emit *e, uint32_t i)
{
	return e->pn[i].p ? e->pn[i].p : e->names.p + e->pn[i].off;
}

static int64_t width_units(const struct fk_emit *e, uint32_t n)
{
	return e->diff ? e->t->vtotal[n] : e->t->nodes[n].total;
}

/* Whether node n is drawn: wide enough in the new profile, or (in a
 * differential graph) in the view that keeps vanished stacks. */
static int wide(const struct fk_emit *e, uint32_t n)
{
	if ((double)e->t->nodes[n].total * e->scale >= e->minw)
		return 1;
	return e->diff && (double)e->t->vtotal[n] * e->vscale >= e->minw;
}

/* Collects node and the children wide enough to draw; narrow children are
 * merged into one "(N more)" box per parent. Depth is bounded by the
 * tree's FK_MAX_DEPTH_ANY. */
int fk_emit_collect(struct fk_emit *e, uint32_t node, uint32_t depth, int64_t x)
{
	const struct fk_tree *t = e->t;
	const struct fk_fnode *nd = &t->nodes[node];
	struct fk_efr f = { node, depth, 0, 0, x, nd->total, nd->self, 0, 0, 0 }, m;
	uint32_t c, nm = nd->name;
	int64_t cx = x, mw = 0;

	if (e->diff) {
		f.bv = t->btotal[node];
		f.bs = t->bself[node];
		f.vv = t->vtotal[node];
	}
	f.name = e->nameidx[nm];
	if (push(e, &f) < 0)
		return -1;
	memset(&m, 0, sizeof m);
	for (c = nd->child; c; c = t->nodes[c].next) {
		if (wide(e, c)) {
			if (fk_emit_collect(e, c, depth + 1, cx) < 0)
				return -1;
			cx += t->nodes[c].total;
			continue;
		}
		m.nmore++;
		m.v += t->nodes[c].total;
		mw += width_units(e, c);
		if (e->diff) {
			m.bv += t->btotal[c];
			m.vv += t->vtotal[c];
		}
	}
	if (m.nmore >= 2 && (double)mw * (e->diff ? e->vscale : e->scale) >= e->minw) {
		char label[40];
		int n = snprintf(label, sizeof label, "(%u more)", m.nmore);
		m.node = NO_NODE;
		m.depth = depth + 1;
		m.x = cx;
		m.s = m.v;
		m.bs = m.bv;
		if ((m.name = add_name(e, label, (size_t)n, 0)) == NO_NODE || push(e, &m) < 0)
			return -1;
	}
	return 0;
}

static int json_num(struct fk_buf *b, const char *key, double v)
{
	char num[64];

	snprintf(num, sizeof num, "\"%s\":%.10g,", key, v);
	return fk_buf_adds(b, num);
}

/* The page's numeric data for flame.js: geometry and the table's shape.
 * Only numbers and fixed keys: nothing from the input. */
int fk_emit_json(const struct fk_emit *e, const struct fk_geom *g, struct fk_buf *b)
{
	return fk_buf_adds(b, "{") < 0 ||
	    json_num(b, "width", g->W) < 0 || json_num(b, "xpad", XPAD) < 0 ||
	    json_num(b, "frameheight", g->fh) < 0 || json_num(b, "fontsize", g->fs) < 0 ||
	    json_num(b, "fontwidth", FONTWIDTH) < 0 ||
	    json_num(b, "ypad1", g->ypad1) < 0 || json_num(b, "ypad2", g->ypad2) < 0 ||
	    json_num(b, "height", g->H) < 0 || json_num(b, "inverted", g->inverted) < 0 ||
	    json_num(b, "fitpage", g->fitpage) < 0 || json_num(b, "diff", e->diff) < 0 ||
	    json_num(b, "hash", e->o->hash) < 0 || json_num(b, "negate", e->o->negate) < 0 ||
	    json_num(b, "normalize", e->o->normalize) < 0 ||
	    json_num(b, "minwidth", e->minw) < 0 ||
	    json_num(b, "cols", e->diff ? 2 : e->ncols) < 0 ||
	    fk_buf_adds(b, "\"n\":") < 0 || fk_buf_add_i64(b, e->t->nnodes) < 0 ||
	    fk_buf_adds(b, "}") < 0 ? -1 : 0;
}

/* Writes v at p in the table's number code: base-32 digits, most
 * significant first; the last digit is one of "0-9A-V", the others one of
 * "W-Za-z-_", so numbers need no separator. Every character is safe in XML
 * text. At most ENC_MAX bytes; returns the end. */
#define ENC_MAX 13

static char *enc(char *p, uint64_t v)
{
	static const char fin[] = "0123456789ABCDEFGHIJKLMNOPQRSTUV";
	static const char more[] = "WXYZabcdefghijklmnopqrstuvwxyz-_";
	/* Digits: the bits of v in groups of 5 (v | 1: zero has one). */
	size_t k = (size_t)(68 - __builtin_clzll(v | 1)) / 5;

	p += k;
	*--p = fin[v & 31];
	for (v >>= 5; v; v >>= 5)
		*--p = more[v & 31];
	return p + k;
}

/* A row's values after the first: each as its difference from the one
 * before, zigzagged (0, -1, 1, -2 ... as 0, 1, 2, 3 ...), and a run of
 * three or more equal values as '.' and the run's length. Most frames of a
 * many-column page hold no self value in any column, and a long-lived stack
 * keeps its value from snapshot to snapshot: on 100 snapshots of a 10k-stack
 * heap (bench/series.sh) the table went from 24.7 MB, a digit a value at
 * least, to a fraction of it. */
static char *enc_rest(char *p, const int64_t *v, uint32_t nv)
{
	uint32_t c = 1, r;

	while (c < nv) {
		for (r = 0; c + r < nv && v[c + r] == v[c - 1]; r++)
			;
		if (r >= 3) {
			*p++ = '.';
			p = enc(p, r);
			c += r;
			continue;
		}
		int64_t d = v[c] - v[c - 1];
		p = enc(p, d >= 0 ? (uint64_t)d * 2 : ((uint64_t)-(d + 1)) * 2 + 1);
		c++;
	}
	return p;
}

/* Writes the whole tree as the page's frame table, in preorder: for each
 * frame the depth step (previous depth + 1 - depth), the name index, its
 * self value in the first column, then the other columns' (base in a
 * differential graph, then the extra columns) as enc_rest writes them.
 * The script rebuilds parents and totals from these. With w, the text goes
 * out through w in pieces; without, it all stays in b. */
int fk_emit_table(const struct fk_emit *e, xmlTextWriterPtr w, struct fk_buf *b)
{
	const struct fk_tree *t = e->t;
	uint32_t n = 0, depth = 0, prev = 0, c, k, nx = e->ncols - 1;
	uint32_t nv = 1 + (e->diff != 0) + nx;
	int64_t row[FK_MAX_COLUMNS + 2];

	b->len = 0;
	/* All in memory: room for about 2 bytes a value at once, not a copy
	 * at every doubling. */
	if (!w && fk_buf_grow(b, (size_t)t->nnodes * (3 + nx + (e->diff != 0)) * 2) < 0)
		return -1;
	for (;;) {
		const struct fk_fnode *nd = &t->nodes[n];
		char *p;

		/* Room for the whole row first, so the digits go out unchecked. */
		if (fk_buf_grow(b, (size_t)ENC_MAX * (4 + nx)) < 0)
			return -1;
		p = b->p + b->len;
		p = enc(p, (uint64_t)prev + 1 - depth - (n == 0));
		p = enc(p, e->nameidx[nd->name]);
		row[0] = nd->self;
		k = 1;
		if (e->diff)
			row[k++] = t->bself[n];
		for (c = 0; c < nx; c++)
			row[k++] = fk_tree_xself(t, n, c + 1);
		if (t->series) {
			/* The tree holds a series' last column first and its
			 * first last (flame.c's line_values). */
			int64_t first = row[nv - 1];
			row[nv - 1] = row[0];
			row[0] = first;
		}
		p = enc(p, (uint64_t)row[0]);
		p = enc_rest(p, row, nv);
		b->len = (size_t)(p - b->p);
		prev = depth;
		if (w && b->len > 60000) {
			if (xmlTextWriterWriteRawLen(w, BAD_CAST b->p, (int)b->len) < 0)
				return -1;
			b->len = 0;
		}
		if (nd->child) {
			n = nd->child;
			depth++;
			continue;
		}
		while (n && !t->nodes[n].next) {
			n = t->nodes[n].parent;
			depth--;
		}
		if (!n)
			break;
		n = t->nodes[n].next;
	}
	if (w && b->len && xmlTextWriterWriteRawLen(w, BAD_CAST b->p, (int)b->len) < 0)
		return -1;
	if (w)
		b->len = 0;
	return 0;
}


void *fk_emit_table_thread(void *arg)
{
	struct fk_table_job *j = arg;

	j->rc = fk_emit_table(j->e, NULL, &j->b);
	return NULL;
}

/* Writes the table text made by the job through w. Returns 0 or -1. */
int fk_emit_table_out(xmlTextWriterPtr w, const struct fk_buf *b)
{
	size_t off, k;

	for (off = 0; off < b->len; off += k) {
		k = b->len - off < (1 << 20) ? b->len - off : (1 << 20);
		if (xmlTextWriterWriteRawLen(w, BAD_CAST (b->p + off), (int)k) < 0)
			return -1;
	}
	return 0;
}

/* Orders the page's name table by use, most used first, so the commonest
 * names get the shortest indices in the frame table; ties in byte order:
 * the names in byte order, then sorted stably by use with a radix sort of
 * four 8-bit digits (qsort of 64-bit keys through a pointer was 2.5 % of
 * the time on bench/gen-synth.py's input). */
int fk_emit_names(struct fk_emit *e)
{
	const struct fk_tree *t = e->t;
	size_t nn = t->nnames ? t->nnames : 1;
	uint32_t *ids = malloc(nn * 2 * sizeof *ids), *tmp, i, d;
	int rc = -1;

	if (!ids)
		return -1;
	tmp = ids + nn;
	for (i = 0; i < t->nnames; i++)
		ids[t->names[i].rank] = i;
	for (d = 0; d < 32; d += 8) {
		size_t cnt[257] = { 0 };
		uint32_t *sw;
		for (i = 0; i < t->nnames; i++)
			cnt[((UINT32_MAX - t->uses[ids[i]]) >> d & 255) + 1]++;
		if (cnt[1] == t->nnames)
			continue;       /* one digit for all: stays in order */
		for (i = 1; i < 257; i++)
			cnt[i] += cnt[i - 1];
		for (i = 0; i < t->nnames; i++)
			tmp[cnt[(UINT32_MAX - t->uses[ids[i]]) >> d & 255]++] = ids[i];
		sw = ids;
		ids = tmp;
		tmp = sw;
	}
	for (i = 0; i < t->nnames; i++) {
		uint32_t id = ids[i];
		uint32_t k = add_name(e, t->names[id].s, t->names[id].len, 1);
		if (k == NO_NODE)
			goto out;
		e->nameidx[id] = k;
	}
	e->nreal = e->nnames;
	rc = 0;
out:
	free(ids < tmp ? ids : tmp);
	return rc;
}
