/* SPDX-License-Identifier: MIT */
/* heap-series: a series of jemalloc heap dumps -> one multi-column folded
 * file with a "# series:" line per dump, which render-flame draws as a
 * timeline (see man/heap-series.1). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "io.h"
#include "limits.h"
#include "series_enc.h"
#include "symbolize.h"

/* What the module cache may hold while a series is read: the modules of a
 * large program and its libraries with their DWARF indexes. */
#define SERIES_CACHE_BYTES ((size_t)512 << 20)

static const char usage_text[] =
	"usage: heap-series [--sysroot DIR] [--debug-dir DIR]... [--keep-order]\n"
	"                   [--mtime] [-o FILE] DUMP...\n"
	"Reads a series of jemalloc heap dumps (raw or symbolized) of one process,\n"
	"orders them by the sequence number in their names, symbolizes each with\n"
	"its own maps and writes one folded file with a value column per dump\n"
	"(in-use bytes) and a \"# series:\" line per dump, for render-flame.\n"
	"  -s, --sysroot DIR        find every module (and /usr/lib/debug) under DIR\n"
	"  -d, --debug-dir DIR      also search DIR for debug files (repeatable)\n"
	"  -k, --keep-order         take the dumps in the order given, not by name\n"
	"  -m, --mtime              give each snapshot its file's modification time\n"
	"  -o, --output FILE        write to FILE instead of standard output\n"
	"  -h, --help               print this help and exit\n"
	"      --version            print the version and exit\n";

struct dump {
	const char *path;
	uint64_t pid, seq;
	size_t arg;                    /* position on the command line */
};

static int by_seq(const void *a, const void *b)
{
	const struct dump *x = a, *y = b;

	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return (x->arg > y->arg) - (x->arg < y->arg);
}

/* Each unusable module is told once, not once per dump. */
struct warned {
	char **mods;
	size_t n;
};

static void warn_module(void *ctx, const char *module, const char *what)
{
	struct warned *w = ctx;
	size_t i;

	for (i = 0; i < w->n; i++)
		if (strcmp(w->mods[i], module) == 0)
			return;
	w->mods = fk_xrealloc(w->mods, (w->n + 1) * sizeof *w->mods);
	w->mods[w->n] = fk_xmalloc(strlen(module) + 1);
	strcpy(w->mods[w->n++], module);
	fk_warn("%s: %s", module, what);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "sysroot", required_argument, NULL, 's' },
		{ "debug-dir", required_argument, NULL, 'd' },
		{ "keep-order", no_argument, NULL, 'k' },
		{ "mtime", no_argument, NULL, 'm' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct warned warned = { NULL, 0 };
	struct fk_symbolize_opts so = { .warn = warn_module, .warn_ctx = &warned };
	const char **dirs = fk_xmalloc((size_t)argc * sizeof *dirs);
	const char *outpath = NULL;
	int c, keep = 0, mtime = 0;
	size_t ndirs = 0, nd, i, named;
	struct dump *d;
	struct fk_series_enc *s;
	struct fk_err err;
	struct fk_out out;

	fk_cli_init(argv[0]);
	while ((c = getopt_long(argc, argv, "s:d:kmo:h", opts, NULL)) != -1) {
		switch (c) {
		case 's': so.sysroot = optarg; break;
		case 'd': dirs[ndirs++] = optarg; break;
		case 'k': keep = 1; break;
		case 'm': mtime = 1; break;
		case 'o': outpath = optarg; break;
		case 'h': fk_usage(usage_text, stdout, 0);
		case 'V': fk_print_version();
		default: fk_usage(usage_text, stderr, 2);
		}
	}
	if (optind == argc)
		fk_usage(usage_text, stderr, 2);
	so.debug_dirs = dirs;
	so.ndebug_dirs = ndirs;
	nd = (size_t)(argc - optind);
	if (nd > FK_MAX_COLUMNS)
		fk_die("%zu dumps (a series holds at most %d)", nd, FK_MAX_COLUMNS);
	d = fk_xmalloc(nd * sizeof *d);
	named = nd;                    /* the first dump whose name says its process */
	for (i = 0; i < nd; i++) {
		uint64_t pid, seq;

		d[i].path = argv[optind + (int)i];
		d[i].arg = i;
		d[i].pid = 0;
		d[i].seq = i;
		if (strcmp(d[i].path, "-") == 0)
			fk_die("-: a series is read from named files");
		if (fk_series_dump_seq(d[i].path, &pid, &seq) < 0) {
			if (!keep)
				fk_die("%s: no sequence number in the name (PREFIX.PID.SEQ.i0.heap "
				       "or flamekit.PID.SEQ.heap); use --keep-order", d[i].path);
			continue;
		}
		if (!keep)
			d[i].seq = seq;
		/* --keep-order changes the order, not the one-process rule:
		 * every name that says its process must say the same. */
		if (named < nd && pid != d[named].pid)
			fk_die("%s: dump of process %llu, not %llu like %s", d[i].path,
			       (unsigned long long)pid, (unsigned long long)d[named].pid,
			       d[named].path);
		d[i].pid = pid;
		if (named == nd)
			named = i;
	}
	if (!keep)
		qsort(d, nd, sizeof *d, by_seq);

	fk_err_init(&err, NULL);
	if (!(s = fk_series_enc_new((uint32_t)nd, &err)))
		fk_die_err(&err);
	/* One module cache for the series: a module is opened and its names
	 * are resolved once, however many dumps map it (each dump's maps are
	 * still checked against the file). A profile's names live in the
	 * cache until the next call, by when they are in the series. */
	so.cache = fk_symcache_new(SERIES_CACHE_BYTES);
	for (i = 0; i < nd; i++) {
		struct fk_profile *p = fk_cli_load(d[i].path);
		struct fk_snapmeta m;
		char id[32];

		fk_err_init(&err, p->source);
		if (!p->symbolized && fk_symbolize(p, &so, &err) < 0)
			fk_die_err(&err);
		snprintf(id, sizeof id, "%llu", (unsigned long long)d[i].seq);
		fk_series_meta_init(&m, id);
		if (mtime) {
			struct stat st;
			if (stat(d[i].path, &st) != 0)
				fk_die("%s: cannot stat", d[i].path);
			m.time_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
		}
		if (fk_series_enc_add(s, (uint32_t)i, p, &m, &err) < 0)
			fk_die_err(&err);
		fk_profile_free(p);
	}
	fk_cli_open_out(&out, outpath);
	fk_err_init(&err, NULL);
	fk_cli_commit_out(&out, fk_series_enc_write(s, out.fp, &err), &err);
	fk_series_enc_free(s);
	fk_symcache_free(so.cache);
	for (i = 0; i < warned.n; i++)
		free(warned.mods[i]);
	free(warned.mods);
	free(d);
	free(dirs);
	return 0;
}
