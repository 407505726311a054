/* SPDX-License-Identifier: MIT */
/* heap-check: a heap profile against memory budgets, for CI (see
 * man/heap-check.1). Exit 0 within every budget, 1 over any, 2 bad input. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "heapcheck.h"
#include "io.h"

static const char usage_text[] =
	"usage: heap-check [--max-inuse SIZE] [--max-alloc SIZE] [--budget FILE]\n"
	"                  [--base OLD --max-growth SIZE|N%] [--format text|markdown|junit]\n"
	"                  [-o FILE] [FILE | -]\n"
	"Checks a heap profile (raw dump, symbolized, pprof or folded) against memory\n"
	"budgets and reports the sites over them. Exit 0 within every budget, 1 over\n"
	"any, 2 on bad input or usage. SIZE is bytes or a whole number of KiB, MiB, GiB.\n"
	"  -i, --max-inuse SIZE      budget for the bytes in use\n"
	"  -a, --max-alloc SIZE      budget for the bytes allocated (needs them in the input)\n"
	"  -b, --budget FILE         per-site budgets: \"PATTERN SIZE\" lines, '#' comments;\n"
	"                            a stack counts toward the first line whose pattern\n"
	"                            (a glob) matches one of its functions\n"
	"  -B, --base OLD            the profile to measure growth against\n"
	"  -g, --max-growth SIZE|N%  most the in-use total, and each site, may grow over OLD\n"
	"                            (N% of OLD's in-use total)\n"
	"  -f, --format FORMAT       text (the default), markdown or junit\n"
	"  -o, --output FILE         write the report to FILE instead of standard output\n"
	"  -h, --help                print this help and exit\n"
	"  -V, --version             print the version and exit\n";

static void warn_module(void *ctx, const char *module, const char *what)
{
	fk_warn("%s: %s: %s", (const char *)ctx, module, what);
}

static void bad_size(const char *opt, const char *v)
{
	fk_warn("bad %s '%s': want bytes or a whole number of KiB, MiB or GiB%s", opt, v,
		strcmp(opt, "--max-growth") ? "" : ", or N%");
	fk_usage(usage_text, stderr, 2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "max-inuse", required_argument, NULL, 'i' }, { "max-alloc", required_argument, NULL, 'a' },
		{ "budget", required_argument, NULL, 'b' }, { "base", required_argument, NULL, 'B' },
		{ "max-growth", required_argument, NULL, 'g' }, { "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		FK_CLI_OPTIONS_END,
	};
	static const char *const formats[] = { "text", "markdown", "junit" };
	struct fk_check_args a = { .path = "-", .inuse = -1, .alloc = -1, .warn = warn_module };
	const char *outpath = NULL, *growth = NULL;
	int c, f, rc;
	struct fk_err err;
	struct fk_out out;

	fk_cli_init(argv[0]);
	while ((c = getopt_long(argc, argv, "i:a:b:B:g:f:o:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'i': if (fk_limit_parse(optarg, strlen(optarg), &a.inuse, NULL) < 0) bad_size("--max-inuse", optarg); break;
		case 'a': if (fk_limit_parse(optarg, strlen(optarg), &a.alloc, NULL) < 0) bad_size("--max-alloc", optarg); break;
		case 'g': if (fk_limit_parse(optarg, strlen(optarg), &a.growth, &a.pct) < 0) bad_size("--max-growth", optarg);
			growth = optarg; break;
		case 'b': a.budget = optarg; break;
		case 'B': a.base = optarg; break;
		case 'f':
			for (f = 0; f < 3 && strcmp(optarg, formats[f]) != 0; f++)
				;
			if (f == 3) {
				fk_warn("bad --format '%s' (text, markdown or junit)", optarg);
				fk_usage(usage_text, stderr, 2);
			}
			a.format = (enum fk_report_format)f;
			break;
		case 'o': outpath = optarg; break;
		default: fk_cli_option(c, usage_text);
		}
	}
	if (argc - optind > 1 || !a.base != !growth || (a.inuse < 0 && a.alloc < 0 && !a.budget && !growth)) {
		fk_warn("%s", argc - optind > 1 ? "one profile at a time" : !a.base != !growth
			? "--base and --max-growth go together" : "no budget given");
		fk_usage(usage_text, stderr, 2);
	}
	if (optind < argc)
		a.path = argv[optind];
	/* The report's errors name the output; the inputs' their file. */
	fk_err_init(&err, outpath && strcmp(outpath, "-") ? outpath : "stdout");
	if (fk_out_open(&out, outpath, &err) < 0 || (rc = fk_check_run(&a, out.fp, &err)) < 0 ||
	    fk_out_commit(&out, &err) < 0) {
		fk_out_abort(&out);
		fk_warn_err(&err);
		return 2;
	}
	return rc;
}
