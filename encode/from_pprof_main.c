/* SPDX-License-Identifier: MIT */
/* from-pprof: any pprof profile -> folded stacks (see man/from-pprof.1). */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "io.h"
#include "pprof_dec.h"

static const char usage_text[] =
	"usage: from-pprof [-s TYPE | -c] [-o FILE] [FILE | -]\n"
	"Reads a pprof profile (gzipped or not, or a legacy profile go tool pprof\n"
	"reads: heap, growth, CPU, contention, thread) and writes folded stacks.\n"
	"  -s, --sample-type TYPE  sample type to write (default: the profile's\n"
	"                          default sample type, else the last one)\n"
	"  -c, --columns           every sample type, one value column each, under\n"
	"                          a header line \"# columns: TYPE/UNIT ...\" that\n"
	"                          render-flame reads\n"
	"  -l, --list              list the sample types and exit\n"
	"  -o, --output FILE       write to FILE instead of standard output\n"
	"  -h, --help              print this help and exit\n"
	"  -V, --version           print the version and exit\n";

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "sample-type", required_argument, NULL, 's' },
		{ "list", no_argument, NULL, 'l' },
		{ "columns", no_argument, NULL, 'c' },
		{ "output", required_argument, NULL, 'o' },
		FK_CLI_OPTIONS_END,
	};
	const char *type = NULL, *outpath = NULL, *path;
	int c, list = 0, ti, columns = 0;
	struct fk_err err, oerr;
	struct fk_pprof *pp;
	struct fk_out out;
	char *data;
	size_t len, i;
	int mapped;

	fk_cli_init(argv[0]);
	while ((c = getopt_long(argc, argv, "s:clo:hV", opts, NULL)) != -1) {
		switch (c) {
		case 's': type = optarg; break;
		case 'l': list = 1; break;
		case 'c': columns = 1; break;
		case 'o': outpath = optarg; break;
		default: fk_cli_option(c, usage_text);
		}
	}
	if (columns && type)
		fk_usage(usage_text, stderr, 2);
	path = fk_cli_operand(argc, argv, usage_text);

	fk_err_init(&err, path);
	if (fk_map_input(path, &data, &len, &mapped, &err) < 0)
		fk_die_err(&err);
	if (fk_pprof_read(data, len, &pp, &err) < 0)
		fk_die_err(&err);
	fk_release_input(data, len, mapped);
	if (list) {
		for (i = 0; i < fk_pprof_ntypes(pp); i++)
			printf("%s/%s\n", fk_pprof_type_name(pp, i), fk_pprof_type_unit(pp, i));
		fk_pprof_free(pp);
		return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
	}
	ti = fk_pprof_pick_type(pp, type, &err);
	if (ti < 0)
		fk_die_err(&err);
	/* The output's own errors name the output; the writer's name the input. */
	fk_err_init(&oerr, outpath && strcmp(outpath, "-") ? outpath : "stdout");
	if (fk_out_open(&out, outpath, &oerr) < 0)
		fk_die_err(&oerr);
	if (fk_pprof_folded_write(pp, columns ? SIZE_MAX : (size_t)ti, out.fp, &err) < 0) {
		fk_out_abort(&out);
		fk_die_err(&err);
	}
	if (fk_out_commit(&out, &oerr) < 0) {
		fk_out_abort(&out);
		fk_die_err(&oerr);
	}
	fk_pprof_free(pp);
	return 0;
}
