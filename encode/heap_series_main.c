/* SPDX-License-Identifier: MIT */
/* heap-series: a series of jemalloc heap dumps -> one multi-column folded
 * file with a "# series:" line per dump, which render-flame draws as a
 * timeline (see man/heap-series.1). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "io.h"
#include "limits.h"
#include "series_enc.h"
#include "symbolize.h"

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
	"  -V, --version            print the version and exit\n";

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "sysroot", required_argument, NULL, 's' }, { "debug-dir", required_argument, NULL, 'd' },
		{ "keep-order", no_argument, NULL, 'k' }, { "mtime", no_argument, NULL, 'm' },
		{ "output", required_argument, NULL, 'o' },
		FK_CLI_OPTIONS_END,
	};
	struct fk_cli_warned warned = { NULL, 0 };
	struct fk_symbolize_opts so = { .warn = fk_cli_warn_module, .warn_ctx = &warned };
	const char **dirs = fk_xmalloc((size_t)argc * sizeof *dirs);
	const char *outpath = NULL;
	int c, keep = 0, mtime = 0;
	struct fk_series_dump *d;
	struct fk_series_enc *s;
	struct fk_err err;
	struct fk_out out;
	size_t nd, i;

	fk_cli_init(argv[0]);
	so.debug_dirs = dirs;
	while ((c = getopt_long(argc, argv, "s:d:kmo:hV", opts, NULL)) != -1) {
		switch (c) {
		case 's': so.sysroot = optarg; break;
		case 'd': dirs[so.ndebug_dirs++] = optarg; break;
		case 'k': keep = 1; break;
		case 'm': mtime = 1; break;
		case 'o': outpath = optarg; break;
		default: fk_cli_option(c, usage_text);
		}
	}
	if (optind == argc)
		fk_usage(usage_text, stderr, 2);
	if ((nd = (size_t)(argc - optind)) > FK_MAX_COLUMNS)
		fk_die("%zu dumps (a series holds at most %d)", nd, FK_MAX_COLUMNS);
	d = fk_xmalloc(nd * sizeof *d);
	fk_err_init(&err, NULL);
	if (fk_series_order((const char *const *)argv + optind, nd, keep, d, &err) < 0 ||
	    !(s = fk_series_enc_new((uint32_t)nd, &err)))
		fk_die_err(&err);
	/* One module cache for the series: a module is opened and named once
	 * however many dumps map it (each dump's maps are still checked
	 * against the file); a profile's names live in it until the next. */
	so.cache = fk_symcache_new(FK_SERIES_CACHE_BYTES);
	for (i = 0; i < nd; i++) {
		struct fk_profile *p = fk_cli_load(d[i].path);
		struct fk_snapmeta m;

		fk_err_init(&err, p->source);
		if ((!p->symbolized && fk_symbolize(p, &so, &err) < 0) ||
		    fk_series_dump_meta(&d[i], mtime, &m, &err) < 0 ||
		    fk_series_enc_add(s, (uint32_t)i, p, &m, &err) < 0)
			fk_die_err(&err);
		fk_profile_free(p);
	}
	fk_cli_open_out(&out, outpath);
	fk_err_init(&err, NULL);
	fk_cli_commit_out(&out, fk_series_enc_write(s, out.fp, &err), &err);
	fk_series_enc_free(s);
	fk_symcache_free(so.cache);
	fk_cli_warned_release(&warned);
	free(d);
	free(dirs);
	return 0;
}
