/* SPDX-License-Identifier: MIT */
/* heap-waste: a heap dump and jemalloc's statistics (malloc_stats_print's
 * JSON) -> where the memory goes: slab waste by size class laid to the
 * allocation sites, large padding, pages (see man/heap-waste.1). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "io.h"
#include "jestats.h"
#include "symbolize.h"
#include "waste_enc.h"

static const char usage_text[] =
	"usage: heap-waste --stats STATS.json [--lifetimes RAW] [--format json|folded]\n"
	"                  [--sysroot DIR] [-o FILE] [DUMP | -]\n"
	"Reads a jemalloc heap dump (raw or symbolized) and jemalloc's statistics as\n"
	"malloc_stats_print writes them with opts J, and writes where the memory goes:\n"
	"each size class's slab waste laid to the allocation sites, the pages.\n"
	"  -S, --stats FILE  malloc_stats_print's JSON (MALLOC_CONF=stats_print:true,\n"
	"                    stats_print_opts:J writes it at exit)\n"
	"  -l, --lifetimes RAW\n"
	"                    the lifetimes raw form (GET /internal/heap/lifetimes?\n"
	"                    format=raw): each sampled allocation's size, to split a\n"
	"                    site across the size classes it allocates in\n"
	"  -f, --format FMT  json (classes, sites, pages; the default) or folded (each\n"
	"                    site's waste in bytes, for render-flame)\n"
	"  -s, --sysroot DIR find every module under DIR\n"
	"  -o, --output FILE write to FILE instead of standard output\n"
	"  -h, --help        print this help and exit\n"
	"  -V, --version     print the version and exit\n";

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "stats", 1, NULL, 'S' }, { "lifetimes", 1, NULL, 'l' }, { "format", 1, NULL, 'f' },
		{ "sysroot", 1, NULL, 's' }, { "output", 1, NULL, 'o' },
		FK_CLI_OPTIONS_END,
	};
	struct fk_symbolize_opts so = { 0 };
	const char *outpath = NULL, *statspath = NULL, *lifepath = NULL, *path, *fmt = "json";
	struct fk_waste_split *sp = NULL;
	struct fk_jestats st;
	struct fk_waste w;
	struct fk_profile *p;
	struct fk_out out;
	struct fk_err err;
	int c;

	fk_cli_init(argv[0]);
	while ((c = getopt_long(argc, argv, "S:l:f:s:o:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'S': statspath = optarg; break;
		case 'l': lifepath = optarg; break;
		case 'f': fmt = optarg; break;
		case 's': so.sysroot = optarg; break;
		case 'o': outpath = optarg; break;
		default: fk_cli_option(c, usage_text);
		}
	}
	if (strcmp(fmt, "json") && strcmp(fmt, "folded")) {
		fk_warn("bad --format '%s' (json or folded)", fmt);
		fk_usage(usage_text, stderr, 2);
	}
	if (!statspath)
		fk_bad_usage(usage_text, "--stats STATS.json is required");
	path = fk_cli_operand(argc, argv, usage_text);
	if ((strcmp(path, "-") == 0) + (strcmp(statspath, "-") == 0) +
	    (lifepath && strcmp(lifepath, "-") == 0) > 1)
		fk_bad_usage(usage_text, "only one input can be standard input");
	fk_jestats_init(&st);
	fk_err_init(&err, statspath);
	if (fk_jestats_load(&st, statspath, &err) < 0)
		fk_die_err(&err);
	p = fk_cli_load(path);
	fk_err_init(&err, path);
	if (lifepath) {
		fk_err_init(&err, lifepath);
		if (!(sp = fk_waste_split_load(&st, p, lifepath, &err)))
			fk_die_err(&err);
		fk_err_init(&err, path);
	}
	if ((!p->symbolized && fk_symbolize(p, &so, &err) < 0) ||
	    fk_waste_compute_split(&w, &st, p, NULL, sp, &err) < 0)
		fk_die_err(&err);
	fk_cli_open_out(&out, outpath);
	fk_cli_commit_out(&out, fk_waste_write(p, &w, &st, fmt, out.fp, &err), &err);
	fk_waste_release(&w);
	fk_waste_split_free(sp);
	fk_jestats_release(&st);
	fk_profile_free(p);
	return 0;
}
