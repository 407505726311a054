/* SPDX-License-Identifier: MIT */
/* Interactive SVG flame graphs from folded stacks: the library behind
 * render-flame, callable in-process (the hook serves ?format=flame with it).
 * The SVG is self-contained (inline CSS and script, no external URL) and
 * every string in it passes through libxml2's xmlTextWriter. */
#ifndef FK_FLAME_H
#define FK_FLAME_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "err.h"

enum fk_flame_sort {
	FK_SORT_NAME = 0,              /* children in name (byte) order */
	FK_SORT_WEIGHT,                /* heaviest child first (left-heavy) */
};

struct fk_flame_opts {
	const char *title;             /* default "Flame Graph" ("Differential ..." with a base) */
	const char *subtitle;          /* NULL = none */
	const char *notes;             /* NULL = none; stored in <desc> */
	const char *info;              /* NULL = none; the origin the page's header
	                                  shows: "KEY=VALUE" lines, as an input's
	                                  "# info:" lines (man/render-flame.1,
	                                  "Origin"), after them; the hook passes
	                                  program, pid, host, time, sample_period */
	const char *countname;         /* default "bytes": values shown as B/KiB/MiB/GiB */
	const char *nametype;          /* default "Function:" */
	const char *fonttype;          /* default "Verdana" */
	const char *colors;            /* palette: hot, mem (default), io, red, green,
	                                  blue, aqua, yellow, purple, orange */
	double width;                  /* image width in px; 0 = fit the page (1200 units) */
	double frameheight;            /* px per frame; default 16 */
	double fontsize;               /* default 12 */
	double minwidth;               /* default 1; px, or % of the total if minwidth_pct */
	int minwidth_pct;
	enum fk_flame_sort sort;
	unsigned hash : 1;             /* colour by name only (same name, same colour) */
	unsigned inverted : 1;         /* icicle graph: root at the top (the default) */
	unsigned reverse : 1;          /* reverse every stack (leaf becomes root) */
	unsigned flamechart : 1;       /* no merging: input order, adjacent frames merge */
	unsigned negate : 1;           /* differential: swap the grew/shrank colours */
	unsigned normalize : 1;        /* differential: scale the base to the new total */
	unsigned skip_bad : 1;         /* bad lines are warned about and skipped */
	unsigned threads : 1;          /* may start second threads to read a file,
	                                  finish the tree and write the page
	                                  (render-flame; not the hook, whose threads
	                                  must not be sampled by jemalloc) */
	/* Told about each skipped line when skip_bad (may be NULL). */
	void (*warn)(void *ctx, const struct fk_err *e);
	void *warn_ctx;
};

struct fk_flame;

/* Fills o with the defaults above. */
void fk_flame_opts_init(struct fk_flame_opts *o);

/* Returns a new empty flame graph using o (copied; its strings are borrowed
 * and must outlive the graph), or NULL with err. */
struct fk_flame *fk_flame_new(const struct fk_flame_opts *o, struct fk_err *err);

/* Frees f. NULL is a no-op. */
void fk_flame_free(struct fk_flame *f);

/* Adds the folded stacks of data[0..len) (names are copied). base != 0
 * adds them to the base profile of a differential graph (BASE -> the other
 * inputs). err->path names the input in messages. Returns 0, or -1 with err
 * naming the bad line. */
int fk_flame_add_folded(struct fk_flame *f, const char *data, size_t len,
			int base, struct fk_err *err);

/* The same, reading the open file descriptor fd to its end in pieces (so
 * memory does not grow with the input's size); a regular file is read on
 * a second thread when the options allow threads. fd is not closed. */
int fk_flame_add_fd(struct fk_flame *f, int fd, int base, struct fk_err *err);

/* Adds one stack of n frames, root first (names[i] of lens[i] bytes,
 * copied) with value v >= 0. Returns 0 or -1 with err. */
int fk_flame_add_stack(struct fk_flame *f, const char *const *names,
		       const size_t *lens, size_t n, int64_t v, int base,
		       struct fk_err *err);

/* Names the value columns of a graph whose stacks come from
 * fk_flame_add_stack_cols: cols as after "# columns:" in folded text
 * ("inuse_space/bytes inuse_objects/count ..."). Before any stack; not for
 * a differential graph. Returns 0, or -1 with err. */
int fk_flame_set_columns(struct fk_flame *f, const char *cols, struct fk_err *err);

/* fk_flame_add_stack with a value in each column fk_flame_set_columns
 * named, v[0..ncols) (each >= 0): the page is render-flame's on the
 * "# columns:" text of the same stacks. Returns 0 or -1 with err. */
int fk_flame_add_stack_cols(struct fk_flame *f, const char *const *names,
			    const size_t *lens, size_t n, const int64_t *v,
			    struct fk_err *err);

/* The same for the file at path ("-" = stdin, left open), err reset to
 * name path. */
int fk_flame_add_path(struct fk_flame *f, const char *path, int base, struct fk_err *err);

/* render-flame's options that set struct fk_flame_opts, by long name, for
 * getopt_long tables; has_arg is 0 or 1; the last name is NULL. */
struct fk_flame_optname {
	const char *name;
	int has_arg;
};
extern const struct fk_flame_optname fk_flame_optnames[];

/* Sets option name (of fk_flame_optnames) to value v (NULL for those with
 * no argument; borrowed as o's strings are). Returns 0, or -1 with err's
 * message quoting the bad value. */
int fk_flame_opt_set(struct fk_flame_opts *o, const char *name, const char *v,
		     struct fk_err *err);

/* Checks the sizes render-flame allows (narrower than fk_flame_new's).
 * Returns 0, or -1 with err's message naming the option. */
int fk_flame_opts_check(const struct fk_flame_opts *o, struct fk_err *err);

/* Lays out the merged stacks and writes the SVG to out. Returns 0, or -1
 * with err (write error or out of memory). */
int fk_flame_write(struct fk_flame *f, FILE *out, struct fk_err *err);

/* One call: folded text (optionally a base for a differential graph; base
 * may be NULL) to an SVG on out. Nothing is written unless the
 * whole input parsed. Returns 0 or -1 with err. */
int fk_flame_render(const char *folded, size_t len, const char *base,
		    size_t base_len, const struct fk_flame_opts *o, FILE *out,
		    struct fk_err *err);

/* The column names of f's input ("# columns:" header, names separated by
 * one space), "" for plain one-value folded input. Valid while f lives. */
const char *fk_flame_columns(const struct fk_flame *f);

/* Checks a palette name; returns 0 if known, else -1. */
int fk_flame_palette_check(const char *name);

#endif
