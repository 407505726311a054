/* SPDX-License-Identifier: MIT */
/* to-folded: raw or symbolized heap profile -> folded stacks (see
 * man/to-folded.1). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "folded_enc.h"
#include "io.h"
#include "symprof.h"

static const char usage_text[] =
	"usage: to-folded [--value bytes|objects] [--inuse | --alloc] [--columns]\n"
	"                 [--threads] [--lines] [-o FILE] [FILE | -]\n"
	"Reads a raw or symbolized jemalloc heap profile and writes folded stacks\n"
	"(\"root;caller;leaf VALUE\"), the input of flame graph tools.\n"
	"  -v, --value bytes|objects  what to count (default: bytes)\n"
	"  -i, --inuse                memory in use at dump time (the default)\n"
	"  -a, --alloc                everything allocated (needs prof_accum)\n"
	"  -c, --columns              every sample type, one value column each\n"
	"                             (in-use space and objects, then allocated\n"
	"                             ones with prof_accum), under a header line\n"
	"                             \"# columns: ...\" that render-flame reads\n"
	"  -t, --threads              a root frame per thread\n"
	"  -l, --lines                a frame a source line: \"NAME (FILE:LINE)\"\n"
	"                             where the input knows them (default: a\n"
	"                             frame a function)\n"
	"  -o, --output FILE          write to FILE instead of standard output\n"
	"  -h, --help                 print this help and exit\n"
	"  -V, --version              print the version and exit\n";

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "value", required_argument, NULL, 'v' },
		{ "inuse", no_argument, NULL, 'i' },
		{ "alloc", no_argument, NULL, 'a' },
		{ "threads", no_argument, NULL, 't' },
		{ "columns", no_argument, NULL, 'c' },
		{ "lines", no_argument, NULL, 'l' },
		{ "output", required_argument, NULL, 'o' },
		FK_CLI_OPTIONS_END,
	};
	struct fk_folded_opts fo;
	const char *outpath = NULL, *path;
	int c;
	struct fk_err err;
	struct fk_profile *p;
	struct fk_out out;

	fk_cli_init(argv[0]);
	memset(&fo, 0, sizeof fo);
	while ((c = getopt_long(argc, argv, "v:iactlo:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'v':
			if (strcmp(optarg, "bytes") == 0) {
				fo.value = FK_FOLDED_BYTES;
			} else if (strcmp(optarg, "objects") == 0) {
				fo.value = FK_FOLDED_OBJECTS;
			} else {
				fk_warn("bad --value '%s' (bytes or objects)", optarg);
				fk_usage(usage_text, stderr, 2);
			}
			break;
		case 'i': fo.alloc = 0; break;
		case 'a': fo.alloc = 1; break;
		case 't': fo.threads = 1; break;
		case 'c': fo.columns = 1; break;
		case 'l': fo.lines = 1; break;
		case 'o': outpath = optarg; break;
		default: fk_cli_option(c, usage_text);
		}
	}
	path = fk_cli_operand(argc, argv, usage_text);

	p = fk_cli_load(path);
	fk_cli_open_out(&out, outpath);
	fk_err_init(&err, p->source);
	fk_cli_commit_out(&out, fk_folded_write(p, &fo, out.fp, &err), &err);
	fk_cli_note_unsymbolized(p);
	fk_profile_free(p);
	return 0;
}
