/* SPDX-License-Identifier: MIT */
/* render-flame: folded stacks to an interactive SVG flame graph (see
 * man/render-flame.1). Options and I/O only; the work is in flame.c. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "flame.h"
#include "io.h"

static const char usage_text[] =
	"usage: render-flame [options] [FILE...]\n"
	"Reads folded stacks (\"root;caller;leaf VALUE\" lines) from the FILEs\n"
	"(merged) or stdin and writes an interactive SVG flame graph.\n"
	"\n"
	"  -o, --output FILE     write to FILE instead of stdout\n"
	"      --title TEXT      title (default \"Flame Graph\")\n"
	"      --subtitle TEXT   second title line\n"
	"      --notes TEXT      notes stored in the SVG's <desc>\n"
	"      --width PX        image width (default: fit the page)\n"
	"      --height PX       height of one frame (default 16)\n"
	"      --minwidth PX|N%  in the drawing made without script, merge frames\n"
	"                        narrower than this into \"(N more)\" (default\n"
	"                        1 px, as the page's script draws); the page's\n"
	"                        data keeps every frame\n"
	"      --fonttype FONT   font family (default Verdana)\n"
	"      --fontsize PX     font size (default 12)\n"
	"      --countname NAME  what values count (default bytes, shown in\n"
	"                        B/KiB/MiB/GiB; other names as plain counts)\n"
	"      --nametype TEXT   label before a frame name (default \"Function:\")\n"
	"      --colors PALETTE  hot, mem (default), io, red, green, blue, aqua,\n"
	"                        yellow, purple, orange\n"
	"      --hash            colour by name only (same name, same colour)\n"
	"      --sort=name|weight  children by name (default) or heaviest first\n"
	"      --inverted        icicle graph, root at the top (the default)\n"
	"      --upward          classic flame graph, root at the bottom\n"
	"      --reverse         reverse every stack (leaf becomes root)\n"
	"      --flamechart      keep input order, merge only adjacent frames\n"
	"      --diff BASE       differential graph from folded file BASE to the input\n"
	"      --negate          in a differential graph, swap red and blue\n"
	"      --normalize       in a differential graph, scale the base to the\n"
	"                        new total before comparing\n"
	"      --skip-bad        warn about malformed lines and skip them\n"
	"  -h, --help            print this help and exit\n"
	"  -V, --version         print the version and exit\n";

int main(int argc, char **argv)
{
	static const struct option own[] = {
		{ "output", required_argument, NULL, 'o' }, { "diff", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' }, { "version", no_argument, NULL, 'V' },
	};
	struct option opts[sizeof own / sizeof *own + 32] = { { 0 } };
	const char *outpath = NULL, *base = NULL;
	size_t i, n = sizeof own / sizeof *own;
	struct fk_flame_opts o;
	struct fk_flame *f;
	struct fk_out out;
	struct fk_err err = { 0 };  /* an option's message, before an input names it */
	int c;

	fk_cli_init(argv[0]);
	/* Ours, then the library's options, numbered from 256 by their row. */
	memcpy(opts, own, sizeof own);
	for (i = 0; fk_flame_optnames[i].name && n + 1 < sizeof opts / sizeof *opts; i++)
		opts[n++] = (struct option){ fk_flame_optnames[i].name,
					     fk_flame_optnames[i].has_arg, NULL, 256 + (int)i };
	fk_flame_opts_init(&o);
	o.warn = fk_warn_cb;
	o.threads = 1;
	while ((c = getopt_long(argc, argv, "ho:V", opts, NULL)) != -1) {
		switch (c) {
		case 'o': outpath = optarg; break;
		case 'd': base = optarg; break;
		case 'h': fk_usage(usage_text, stdout, 0);
		case 'V': fk_print_version();
		default:
			if (c < 256)
				fk_usage(usage_text, stderr, 2);
			if (fk_flame_opt_set(&o, fk_flame_optnames[c - 256].name, optarg, &err) < 0)
				fk_bad_usage(usage_text, "%s", err.msg);
		}
	}
	if (fk_flame_opts_check(&o, &err) < 0)
		fk_bad_usage(usage_text, "%s", err.msg);
	if (!(f = fk_flame_new(&o, &err)))
		fk_die_err(&err);
	if (base && fk_flame_add_path(f, base, 1, &err) < 0)
		fk_die_err(&err);
	do {
		if (fk_flame_add_path(f, optind < argc ? argv[optind] : "-", 0, &err) < 0)
			fk_die_err(&err);
	} while (++optind < argc);
	fk_cli_open_out(&out, outpath);
	fk_err_init(&err, outpath ? outpath : "-");
	fk_cli_commit_out(&out, fk_flame_write(f, out.fp, &err), &err);
	fk_flame_free(f);
	return 0;
}
