/* SPDX-License-Identifier: MIT */
/* render/ internal declarations: the merged stack tree (layout.c), text
 * cleaning and formatting helpers (text.c), palettes (palette.c), the SVG
 * writer (svg.c) and the embedded page assets (generated flame_assets.c). */
#ifndef FK_RENDER_INT_H
#define FK_RENDER_INT_H

#include <stddef.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "err.h"
#include "flame.h"
#include "limits.h"
#include "series.h"

/* One interned frame name, copied into the tree's arena. */
struct fk_fname {
	const char *s;
	uint32_t len;
	uint32_t rank;                 /* position in byte order (after finish) */
};

/* One node of the merged tree. Ids are array indices; node 0 is the root
 * ("all"); a parent's id is always smaller than its children's. */
struct fk_fnode {
	uint32_t name;
	uint32_t parent;
	uint32_t child;                /* first child, 0 = none */
	uint32_t next;                 /* next sibling, 0 = none */
	int64_t self, total;           /* the (new) profile */
};

/* One slot of the name table: the name's bytes, length and whole hash are
 * in the slot, so a lookup reads the slot, and the bytes only when the
 * hash and length match. */
struct fk_nentry {
	const char *s;                 /* NULL = empty */
	uint64_t hash;
	uint32_t len, id;
};

/* One slot of the child table; the key is kept in the slot so a probe
 * touches one cache line, not the node array too. */
struct fk_centry {
	uint32_t parent, name, id;
};

/* The merged tree of all stacks added. Its fields come in two sides: the
 * names side (the name table and the scan of the previous line), which
 * fk_tree_scan uses, and the nodes side, which fk_tree_place uses. While a
 * file is read on a second thread (flame.c), that thread owns the names
 * side and the caller the nodes side, so the two are kept a cache line
 * apart (a line written by one and read by the other moves between the
 * cores at every write). */
struct fk_tree {
	/* ---- the names side ---- */
	struct fk_arena *strs;         /* the names' bytes */
	struct fk_fname *names;
	uint32_t nnames, capnames;
	struct fk_nentry *ntab;        /* name hash table */
	uint32_t ntabmask;
	int flamechart, reverse;

	/* The previous line's frames, to skip re-looking-up a shared prefix
	 * (sorted folded input shares most of each line with the last).
	 * prev is borrowed from the caller: reset it when the buffer goes. */
	const char *prev;
	size_t prevlen, prevdepth;
	size_t *fend;                  /* end offset of each frame of prev */
	uint64_t *fhash;               /* hash of each new frame of a line */
	uint32_t *nid;                 /* name id of each new frame of a line */
	size_t capscan;

	char apart[64];

	/* ---- the nodes side ---- */
	uint32_t *uses;                /* nodes of each name */
	uint32_t capuses;
	struct fk_fnode *nodes;        /* totals are summed as lines are added */
	uint32_t nnodes, capnodes;
	uint64_t *manybits;            /* nodes whose children are in ctab */
	uint32_t *several;             /* nodes with two children or more */
	uint32_t nseveral, capseveral;
	struct fk_centry *ctab;        /* (parent, name) -> node id, id 0 = empty;
	                                  only children of nodes with many (layout.c) */
	uint32_t ctabmask, nctab;

	/* Differential graphs only (has_base): base self and total per node,
	 * and the "visible" self/total where a frame absent from the new
	 * profile keeps its base value, so vanished stacks can be shown. */
	int64_t *bself, *btotal, *vself, *vtotal;
	uint32_t capbase;
	int has_base;

	int64_t grand, bgrand;         /* running totals, checked for overflow */

	/* Multi-column input: the self values of columns 1..ncols-1 (column 0
	 * is nodes[].self), kept only for nodes that have one that is not 0
	 * (the ends of lines): node n's are xvals[(xrow[n] - 1) * (ncols - 1)
	 * + c - 1] when n < capxrow and xrow[n] != 0, else all 0 (fk_tree_xself).
	 * So memory follows the data: 4 bytes a node and a row a stack, not a
	 * row for every node the node array has room for. xv points at the
	 * extra values of the line being added (set by the caller before
	 * fk_tree_add_line; NULL adds zeros). */
	uint32_t ncols;
	const int64_t *xv;
	uint32_t *xrow;
	size_t capxrow;                /* nodes xrow has room for */
	int64_t *xvals;
	size_t nxrows, capxrows;       /* rows used, rows xvals has room for */
	int64_t xgrand[FK_MAX_COLUMNS];
	int threads;                   /* finish may rank names and order children
	                                  on a second thread */
	enum fk_flame_sort sort;

	uint32_t *path;                /* node of each frame of the last line placed */
	int64_t *pacc;                 /* value not yet in the total of path[d] */
	size_t cappath, plen;

	const struct fk_series *series; /* a series input's snapshots, or NULL */
};

/* Node n's self value in extra column c (1 .. ncols-1). */
static inline int64_t fk_tree_xself(const struct fk_tree *t, uint32_t n, uint32_t c)
{
	if (n >= t->capxrow || !t->xrow[n])
		return 0;
	return t->xvals[(size_t)(t->xrow[n] - 1) * (t->ncols - 1) + c - 1];
}

/* Sets up an empty tree with its root. Returns 0 or -1 with err. */
int fk_tree_init(struct fk_tree *t, struct fk_err *err);

/* Frees everything the tree holds (not the borrowed names). */
void fk_tree_release(struct fk_tree *t);

/* Adds the stack s[0..n) ("a;b;c", root first) with value v (>= 0) to the
 * new profile, or to the base when base. Names are copied; s must stay
 * unchanged until the next call or until t->prev is reset. Returns 0 or -1
 * with err at lineno. */
int fk_tree_add_line(struct fk_tree *t, const char *s, size_t n, int64_t v,
		     int base, uint64_t lineno, struct fk_err *err);

/* fk_tree_add_line in two halves, which may run on two threads (the
 * names side and the nodes side of struct fk_tree), called in the same
 * order for the same lines. fk_tree_scan checks v, finds the line's frames
 * and interns the names of those not shared with the previous line
 * scanned: their ids are t->nid[*first .. *end). 0, or -1 with err at
 * lineno (and t->prev reset). */
int fk_tree_scan(struct fk_tree *t, const char *s, size_t n, int64_t v,
		 uint64_t lineno, size_t *first, size_t *end, struct fk_err *err);

/* Adds to the tree the line whose first `first` frames are those of the
 * last line placed and whose next k frames are named ids[0..k), with
 * value v (>= 0) as fk_tree_add_line does. 0, or -1 with err at lineno. */
int fk_tree_place(struct fk_tree *t, size_t first, const uint32_t *ids, size_t k,
		  int64_t v, int base, uint64_t lineno, struct fk_err *err);

/* Puts in the totals what fk_tree_place still holds back (fk_tree_finish
 * does it; before, the totals of the last line's frames lag). */
void fk_tree_close(struct fk_tree *t);

/* Same for frames given as separate strings (copied). */
int fk_tree_add_frames(struct fk_tree *t, const char *const *names,
		       const size_t *lens, size_t n, int64_t v, int base,
		       struct fk_err *err);

/* Computes totals and orders every node's children (by name, weight, or
 * input order for a flame chart). Returns 0 or -1 with err. */
int fk_tree_finish(struct fk_tree *t, struct fk_err *err);

/* Text helpers (text.c). */

/* A growable byte buffer; functions return -1 only when out of memory. */
struct fk_buf {
	char *p;
	size_t len, cap;
};
int fk_buf_grow(struct fk_buf *b, size_t more);
int fk_buf_add(struct fk_buf *b, const void *s, size_t n);
int fk_buf_adds(struct fk_buf *b, const char *s);
void fk_buf_release(struct fk_buf *b);

/* Appends s[0..n) to b as valid UTF-8 that XML 1.0 accepts: invalid
 * sequences, C0/C1 controls, DEL, U+FFFE/U+FFFF become U+FFFD. Returns -1
 * when out of memory. */
int fk_buf_add_clean(struct fk_buf *b, const char *s, size_t n);

/* Length of the longest prefix of s[0..n) that fk_buf_add_clean copies
 * unchanged (n when s needs no cleaning). */
size_t fk_clean_len(const char *s, size_t n);

/* Appends the decimal of v / fixed-point v/10 with one decimal ("12.3",
 * "12" when the decimal is 0). */
int fk_buf_add_i64(struct fk_buf *b, int64_t v);
int fk_buf_add_fix1(struct fk_buf *b, int64_t tenths);

/* Length in bytes of the first maxchars characters of UTF-8 s[0..n), and
 * the character count of s in *nchars. */
size_t fk_utf8_prefix(const char *s, size_t n, size_t maxchars, size_t *nchars);

/* Palettes (palette.c). */

/* Number of shades of each palette, and of each side of a differential
 * scale (classes d-N..dN). */
#define FK_SHADES 16
#define FK_DIFF_STEPS 5

/* Appends the CSS rules of palette name (".c0{fill:#...}" ... for each shade)
 * or, when diff, of the red/blue differential scale. -1 if unknown name. */
int fk_palette_css(struct fk_buf *b, const char *name, int diff);

/* "#000" or "#fff", whichever contrasts more with the fill "#rrggbb". */
const char *fk_palette_text(const char *rgb);

/* Fill colour "#rrggbb" of shade i (0..FK_SHADES-1) of palette name. */
void fk_palette_rgb(const char *name, unsigned i, char out[8]);

/* ---- svg.c / svgdata.c: the page writer's state ---- */

#define XPAD 10.0
#define FONTWIDTH 0.59
#define NO_NODE UINT32_MAX

/* One frame drawn, in preorder (the page's script relies on the order). */
struct fk_efr {
	uint32_t node;                 /* NO_NODE for a "(N more)" box */
	uint32_t depth;
	uint32_t nmore;
	uint32_t name;                 /* index into the page's name table */
	int64_t x;                     /* offset in value units, new profile */
	int64_t v, s, bv, bs, vv;
};


/* A page name: the tree's own bytes when they need no cleaning (most
 * names: no copy), else a cleaned copy at off in emit.names. */
struct fk_pname {
	const char *p;                 /* NULL: the copy */
	size_t off;
};


struct fk_emit {
	const struct fk_tree *t;
	const struct fk_flame_opts *o;
	struct fk_efr *fr;
	size_t nfr, capfr;
	double scale, minw;            /* px per unit; px */
	double vscale;                 /* px per unit of the visible values */
	uint32_t maxdepth;
	uint32_t *nameidx;             /* tree name id -> page name index */
	uint32_t nnames;
	struct fk_buf names;           /* cleaned names, each NUL-terminated */
	struct fk_pname *pn;              /* where each page name is */
	size_t cappn;
	uint32_t nreal;                /* names of the tree; "(N more)" labels follow */
	uint32_t ncols;                /* value columns of the input (1 in a diff) */
	double bnorm;                  /* base scale: 1, or new/base total (--normalize) */
	int diff;
};

struct fk_geom {
	double W, fh, fs, ypad1, ypad2, H;
	int inverted, fitpage;
};

/* The frame table made on a second thread (fk_flame_opts.threads) while
 * the page before it is written: it reads only the finished tree and the
 * name indices, which nothing changes by then. */
struct fk_table_job {
	const struct fk_emit *e;
	struct fk_buf b;
	int rc;
	pthread_t th;
	int started;
};

struct _xmlTextWriter;

/* Gathers, from node at depth and offset x (value units), the frames the
 * page draws without script into e->fr, in preorder. 0 or -1. */
int fk_emit_collect(struct fk_emit *e, uint32_t node, uint32_t depth, int64_t x);

/* Page name i. */
const char *fk_emit_name(const struct fk_emit *e, uint32_t i);

/* Builds the page's name table, most used names first. 0 or -1. */
int fk_emit_names(struct fk_emit *e);

/* The geometry and table shape the script reads, as JSON into b. 0 or -1. */
int fk_emit_json(const struct fk_emit *e, const struct fk_geom *g, struct fk_buf *b);

/* Writes the frame table through w, or into b when w is NULL. 0 or -1. */
int fk_emit_table(const struct fk_emit *e, struct _xmlTextWriter *w, struct fk_buf *b);

/* fk_emit_table on a second thread (arg: a struct fk_table_job). */
void *fk_emit_table_thread(void *arg);

/* Writes the table text a job made through w. 0 or -1. */
int fk_emit_table_out(struct _xmlTextWriter *w, const struct fk_buf *b);

/* ---- timeline.c: a series input's snapshots ---- */

/* The "# series:" lines of a series input (core/series.h), one per column. */
struct fk_series {
	struct fk_snapmeta *m;
	uint32_t n;
};

/* Frees what s holds and empties it. */
void fk_series_release(struct fk_series *s);

/* Length of the header lines at the start of data[0..len): a "# columns:"
 * line and the "# series:" lines after it (0 without a columns line). */
size_t fk_series_header_len(const char *data, size_t len);

/* Reads the "# series:" lines at the start of data[0..len) (after the
 * columns line) into s, for a graph of ncols columns; *lineno counts the
 * lines before and is advanced. Either no line or one per column. Returns
 * the bytes read, or -1 with err. */
long fk_series_read(struct fk_series *s, const char *data, size_t len,
		    uint32_t ncols, uint64_t *lineno, struct fk_err *err);

/* Writes s as the page's <metadata id="fkseries"> (a JSON array, one
 * object a snapshot: id, time in seconds or null, each figure of
 * fk_series_keys or null) through w, using b. 0, -1 on a write error, -2
 * out of memory. */
int fk_series_write(const struct fk_series *s, struct _xmlTextWriter *w, struct fk_buf *b);

/* ---- pageinfo.c: the page's origin, "# info: KEY=VALUE" lines ---- */

/* Length of the "# info:" lines at the start of data[0..len), with their
 * newlines (0 without one). */
size_t fk_info_len(const char *data, size_t len);

/* Checks the "# info:" lines at the start of data[0..len) and appends
 * each as "KEY=VALUE\n" to b (b NULL: checked only); *lineno counts the
 * lines before and is advanced. Returns the bytes read, or -1 with err. */
long fk_info_read(struct fk_buf *b, const char *data, size_t len, uint64_t *lineno,
		  struct fk_err *err);

/* Appends the KEY=VALUE lines of text (NULL or "" is none; blank lines
 * are skipped) to b. 0, or -1 with err naming the bad line. */
int fk_info_add_text(struct fk_buf *b, const char *text, struct fk_err *err);

/* info's lines into out (emptied first), each cleaned to valid UTF-8
 * without control bytes: the text of the page's <metadata id="fkinfo">.
 * 0, or -1 out of memory. */
int fk_info_text(const struct fk_buf *info, struct fk_buf *out);

/* The embedded page assets (generated at build time from render/flame-*.js
 * and render/flame.css). */
extern const char fk_flame_js[];
extern const size_t fk_flame_js_len;
extern const char fk_flame_css[];
extern const size_t fk_flame_css_len;

/* Writes the laid-out tree as an SVG page to out (svg.c); cols names the
 * value columns (one space between names, "" for one unnamed column);
 * info holds the origin's KEY=VALUE lines (pageinfo.c). */
int fk_svg_write(const struct fk_tree *t, const struct fk_flame_opts *o,
		 const char *cols, const struct fk_buf *info, FILE *out,
		 struct fk_err *err);

#endif
