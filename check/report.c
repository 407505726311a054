/* SPDX-License-Identifier: MIT */
/* The outcome of heap-check's checks as text for a CI log, or as markdown
 * tables (GitHub-flavoured, CommonMark escapes) for a CI job's summary,
 * and the choice of format. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "heapcheck.h"
#include "utf8.h"

/* Writes a name (a frame, a pattern, a file name) for a reader: controls
 * (C0, DEL and C1, which a terminal or a CI log viewer would obey: ESC
 * sequences move the cursor and rewrite lines) become spaces, and bytes
 * that start no valid UTF-8 sequence U+FFFD, so the text always decodes.
 * In markdown every ASCII punctuation that could make a table cell,
 * emphasis, a link or HTML is also backslash-escaped (CommonMark). */
static void put(FILE *out, const char *s, int markdown)
{
	size_t n = strlen(s), k;
	uint32_t cp;

	for (; n > 0; s += k, n -= k) {
		k = fk_utf8_dec((const unsigned char *)s, n, &cp);
		if (k == 0) {
			fputs("\xef\xbf\xbd", out);
			k = 1;
			continue;
		}
		if (markdown && cp < 0x80 && strchr("\\`*_{}[]<>|~&#!", (int)cp))
			putc('\\', out);
		if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0))
			putc(' ', out);
		else
			fwrite(s, 1, k, out);
	}
}

/* The title, value, limit and share of a check, as the text line and the
 * table's cells show them. */
struct cells {
	char title[512], value[32], limit[32], share[32], exact[32];
};

static void cells(const struct fk_check *c, struct cells *x)
{
	fk_report_title(c, x->title, sizeof x->title);
	fk_report_size(c->value, x->value, sizeof x->value);
	fk_report_size(c->limit, x->limit, sizeof x->limit);
	snprintf(x->exact, sizeof x->exact, "%" PRId64, c->value);
	if (c->kind == FK_CHECK_GROWTH && c->value > 0) {
		char t[32];
		snprintf(x->value, sizeof x->value, "+%s", fk_report_size(c->value, t, sizeof t));
	}
	if (c->kind == FK_CHECK_GROWTH && c->pct >= 0) {
		size_t n = strlen(x->limit);
		snprintf(x->limit + n, sizeof x->limit - n, " (%" PRId64 ".%02" PRId64 "%%)",
			 c->pct / 100, c->pct % 100);
	}
	if (c->kind == FK_CHECK_BUDGET)
		fk_report_share(c->value, c->total, x->share, sizeof x->share);
	else if (c->kind == FK_CHECK_GROWTH)
		fk_report_share(c->value, c->base, x->share, sizeof x->share);
	else
		snprintf(x->share, sizeof x->share, "-");
}

static void text_sites(const struct fk_check *c, FILE *out)
{
	char site[1024], v[32], b[32], sh[32];
	size_t i;

	for (i = 0; i < c->nsites; i++) {
		const struct fk_check_site *t = &c->sites[i];

		fk_report_size(t->value, v, sizeof v);
		if (c->kind == FK_CHECK_GROWTH)
			fprintf(out, "    +%-10s from %-10s ", v,
				fk_report_size(t->base, b, sizeof b));
		else
			fprintf(out, "    %-10s %6s  ", v,
				fk_report_share(t->value, c->total, sh, sizeof sh));
		put(out, fk_report_site(t->stack, t->len, site, sizeof site), 0);
		putc('\n', out);
	}
	if (c->more)
		fprintf(out, "    (%zu more sites)\n", c->more);
}

static void md_sites(const struct fk_check *c, const char *title, FILE *out)
{
	char site[1024], v[32], b[32], sh[32];
	int growth = c->kind == FK_CHECK_GROWTH;
	size_t i;

	fputs("\n#### ", out);
	put(out, title, 1);
	fputs(growth ? ": the sites that grew most\n\n| Site | Growth | Base |\n|:---|---:|---:|\n"
		     : ": the heaviest sites\n\n| Site | Bytes | Share |\n|:---|---:|---:|\n", out);
	for (i = 0; i < c->nsites; i++) {
		const struct fk_check_site *t = &c->sites[i];

		fputs("| ", out);
		put(out, fk_report_site(t->stack, t->len, site, sizeof site), 1);
		fk_report_size(t->value, v, sizeof v);
		if (growth)
			fprintf(out, " | +%s | %s |\n", v, fk_report_size(t->base, b, sizeof b));
		else
			fprintf(out, " | %s | %s |\n", v,
				fk_report_share(t->value, c->total, sh, sizeof sh));
	}
	if (c->more)
		fprintf(out, "\n%zu more sites.\n", c->more);
}

int fk_report_text(const struct fk_verdict *vd, FILE *out, int markdown)
{
	char iu[32];
	struct cells x;
	size_t i;

	fk_report_size(vd->inuse, iu, sizeof iu);
	if (markdown) {
		fputs("### heap-check: ", out);
		put(out, vd->source, 1);
		fprintf(out, "\n\n%zu of %zu checks over budget; in use %s.\n\n"
			"| Check | Value | Budget | Share | Result |\n"
			"|:---|---:|---:|---:|:---|\n", vd->nover, vd->n, iu);
	} else {
		put(out, vd->source, 0);
		fprintf(out, ": in use %s; %zu of %zu checks over budget\n", iu, vd->nover, vd->n);
	}
	for (i = 0; i < vd->n; i++) {
		const struct fk_check *c = &vd->v[i];

		cells(c, &x);
		if (markdown) {
			fputs("| ", out);
			put(out, x.title, 1);
			fprintf(out, " | %s | %s | %s | %s |\n", x.value, x.limit, x.share,
				c->over ? "**over**" : "ok");
			continue;
		}
		fprintf(out, "%-5s ", c->over ? "over" : "ok");
		put(out, x.title, 0);
		fprintf(out, ": %s (%s bytes) %s %s", x.value, x.exact, c->over ? ">" : "<=",
			x.limit);
		if (c->kind == FK_CHECK_BUDGET && c->matched)
			fprintf(out, ", %s of in use, %zu stack%s", x.share, c->matched,
				c->matched == 1 ? "" : "s");
		else if (c->kind == FK_CHECK_BUDGET)
			fputs(", no stack matched", out);
		if (c->kind == FK_CHECK_GROWTH) {
			char b[32];
			fputs(", against ", out);
			put(out, vd->base_source, 0);
			fprintf(out, " (%s)", fk_report_size(c->base, b, sizeof b));
			if (c->sites_over)
				fprintf(out, "; %zu site%s grew more", c->sites_over,
					c->sites_over == 1 ? "" : "s");
		}
		fputc('\n', out);
		text_sites(c, out);
	}
	for (i = 0; markdown && i < vd->n; i++)
		if (vd->v[i].over) {
			cells(&vd->v[i], &x);
			md_sites(&vd->v[i], x.title, out);
		}
	return 0;
}

int fk_report_write(const struct fk_verdict *vd, enum fk_report_format f, FILE *out,
		    struct fk_err *err)
{
	if (f == FK_REPORT_JUNIT)
		fk_report_junit(vd, out);
	else
		fk_report_text(vd, out, f == FK_REPORT_MARKDOWN);
	if (fflush(out) != 0 || ferror(out))
		return fk_err_set(err, FK_EIO, 0, "write error");
	return 0;
}
