/* SPDX-License-Identifier: MIT */
/* The outcome of heap-check's checks as JUnit XML, the test report CI
 * systems read (the schema of Jenkins' junit plugin and GitLab's
 * test reports: testsuites, testsuite, testcase, failure): one test case
 * per check, a failure naming the sites that put it over. */
#include <inttypes.h>
#include <string.h>

#include "heapcheck.h"
#include "utf8.h"

/* Writes s as XML character data or attribute text: markup escaped,
 * bytes that start no valid UTF-8 sequence and characters XML 1.0 forbids
 * (controls but tab and newline, U+FFFE, U+FFFF) as U+FFFD. */
static void xml_put(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);

	while (n > 0) {
		uint32_t cp;
		size_t k = fk_utf8_dec(p, n, &cp);

		if (k == 0 || (cp < 0x20 && cp != '\t' && cp != '\n') || cp == 0xfffe ||
		    cp == 0xffff) {
			fputs("\xef\xbf\xbd", out);
			k = k ? k : 1;
		} else if (cp == '&') {
			fputs("&amp;", out);
		} else if (cp == '<') {
			fputs("&lt;", out);
		} else if (cp == '>') {
			fputs("&gt;", out);
		} else if (cp == '"') {
			fputs("&quot;", out);
		} else {
			fwrite(p, 1, k, out);
		}
		p += k;
		n -= k;
	}
}

static void failure(const struct fk_check *c, FILE *out)
{
	char title[512], v[32], l[32], b[32], sh[32], site[1024], msg[1200];
	size_t i;

	fk_report_title(c, title, sizeof title);
	fk_report_size(c->value, v, sizeof v);
	fk_report_size(c->limit, l, sizeof l);
	snprintf(msg, sizeof msg, "%s: %s%s over its budget of %s", title,
		 c->kind == FK_CHECK_GROWTH && c->value > 0 ? "+" : "", v, l);
	if (c->kind == FK_CHECK_GROWTH && c->value <= c->limit)
		snprintf(msg, sizeof msg, "%s: %zu site%s grew more than %s", title,
			 c->sites_over, c->sites_over == 1 ? "" : "s", l);
	fputs("      <failure type=\"over budget\" message=\"", out);
	xml_put(out, msg);
	fputs("\">", out);
	xml_put(out, msg);
	fputs(c->kind == FK_CHECK_GROWTH ? "\nthe sites that grew most:\n"
					 : "\nthe heaviest sites:\n", out);
	for (i = 0; i < c->nsites; i++) {
		const struct fk_check_site *t = &c->sites[i];

		fk_report_site(t->stack, t->len, site, sizeof site);
		fk_report_size(t->value, v, sizeof v);
		if (c->kind == FK_CHECK_GROWTH)
			fprintf(out, "  +%s from %s  ", v, fk_report_size(t->base, b, sizeof b));
		else
			fprintf(out, "  %s %s  ", v, fk_report_share(t->value, c->total, sh, sizeof sh));
		xml_put(out, site);
		fputc('\n', out);
	}
	if (c->more)
		fprintf(out, "  (%zu more sites)\n", c->more);
	fputs("</failure>\n", out);
}

int fk_report_junit(const struct fk_verdict *vd, FILE *out)
{
	char title[512];
	size_t i;

	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<testsuites name=\"heap-check\" tests=\"%zu\" failures=\"%zu\" errors=\"0\">\n"
		"  <testsuite name=\"heap-check ", vd->n, vd->nover);
	xml_put(out, vd->source);
	fprintf(out, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"0\">\n",
		vd->n, vd->nover);
	fprintf(out, "    <properties>\n"
		"      <property name=\"inuse_bytes\" value=\"%" PRId64 "\"/>\n", vd->inuse);
	if (vd->has_alloc)
		fprintf(out, "      <property name=\"alloc_bytes\" value=\"%" PRId64 "\"/>\n",
			vd->alloc);
	fputs("    </properties>\n", out);
	for (i = 0; i < vd->n; i++) {
		const struct fk_check *c = &vd->v[i];

		fputs("    <testcase classname=\"heap-check\" name=\"", out);
		xml_put(out, fk_report_title(c, title, sizeof title));
		fputs(c->over ? "\">\n" : "\"/>\n", out);
		if (!c->over)
			continue;
		failure(c, out);
		fputs("    </testcase>\n", out);
	}
	fputs("  </testsuite>\n</testsuites>\n", out);
	return 0;
}
