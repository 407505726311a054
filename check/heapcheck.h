/* SPDX-License-Identifier: MIT */
/* heap-check's library (libfkcheck.a): a profile read as allocation sites,
 * byte sizes and budget files, the checks of a profile against budgets,
 * and the reports of their outcome (see man/heap-check.1). */
#ifndef FK_HEAPCHECK_H
#define FK_HEAPCHECK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "err.h"

struct fk_arena;

/* ---- sites.c: any profile the pipeline reads, as sites ---- */

/* One allocation site: a distinct stack, root first, frames joined by ';'
 * as in folded stacks, with its in-use and allocated bytes. */
struct fk_site {
	const char *stack;             /* not NUL-terminated */
	size_t len;
	int64_t inuse, alloc;
};

struct fk_sites {
	const char *source;            /* the input's name (borrowed) */
	struct fk_site *v;             /* sorted bytewise by stack, unique */
	size_t n, cap;
	int has_alloc;                 /* the input carries allocated bytes */
	int64_t inuse, alloc;          /* the totals */
	char *text;                    /* the folded text the stacks point into */
	size_t textlen;
	int text_input;                /* text is the input itself (fk_release_input) */
	int mapped;                    /* how the input was read (io.h) */
};

/* Called once per module symbolize cannot use (symbolize.h). */
typedef void fk_sites_warn_fn(void *ctx, const char *module, const char *what);

/* Reads path ("-" or NULL = stdin) into s: a raw jemalloc dump (heap_v2 or
 * legacy; symbolized here with its own maps, warn told of unusable
 * modules, may be NULL), a symbolized profile, a pprof profile (gzipped or
 * not; inuse_space and alloc_space) or folded stacks (one value, taken as
 * in-use bytes, or a "# columns:" header naming inuse_space and perhaps
 * alloc_space). Every input goes through the folded writers of encode/, so
 * sites are named as to-folded and from-pprof name them. path is borrowed
 * for s's life. Returns 0, or -1 with err (naming path). */
int fk_sites_load(struct fk_sites *s, const char *path, fk_sites_warn_fn *warn,
		  void *warn_ctx, struct fk_err *err);

/* The same from folded text data[0..len) (borrowed for s's life); what
 * fk_sites_load does once the input is folded. */
int fk_sites_parse_folded(struct fk_sites *s, const char *source, const char *data,
			  size_t len, struct fk_err *err);

/* Frees what s holds. */
void fk_sites_release(struct fk_sites *s);

/* ---- budget.c: sizes and budget files ---- */

/* Parses a limit s[0..n) into *out: a size (fk_parse_bytes, at most
 * INT64_MAX; *pct set to 0), or, only when pct is not NULL, a growth
 * limit: a whole or decimal number of percent followed by '%' (*pct set
 * to 1, *out to hundredths of percent). Returns 0 or -1. */
int fk_limit_parse(const char *s, size_t n, int64_t *out, int *pct);

/* One line of a budget file. */
struct fk_budget_line {
	const char *pattern;           /* NUL-terminated, owned by the budget */
	int64_t limit;                 /* bytes */
	uint64_t lineno;
};

struct fk_budget {
	struct fk_budget_line *v;
	size_t n, cap;
	struct fk_arena *arena;        /* the patterns */
};

/* Parses a budget file data[0..len): one "PATTERN SIZE" a line, the size
 * being the last blank-separated field and the pattern everything before
 * it (inner blanks kept); '#' starts a comment line, blank lines are
 * skipped. At most FK_MAX_BUDGET_LINES lines with a budget. Returns 0, or
 * -1 with err at the bad line (b is then empty). */
int fk_budget_parse(struct fk_budget *b, const char *data, size_t len,
		    struct fk_err *err);

/* Reads the budget file path ("-" = stdin) and parses it as
 * fk_budget_parse does. Returns 0, or -1 with err. */
int fk_budget_load(struct fk_budget *b, const char *path, struct fk_err *err);

/* Frees what b holds. */
void fk_budget_release(struct fk_budget *b);

/* ---- budget_match.c: the budget line a stack counts toward ---- */

struct fk_budget_match;

/* Prepares the matching of stacks against b (borrowed until free): each
 * distinct frame name is matched against the lines once and its first line
 * kept, and a pattern without wildcards is looked up by its text, so the
 * cost is bounded by distinct names times glob lines, not by stacks times
 * frames times lines. Returns NULL when out of memory. */
struct fk_budget_match *fk_budget_match_new(const struct fk_budget *b);

/* Frees m (NULL is a no-op). */
void fk_budget_match_free(struct fk_budget_match *m);

/* The index of the first line of m's budget whose pattern (an fnmatch(3)
 * glob, flags 0, matched against whole frame names) matches some frame of
 * stack[0..len) (frames separated by ';', each up to a NUL byte if it holds
 * one), -1 when none does, or -2 when out of memory. */
long fk_budget_match_stack(struct fk_budget_match *m, const char *stack, size_t len);

/* ---- verdict.c: the checks ---- */

/* How many sites a report lists for a check that failed. */
#define FK_CHECK_LIST 10

enum fk_check_kind {
	FK_CHECK_INUSE,                /* --max-inuse: the in-use total */
	FK_CHECK_ALLOC,                /* --max-alloc: the allocated total */
	FK_CHECK_GROWTH,               /* --max-growth: in-use total and each site */
	FK_CHECK_BUDGET,               /* a line of --budget */
};

/* A site a report lists: value is its bytes (its growth for
 * FK_CHECK_GROWTH, with base its bytes in the base). */
struct fk_check_site {
	const char *stack;
	size_t len;
	int64_t value, base;
};

struct fk_check {
	enum fk_check_kind kind;
	const char *pattern;           /* FK_CHECK_BUDGET: borrowed from the budget */
	uint64_t lineno;               /* FK_CHECK_BUDGET: its line */
	int64_t value;                 /* bytes (growth: of the total) */
	int64_t limit;                 /* bytes */
	int64_t total;                 /* what shares are of: the profile's total */
	int64_t base;                  /* FK_CHECK_GROWTH: the base's total */
	int64_t pct;                   /* FK_CHECK_GROWTH: limit in hundredths of a
	                                  percent of base, or -1 for a size */
	size_t matched;                /* FK_CHECK_BUDGET: stacks charged to it */
	size_t sites_over;             /* FK_CHECK_GROWTH: sites that grew past limit */
	int over;
	struct fk_check_site sites[FK_CHECK_LIST];
	size_t nsites;                 /* listed (only when over) */
	size_t more;                   /* sites not listed that would have been */
};

struct fk_verdict {
	const char *source, *base_source, *budget_source;
	int64_t inuse, alloc;          /* the profile's totals */
	int has_alloc;
	struct fk_check *v;
	size_t n, cap;
	size_t nover;
};

/* Prepares an empty verdict on the profile s (borrowed until release). */
void fk_verdict_init(struct fk_verdict *vd, const struct fk_sites *s);

/* Frees what vd holds. */
void fk_verdict_release(struct fk_verdict *vd);

/* Adds the check of s's total in-use (kind FK_CHECK_INUSE) or allocated
 * (FK_CHECK_ALLOC) bytes against limit; over it, the heaviest sites are
 * listed. Returns 0, or -1 with err (allocated bytes asked of an input
 * without them, out of memory). */
int fk_verdict_total(struct fk_verdict *vd, const struct fk_sites *s,
		     enum fk_check_kind kind, int64_t limit, struct fk_err *err);

/* Adds the growth check of s against base: the growth of the in-use total,
 * and of every site, may not exceed limit (bytes, or when pct hundredths of
 * a percent of base's total); over it, the sites that grew most are listed
 * (only sites that grew). Returns 0, or -1 with err. */
int fk_verdict_growth(struct fk_verdict *vd, const struct fk_sites *s,
		      const struct fk_sites *base, int64_t limit, int pct,
		      struct fk_err *err);

/* Adds one check per line of b: each site is charged to the first line
 * whose pattern matches one of its frames (fk_budget_match_stack); a line is
 * over when its sites' in-use bytes exceed its size. Returns 0, or -1
 * with err. */
int fk_verdict_budget(struct fk_verdict *vd, const struct fk_sites *s,
		      const struct fk_budget *b, struct fk_err *err);

/* ---- report.c, junit.c, figures.c: the outcome in a format ---- */

enum fk_report_format {
	FK_REPORT_TEXT,                /* for a terminal or a CI log */
	FK_REPORT_MARKDOWN,            /* for a CI job's summary: tables */
	FK_REPORT_JUNIT,               /* JUnit XML: a test case per check */
};

/* Writes vd in format f to out. Returns 0, or -1 with err on a write
 * error. */
int fk_report_write(const struct fk_verdict *vd, enum fk_report_format f, FILE *out,
		    struct fk_err *err);

/* The text and markdown writers, and the JUnit one (junit.c). */
int fk_report_text(const struct fk_verdict *vd, FILE *out, int markdown);
int fk_report_junit(const struct fk_verdict *vd, FILE *out);

/* What the writers share (figures.c). The title of check c ("in use",
 * "budget line 3 'parse_*'") into buf; a size in bytes as "1.5 MiB"
 * (exact below 1 KiB) into buf; a share of total as "12.5%" into buf;
 * a site named by its leaf and up to three callers, leaf first, joined by
 * " < " into buf. Each returns buf. */
char *fk_report_title(const struct fk_check *c, char *buf, size_t size);
char *fk_report_size(int64_t v, char *buf, size_t size);
char *fk_report_share(int64_t v, int64_t total, char *buf, size_t size);
char *fk_report_site(const char *stack, size_t len, char *buf, size_t size);

/* ---- run.c: one run of heap-check ---- */

struct fk_check_args {
	const char *path;              /* the profile ("-" or NULL = stdin) */
	const char *budget;            /* budget file, or NULL */
	const char *base;              /* base profile for growth, or NULL */
	int64_t inuse, alloc;          /* total budgets in bytes, -1 = none */
	int64_t growth;                /* growth limit (with base) */
	int pct;                       /* growth is hundredths of a percent */
	enum fk_report_format format;
	fk_sites_warn_fn *warn;        /* unusable modules (may be NULL); its ctx
	                                  is the name of the profile being read */
};

/* Reads a's inputs, makes its checks and writes the report in a's format
 * to out (nothing when an input is bad). Returns 0 when every check is
 * within its budget, 1 when one is over, or -1 with err naming the input
 * at fault (a write error names err's path as given: the output). */
int fk_check_run(const struct fk_check_args *a, FILE *out, struct fk_err *err);

#endif
