/* SPDX-License-Identifier: MIT */
/* heap-lifetimes: a lifetimes record (the hook's
 * /internal/heap/lifetimes?format=raw) -> one view of it, symbolized, as
 * JSON, pprof or folded stacks (see man/heap-lifetimes.1). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "io.h"
#include "life_enc.h"
#include "num.h"
#include "symbolize.h"

static const char usage_text[] =
	"usage: heap-lifetimes [--view sites|temporary|oldest|freed] [--max-ms N] [--min-s N]\n"
	"                      [--format json|pprof|folded|columns] [--sysroot DIR] [-o FILE]\n"
	"                      [FILE | -]\n"
	"Reads a lifetimes record (libflamekit-hook's /internal/heap/lifetimes?format=raw)\n"
	"and writes one view of it, symbolized.\n"
	"  -v, --view VIEW   sites: every record by allocation stack (the default);\n"
	"                    temporary: freed within --max-ms N (default 100) ms;\n"
	"                    oldest: live after --min-s N (default 60) s; freed: by free stack\n"
	"  -f, --format FMT  json (per site: counts, lifetimes; the default), pprof,\n"
	"                    folded, or columns: a column per lifetime (render-flame\n"
	"                    draws either; a columns page has a lifetime histogram)\n"
	"  -s, --sysroot DIR find every module under DIR\n"
	"  -o, --output FILE write to FILE instead of standard output\n"
	"  -h, --help        print this help and exit\n"
	"  -V, --version     print the version and exit\n";

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "view", 1, NULL, 'v' }, { "max-ms", 1, NULL, 'm' }, { "min-s", 1, NULL, 'n' },
		{ "format", 1, NULL, 'f' }, { "sysroot", 1, NULL, 's' }, { "output", 1, NULL, 'o' },
		FK_CLI_OPTIONS_END,
	};
	struct fk_life_query q = { FK_LIFE_SITES, 100, 60 };
	struct fk_symbolize_opts so = { 0 };
	const char *outpath = NULL, *path, *fmt = "json";
	struct fk_life_info info;
	struct fk_profile *p;
	struct fk_out out;
	struct fk_err err;
	uint64_t v;
	int c;

	fk_cli_init(argv[0]);
	while ((c = getopt_long(argc, argv, "v:m:n:f:s:o:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'v':
			if ((int)(q.view = (enum fk_life_view)fk_life_view_parse(optarg)) < 0) {
				fk_warn("bad --view '%s' (sites, temporary, oldest or freed)", optarg);
				fk_usage(usage_text, stderr, 2);
			}
			break;
		case 'm':
		case 'n':
			if (fk_parse_u64(optarg, strlen(optarg), &v) < 0 || v > 86400000) {
				fk_warn("bad --%s '%s' (0 to 86400000)", c == 'm' ? "max-ms" : "min-s", optarg);
				fk_usage(usage_text, stderr, 2);
			}
			*(c == 'm' ? &q.max_ms : &q.min_s) = (double)v;
			break;
		case 'f': fmt = optarg; break;
		case 's': so.sysroot = optarg; break;
		case 'o': outpath = optarg; break;
		default: fk_cli_option(c, usage_text);
		}
	}
	if (strcmp(fmt, "json") && strcmp(fmt, "pprof") && strcmp(fmt, "folded") &&
	    strcmp(fmt, "columns")) {
		fk_warn("bad --format '%s' (json, pprof, folded or columns)", fmt);
		fk_usage(usage_text, stderr, 2);
	}
	path = fk_cli_operand(argc, argv, usage_text);
	fk_err_init(&err, path);
	if (!(p = fk_life_load(path, &q, &info, &err)) || fk_symbolize(p, &so, &err) < 0)
		fk_die_err(&err);
	fk_cli_open_out(&out, outpath);
	fk_cli_commit_out(&out, fk_life_write(p, &info, &q, fmt, out.fp, &err), &err);
	fk_life_info_release(&info);
	fk_profile_free(p);
	return 0;
}
