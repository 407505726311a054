/* SPDX-License-Identifier: MIT */
/* render-flame: folded stacks to an interactive SVG flame graph. Options and
 * I/O only; the work is in flame.c. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "flame.h"
#include "io.h"
#include "num.h"

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
	"      --version         print the version and exit\n";

static void bad_usage(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

static void bad_usage(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", fk_progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fk_usage(usage_text, stderr, 2);
}

/* A size option's number (fk_parse_double), or with pct its PX|N%. */
static double number(const char *opt, const char *s, int *pct)
{
	double v;

	if (pct ? fk_parse_minwidth(s, strlen(s), &v, pct) < 0
		: fk_parse_double(s, strlen(s), &v) < 0)
		bad_usage("bad number for %s '%s'", opt, s);
	return v;
}

static void warn_cb(void *ctx, const struct fk_err *e)
{
	(void)ctx;
	fk_warn_err(e);
}

enum {
	O_TITLE = 256, O_SUBTITLE, O_NOTES, O_WIDTH, O_HEIGHT, O_MINWIDTH,
	O_FONTTYPE, O_FONTSIZE, O_COUNTNAME, O_NAMETYPE, O_COLORS, O_HASH,
	O_SORT, O_INVERTED, O_REVERSE, O_FLAMECHART, O_DIFF, O_NEGATE,
	O_SKIPBAD, O_VERSION, O_UPWARD, O_NORMALIZE,
};

static const struct option longopts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "title", required_argument, NULL, O_TITLE },
	{ "subtitle", required_argument, NULL, O_SUBTITLE },
	{ "notes", required_argument, NULL, O_NOTES },
	{ "width", required_argument, NULL, O_WIDTH },
	{ "height", required_argument, NULL, O_HEIGHT },
	{ "minwidth", required_argument, NULL, O_MINWIDTH },
	{ "fonttype", required_argument, NULL, O_FONTTYPE },
	{ "fontsize", required_argument, NULL, O_FONTSIZE },
	{ "countname", required_argument, NULL, O_COUNTNAME },
	{ "nametype", required_argument, NULL, O_NAMETYPE },
	{ "colors", required_argument, NULL, O_COLORS },
	{ "hash", no_argument, NULL, O_HASH },
	{ "sort", required_argument, NULL, O_SORT },
	{ "inverted", no_argument, NULL, O_INVERTED },
	{ "reverse", no_argument, NULL, O_REVERSE },
	{ "flamechart", no_argument, NULL, O_FLAMECHART },
	{ "diff", required_argument, NULL, O_DIFF },
	{ "negate", no_argument, NULL, O_NEGATE },
	{ "normalize", no_argument, NULL, O_NORMALIZE },
	{ "upward", no_argument, NULL, O_UPWARD },
	{ "skip-bad", no_argument, NULL, O_SKIPBAD },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, O_VERSION },
	{ NULL, 0, NULL, 0 },
};

static void add_file(struct fk_flame *f, const char *path, int base)
{
	struct fk_err err;
	int fd = 0;

	fk_err_init(&err, path);
	if (strcmp(path, "-") != 0 && (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		fk_err_set(&err, FK_EIO, 0, "cannot open: %s", strerror(errno));
		fk_die_err(&err);
	}
	if (fk_flame_add_fd(f, fd, base, &err) < 0)
		fk_die_err(&err);
	if (fd != 0)
		close(fd);
}

int main(int argc, char **argv)
{
	struct fk_flame_opts o;
	struct fk_flame *f;
	struct fk_out out;
	struct fk_err err;
	const char *outpath = NULL, *base = NULL;
	int c, pct;

	fk_cli_init(argv[0]);
	fk_flame_opts_init(&o);
	o.warn = warn_cb;
	o.threads = 1;
	while ((c = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': outpath = optarg; break;
		case O_TITLE: o.title = optarg; break;
		case O_SUBTITLE: o.subtitle = optarg; break;
		case O_NOTES: o.notes = optarg; break;
		case O_WIDTH: o.width = number("--width", optarg, NULL); break;
		case O_HEIGHT: o.frameheight = number("--height", optarg, NULL); break;
		case O_MINWIDTH:
			pct = 0;
			o.minwidth = number("--minwidth", optarg, &pct);
			o.minwidth_pct = pct;
			break;
		case O_FONTTYPE: o.fonttype = optarg; break;
		case O_FONTSIZE: o.fontsize = number("--fontsize", optarg, NULL); break;
		case O_COUNTNAME: o.countname = optarg; break;
		case O_NAMETYPE: o.nametype = optarg; break;
		case O_COLORS:
			if (fk_flame_palette_check(optarg) < 0)
				bad_usage("unknown palette '%s'", optarg);
			o.colors = optarg;
			break;
		case O_HASH: o.hash = 1; break;
		case O_SORT:
			if (strcmp(optarg, "name") == 0)
				o.sort = FK_SORT_NAME;
			else if (strcmp(optarg, "weight") == 0)
				o.sort = FK_SORT_WEIGHT;
			else
				bad_usage("unknown sort order '%s'", optarg);
			break;
		case O_INVERTED: o.inverted = 1; break;
		case O_REVERSE: o.reverse = 1; break;
		case O_FLAMECHART: o.flamechart = 1; break;
		case O_DIFF: base = optarg; break;
		case O_NEGATE: o.negate = 1; break;
		case O_NORMALIZE: o.normalize = 1; break;
		case O_UPWARD: o.inverted = 0; break;
		case O_SKIPBAD: o.skip_bad = 1; break;
		case 'h': fk_usage(usage_text, stdout, 0); break;
		case O_VERSION: fk_print_version(); break;
		default: fk_usage(usage_text, stderr, 2);
		}
	}
	if (o.width > 0 && (o.width < 100 || o.width > 100000))
		bad_usage("--width must be 100 to 100000");
	if (o.frameheight < 1 || o.frameheight > 200)
		bad_usage("--height must be 1 to 200");
	if (o.fontsize < 1 || o.fontsize > 200)
		bad_usage("--fontsize must be 1 to 200");
	if (o.minwidth_pct && o.minwidth > 100)
		bad_usage("--minwidth above 100%%");

	fk_err_init(&err, "-");
	f = fk_flame_new(&o, &err);
	if (!f)
		fk_die_err(&err);
	if (base)
		add_file(f, base, 1);
	if (optind == argc)
		add_file(f, "-", 0);
	for (; optind < argc; optind++)
		add_file(f, argv[optind], 0);

	fk_err_init(&err, outpath ? outpath : "-");
	if (fk_out_open(&out, outpath, &err) < 0)
		fk_die_err(&err);
	if (fk_flame_write(f, out.fp, &err) < 0 || fk_out_commit(&out, &err) < 0) {
		fk_out_abort(&out);
		fk_die_err(&err);
	}
	fk_flame_free(f);
	return 0;
}
