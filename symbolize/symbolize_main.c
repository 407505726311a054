/* SPDX-License-Identifier: MIT */
/* symbolize: resolve every address of a heap profile with the dump's own
 * maps and write the symbolized profile (man/symbolize.1). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "io.h"
#include "symbolize.h"
#include "symprof.h"

static const char usage[] =
	"usage: symbolize [--sysroot DIR] [--debug-dir DIR]... [--keep-allocator-frames]\n"
	"                 [-o OUT] [FILE | -]\n"
	"Reads a raw (or symbolized) jemalloc heap profile, resolves every address\n"
	"through the dump's own memory maps and writes the symbolized profile.\n"
	"  -s, --sysroot DIR        find every module (and /usr/lib/debug) under DIR\n"
	"  -d, --debug-dir DIR      also search DIR for debug files (repeatable)\n"
	"  -k, --keep-allocator-frames  keep jemalloc's and malloc's own frames\n"
	"  -o, --output OUT         write to OUT (replaced only when all went well)\n"
	"  -h, --help               show this help\n"
	"  -V, --version            print the version and exit\n";

static void warn_module(void *ctx, const char *module, const char *what)
{
	(void)ctx;
	fk_warn("%s: %s", module, what);
}

static void warn_server(void *ctx, const char *urls, const char *what)
{
	(void)ctx;
	fk_warn("debuginfod %s: %s", urls, what);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "sysroot", required_argument, NULL, 's' },
		{ "debug-dir", required_argument, NULL, 'd' },
		{ "keep-allocator-frames", no_argument, NULL, 'k' },
		{ "output", required_argument, NULL, 'o' },
		FK_CLI_OPTIONS_END,
	};
	struct fk_symbolize_opts so = { .warn = warn_module, .warn_server = warn_server };
	const char **dirs = fk_xmalloc((size_t)argc * sizeof *dirs);
	const char *outpath = NULL, *in;
	struct fk_profile *p;
	struct fk_out out;
	struct fk_err err;
	size_t ndirs = 0;
	int c;

	fk_cli_init(argv[0]);
	while ((c = getopt_long(argc, argv, "s:d:ko:hV", opts, NULL)) != -1) {
		switch (c) {
		case 's': so.sysroot = optarg; break;
		case 'd': dirs[ndirs++] = optarg; break;
		case 'k': so.keep_allocator_frames = 1; break;
		case 'o': outpath = optarg; break;
		default: free(dirs); fk_cli_option(c, usage);
		}
	}
	if (argc - optind > 1) {
		free(dirs);
		fk_usage(usage, stderr, 2);
	}
	so.debug_dirs = dirs;
	so.ndebug_dirs = ndirs;
	in = optind < argc ? argv[optind] : "-";
	p = fk_cli_load(in);
	fk_err_init(&err, p->source);
	if (fk_symbolize(p, &so, &err) < 0)
		fk_die_err(&err);
	fk_cli_open_out(&out, outpath);
	fk_err_init(&err, p->source);
	fk_cli_commit_out(&out, fk_symprof_write(p, out.fp, &err), &err);
	fk_profile_free(p);
	free(dirs);
	return 0;
}
