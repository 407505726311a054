/* SPDX-License-Identifier: MIT */
/* jeprof-raw: read, validate, diff and re-emit a jemalloc heap dump (see
 * man/jeprof-raw.1). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "diff.h"
#include "heapdump.h"
#include "io.h"
#include "symprof.h"
#include "fetch.h"

static const char usage[] =
	"usage: jeprof-raw [-o OUT] [--check] [--stats] [--base OLD [--keep-negative]]\n"
	"                  [FILE | - | http://HOST:PORT | unix:PATH]\n"
	"Reads one jemalloc heap dump (a file, stdin, or the hook of a running\n"
	"process), validates it strictly and writes it to stdout as a raw profile.\n"
	"  -o, --output OUT   write to OUT (replaced only when all went well)\n"
	"  -c, --check        validate only, write nothing\n"
	"  -s, --stats        print unbiased totals, stacks, depth, mappings on stderr\n"
	"  -b, --base OLD     write the growth from dump OLD to FILE\n"
	"  -n, --keep-negative  with --base, keep stacks that shrank (negative counts)\n"
	"  -h, --help         show this help\n"
	"  -V, --version      print the version and exit\n";

/* Reads and parses one operand: a file, "-", or a hook URL. */
static struct fk_profile *load(const char *name)
{
	struct fk_profile *p;
	struct fk_err err;

	if (!fk_fetch_is_url(name))
		return fk_cli_load(name);
	fk_err_init(&err, name);
	if (!(p = fk_fetch_profile(name, &err)))
		fk_die_err(&err);
	return p;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' }, { "check", no_argument, NULL, 'c' },
		{ "stats", no_argument, NULL, 's' }, { "base", required_argument, NULL, 'b' },
		{ "keep-negative", no_argument, NULL, 'n' },
		FK_CLI_OPTIONS_END,
	};
	const char *outpath = NULL, *basepath = NULL, *in;
	int check = 0, stats = 0, keep_negative = 0, c;
	struct fk_profile *p, *base = NULL, *growth = NULL;
	struct fk_out out;
	struct fk_err err;

	fk_cli_init(argv[0]);
	while ((c = getopt_long(argc, argv, "o:csb:nhV", opts, NULL)) != -1) {
		switch (c) {
		case 'o': outpath = optarg; break;
		case 'c': check = 1; break;
		case 's': stats = 1; break;
		case 'b': basepath = optarg; break;
		case 'n': keep_negative = 1; break;
		default: fk_cli_option(c, usage);
		}
	}
	if ((keep_negative && !basepath) || (check && outpath))
		fk_usage(usage, stderr, 2);
	in = fk_cli_operand(argc, argv, usage);
	p = load(in);
	if (basepath) {
		base = load(basepath);
		growth = fk_profile_new(p->source);
		if (!growth)
			fk_die("out of memory");
		fk_err_init(&err, p->source);
		if (fk_profile_diff(growth, base, p, keep_negative ? FK_DIFF_NEGATIVE : FK_DIFF_GROWTH, &err) < 0)
			fk_die_err(&err);
	}
	if (stats)                     /* figures for a person: not the output */
		(void)fk_profile_stats_write(growth ? growth : p, stderr);
	if (!check) {
		fk_cli_open_out(&out, outpath);
		fk_err_init(&err, outpath ? outpath : "stdout");
		fk_cli_commit_out(&out, fk_heapdump_write(growth ? growth : p, out.fp, &err), &err);
	}
	fk_profile_free(growth);
	fk_profile_free(base);
	fk_profile_free(p);
	return 0;
}
