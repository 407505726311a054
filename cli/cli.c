/* SPDX-License-Identifier: MIT */
/* The tools' shared main-side helpers (see cli.h). */
#include "cli.h"

#include "bigmem.h"
#include "grow.h"

#include "io.h"
#include "profile.h"
#include "symprof.h"

#include <malloc.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

const char *fk_progname = "flamekit";

/* glibc's main heap grows in steps this large, on transparent huge pages
 * of this size. */
#define HEAP_STEP ((size_t)64 << 20)

/* The blocks tune_heap() skips, kept for the life of the process. */
static void *volatile held[2];

/* A tool is short-lived and touches most of what it allocates once, so
 * the cost of memory is the cost of faulting it in: one fault per 4 KiB
 * page by default, one per 2 MiB on huge pages (on the virtual machines
 * CI runs on, a fault costs 10-20 us; see bench/README.md). Keep every
 * allocation in glibc's main heap (no per-thread arenas, no mmap per big
 * block), grow that heap in big steps, start what follows on a huge-page
 * boundary (the skipped bytes are never touched) and ask for huge pages
 * on it. An allocator that ignores these settings (a sanitizer's) loses
 * nothing. */
static void tune_heap(void)
{
	mallopt(M_ARENA_MAX, 1);
	mallopt(M_MMAP_THRESHOLD, (int)(HEAP_STEP / 2));
	mallopt(M_TOP_PAD, (int)HEAP_STEP);
	mallopt(M_TRIM_THRESHOLD, (int)(2 * HEAP_STEP));
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = ((uintptr_t)sbrk(0) + page - 1) & ~(page - 1);
	/* More than the heap holds now: glibc extends it by HEAP_STEP. Both
	 * blocks are kept, untouched (static, so not reported as leaks). */
	char *skip = malloc(FK_HUGE_PAGE);
	if (!skip)
		return;
	held[0] = skip;
	size_t gap = (FK_HUGE_PAGE - ((uintptr_t)skip + FK_HUGE_PAGE) % FK_HUGE_PAGE) % FK_HUGE_PAGE;
	if (gap > 256)
		held[1] = malloc(gap - 64);
	uintptr_t hi = (uintptr_t)sbrk(0) & ~(page - 1);
	if (hi > lo)
		fk_big_advise((void *)lo, hi - lo);
}

void fk_cli_init(const char *argv0)
{
	const char *slash;

	tune_heap();
	if (!argv0 || !*argv0)
		return;
	slash = strrchr(argv0, '/');
	fk_progname = slash ? slash + 1 : argv0;
}

static void vwarn(const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", fk_progname);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void fk_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
}

void fk_warn_err(const struct fk_err *err)
{
	char buf[1024];

	fprintf(stderr, "%s: %s\n", fk_progname, fk_err_str(err, buf, sizeof buf));
}

void fk_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
	exit(1);
}

void fk_die_err(const struct fk_err *err)
{
	fk_warn_err(err);
	exit(1);
}

void fk_usage(const char *text, FILE *fp, int status)
{
	fputs(text, fp);
	exit(status);
}

void fk_warn_cb(void *ctx, const struct fk_err *err)
{
	(void)ctx;
	fk_warn_err(err);
}

void fk_cli_warn_module(void *ctx, const char *module, const char *what)
{
	struct fk_cli_warned *w = ctx;
	size_t i;

	for (i = 0; i < w->n; i++)
		if (strcmp(w->mods[i], module) == 0)
			return;
	w->mods = fk_xrealloc(w->mods, (w->n + 1) * sizeof *w->mods);
	w->mods[w->n] = fk_xmalloc(strlen(module) + 1);
	strcpy(w->mods[w->n++], module);
	fk_warn("%s: %s", module, what);
}

void fk_cli_warned_release(struct fk_cli_warned *w)
{
	while (w->n)
		free(w->mods[--w->n]);
	free(w->mods);
	w->mods = NULL;
}

void fk_bad_usage(const char *text, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", fk_progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fk_usage(text, stderr, 2);
}

void fk_print_version(void)
{
	printf("%s (flamekit) %s\n", fk_progname, FK_VERSION);
	exit(0);
}

void fk_cli_option(int c, const char *usage_text)
{
	if (c == 'h')
		fk_usage(usage_text, stdout, 0);
	if (c == 'V')
		fk_print_version();
	fk_usage(usage_text, stderr, 2);
}

const char *fk_cli_operand(int argc, char **argv, const char *usage_text)
{
	if (argc - optind > 1)
		fk_usage(usage_text, stderr, 2);
	return optind < argc ? argv[optind] : "-";
}

void *fk_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		fk_die("out of memory");
	return p;
}

void *fk_xrealloc(void *p, size_t n)
{
	p = fk_resize(p, n, n, 1);
	if (!p)
		fk_die("out of memory");
	return p;
}

struct fk_profile *fk_cli_load(const char *path)
{
	struct fk_profile *p = fk_profile_new(path ? path : "-");
	struct fk_err err;

	if (!p)
		fk_die("out of memory");
	fk_err_init(&err, p->source);
	if (fk_profile_load(p, path, &err) < 0)
		fk_die_err(&err);
	return p;
}

void fk_cli_note_unsymbolized(const struct fk_profile *p)
{
	if (!p->symbolized && p->nstacks > 0)
		fk_warn("%s: not symbolized: frames are named module+offset; "
			"run symbolize on it first for function names", p->source);
}

void fk_cli_open_out(struct fk_out *out, const char *path)
{
	struct fk_err err;

	fk_err_init(&err, path && strcmp(path, "-") ? path : "stdout");
	if (fk_out_open(out, path, &err) < 0)
		fk_die_err(&err);
	/* A pipe holds 64 KiB: fill it in one write, not sixteen. */
	setvbuf(out->fp, NULL, _IOFBF, (size_t)64 << 10);
}

void fk_cli_commit_out(struct fk_out *out, int rc, struct fk_err *err)
{
	struct fk_err werr;
	char *name;

	if (rc < 0) {
		fk_out_abort(out);
		fk_die_err(err);
	}
	/* A copy: a failed commit frees out->path before the error is told. */
	name = out->path ? strdup(out->path) : NULL;
	if (out->path && !name)
		fk_die("out of memory");
	fk_err_init(&werr, name ? name : "stdout");
	if (fk_out_commit(out, &werr) < 0) {
		fk_out_abort(out);
		fk_die_err(&werr);
	}
	free(name);
}
