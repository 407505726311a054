/* SPDX-License-Identifier: MIT */
/* to-pprof: raw or symbolized heap profile -> gzipped pprof (see
 * man/to-pprof.1). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "io.h"
#include "num.h"
#include "pprof_enc.h"
#include "symprof.h"

static const char usage_text[] =
	"usage: to-pprof [-f] [-o FILE] [--threads] [--time NS] [--max-samples N] [FILE | -]\n"
	"Reads a raw or symbolized jemalloc heap profile and writes it as a\n"
	"gzipped pprof profile (profile.proto).\n"
	"  -o, --output FILE  write to FILE instead of standard output\n"
	"  -f, --force        write to standard output even if it is a terminal\n"
	"  -t, --threads      one sample per thread, with a \"thread\" label\n"
	"      --time NS      set the profile's time (nanoseconds since the epoch)\n"
	"      --max-samples N  at most N samples: the lightest stacks are merged\n"
	"                     into prefixes they share with heavier ones (totals kept)\n"
	"  -h, --help         print this help and exit\n"
	"  -V, --version      print the version and exit\n";

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'f' },
		{ "threads", no_argument, NULL, 't' },
		{ "time", required_argument, NULL, 'T' },
		{ "max-samples", required_argument, NULL, 'M' },
		FK_CLI_OPTIONS_END,
	};
	struct fk_pprof_opts po;
	const char *outpath = NULL, *path;
	int c, force = 0;
	struct fk_err err;
	struct fk_profile *p;
	struct fk_out out;

	fk_cli_init(argv[0]);
	memset(&po, 0, sizeof po);
	while ((c = getopt_long(argc, argv, "o:fthV", opts, NULL)) != -1) {
		switch (c) {
		case 'o': outpath = optarg; break;
		case 'f': force = 1; break;
		case 't': po.threads = 1; break;
		case 'T':
			if (fk_parse_i64(optarg, strlen(optarg), &po.time_nanos) < 0) {
				fk_warn("bad --time value '%s'", optarg);
				fk_usage(usage_text, stderr, 2);
			}
			break;
		case 'M': {
			uint64_t v;

			if (fk_parse_u64(optarg, strlen(optarg), &v) < 0 || v == 0 ||
			    v > UINT32_MAX) {
				fk_warn("bad --max-samples value '%s': want 1 to %u", optarg,
					UINT32_MAX);
				fk_usage(usage_text, stderr, 2);
			}
			po.max_samples = (size_t)v;
			break;
		}
		default: fk_cli_option(c, usage_text);
		}
	}
	path = fk_cli_operand(argc, argv, usage_text);
	if ((!outpath || strcmp(outpath, "-") == 0) && !force && isatty(STDOUT_FILENO))
		fk_die("refusing to write binary data to a terminal (use -o FILE or -f)");

	p = fk_cli_load(path);
	fk_cli_open_out(&out, outpath);
	fk_err_init(&err, p->source);
	fk_cli_commit_out(&out, fk_pprof_write(p, &po, out.fp, &err), &err);
	fk_cli_note_unsymbolized(p);
	fk_profile_free(p);
	return 0;
}
