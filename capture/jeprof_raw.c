/* SPDX-License-Identifier: MIT */
/* jeprof-raw: read, validate, diff and re-emit a jemalloc heap dump. */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
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
	"  -V, --version      show the version\n";

/* An operand naming a running process's hook rather than a file. */
static int is_url(const char *s)
{
	return strncmp(s, "http://", 7) == 0 || strncmp(s, "unix:", 5) == 0;
}

/* Reads and parses one operand: a file, "-", or a hook URL. */
static struct fk_profile *load(const char *name)
{
	struct fk_profile *p;
	struct fk_err err;
	char *data;
	size_t len;

	if (!is_url(name))
		return fk_cli_load(name);
	p = fk_profile_new(name);
	if (!p)
		fk_die("out of memory");
	fk_err_init(&err, p->source);
	if (fk_fetch(name, &data, &len, &err) < 0)
		fk_die_err(&err);
	if (len >= 2 && (unsigned char)data[0] == 0x1f && (unsigned char)data[1] == 0x8b) {
		/* /debug/pprof/heap and ?format=pprof serve pprof, not a dump. */
		fk_err_set(&err, FK_EUNSUPP, 0, "this URL serves a pprof profile, not a raw "
			   "dump: give the hook's base URL (http://HOST:PORT), from which "
			   "jeprof-raw fetches /internal/heap?format=raw");
		fk_die_err(&err);
	}
	fk_profile_own(p, data);
	if (fk_profile_parse(p, data, len, &err) < 0)
		fk_die_err(&err);
	return p;
}

static long long round_ll(double v)
{
	if (!(fabs(v) < 9.2e18))
		return v < 0 ? -9200000000000000000LL : 9200000000000000000LL;
	return llround(v);
}

static void print_stats(const struct fk_profile *p)
{
	struct fk_values t = fk_profile_totals(p);
	uint32_t depth = 0;
	size_t i;

	for (i = 0; i < p->nstacks; i++) {
		const struct fk_stack *st = &p->stacks[i];
		/* The mark of a cut stack is no frame. */
		uint32_t d = st->depth - (st->depth && st->addrs[st->depth - 1] == FK_ADDR_TRUNCATED);

		if (d > depth)
			depth = d;
	}
	fprintf(stderr, "objects: %lld\n", round_ll(t.objs));
	fprintf(stderr, "bytes: %lld\n", round_ll(t.bytes));
	if (p->has_accum) {
		fprintf(stderr, "alloc_objects: %lld\n", round_ll(t.acc_objs));
		fprintf(stderr, "alloc_bytes: %lld\n", round_ll(t.acc_bytes));
	}
	fprintf(stderr, "stacks: %zu\n", p->nstacks);
	fprintf(stderr, "max_depth: %" PRIu32 "\n", depth);
	fprintf(stderr, "mappings: %zu\n", p->nmaps);
	fprintf(stderr, "threads: %zu\n", p->nthreads);
	fprintf(stderr, "period: %" PRIu64 "\n", p->period);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "check", no_argument, NULL, 'c' },
		{ "stats", no_argument, NULL, 's' },
		{ "base", required_argument, NULL, 'b' },
		{ "keep-negative", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
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
		case 'h': fk_usage(usage, stdout, 0);
		case 'V': fk_print_version();
		default: fk_usage(usage, stderr, 2);
		}
	}
	if (argc - optind > 1 || (keep_negative && !basepath) || (check && outpath))
		fk_usage(usage, stderr, 2);
	in = optind < argc ? argv[optind] : "-";
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
	if (stats)
		print_stats(growth ? growth : p);
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
