/* SPDX-License-Identifier: MIT */
/* Unit tests of heap-check's library: sizes, growth limits, budget files
 * and their first-match rule, folded text as sites, the checks' verdicts
 * and the pieces the reports share. */
#include <stdint.h>
#include <string.h>

#include "heapcheck.h"
#include "t.h"

static int64_t size_of(const char *s)
{
	int64_t v = -1;

	return fk_limit_parse(s, strlen(s), &v, NULL) == 0 ? v : -1;
}

static void sizes(void)
{
	int64_t v;
	int pct;

	T_EQ_INT(size_of("0"), 0, "0");
	T_EQ_INT(size_of("4096"), 4096, "bytes");
	T_EQ_INT(size_of("3KiB"), 3072, "KiB");
	T_EQ_INT(size_of("2MiB"), 2 << 20, "MiB");
	T_EQ_INT(size_of("8589934591GiB"), (int64_t)8589934591 << 30, "the largest GiB");
	T_EQ_INT(size_of("8589934592GiB"), -1, "past INT64_MAX");
	T_EQ_INT(size_of("9223372036854775807"), INT64_MAX, "INT64_MAX bytes");
	T_EQ_INT(size_of("9223372036854775808"), -1, "INT64_MAX + 1 bytes");
	for (const char *const *b = (const char *const[]){ "", "KiB", "1MB", "1kib", "1 MiB", "-1",
			"+1", "1.5MiB", "0x10", "1MiBs", " 1", NULL }; *b; b++)
		T_EQ_INT(size_of(*b), -1, *b);
	T_EQ_INT(size_of("5%"), -1, "a percent where only a size goes");
	T_OK(fk_limit_parse("5%", 2, &v, &pct) == 0 && pct && v == 500, "5%% is 500 hundredths");
	T_OK(fk_limit_parse("2.5%", 4, &v, &pct) == 0 && pct && v == 250, "2.5%%");
	T_OK(fk_limit_parse("0.05%", 5, &v, &pct) == 0 && pct && v == 5, "0.05%%");
	T_OK(fk_limit_parse("1KiB", 4, &v, &pct) == 0 && !pct && v == 1024, "a size");
	T_OK(fk_limit_parse("1.234%", 6, &v, &pct) < 0, "three decimals refused");
	T_OK(fk_limit_parse("%", 1, &v, &pct) < 0 && fk_limit_parse("1.%", 3, &v, &pct) < 0 &&
	     fk_limit_parse(".5%", 3, &v, &pct) < 0, "bare %%, 1.%%, .5%% refused");
}

/* The line stack st counts toward in b, by a matcher of its own. */
static long match(const struct fk_budget *b, const char *st, size_t len)
{
	struct fk_budget_match *m = fk_budget_match_new(b);
	long r = m ? fk_budget_match_stack(m, st, len) : -3;

	fk_budget_match_free(m);
	return r;
}

static void budgets(void)
{
	static const char text[] =
		"# comment\n"
		"  parse_*   2MiB  # trailing\n"
		"\r\n"
		"operator new\\[\\]\t1KiB\r\n"
		"std::map<int, int>::insert 10\n"
		"*  0\n";
	struct fk_budget b;
	struct fk_err err;
	const char *st;

	fk_err_init(&err, "b");
	T_OK(fk_budget_parse(&b, text, sizeof text - 1, &err) == 0, "parses: %s", err.msg);
	T_EQ_INT(b.n, 4, "four lines");
	T_EQ_STR(b.v[0].pattern, "parse_*", "blanks and comment trimmed");
	T_EQ_INT(b.v[0].limit, 2 << 20, "its size");
	T_EQ_INT(b.v[0].lineno, 2, "its line");
	T_EQ_STR(b.v[1].pattern, "operator new\\[\\]", "CRLF line, tab");
	T_EQ_STR(b.v[2].pattern, "std::map<int, int>::insert", "inner blanks kept");
	T_EQ_INT(b.v[3].limit, 0, "size 0");
	st = "main;load;parse_json";
	T_EQ_INT(match(&b, st, strlen(st)), 0, "a frame anywhere: the first line");
	st = "main;operator new[]";
	T_EQ_INT(match(&b, st, strlen(st)), 1, "quoted brackets");
	st = "main;std::map<int, int>::insert;parse_x";
	T_EQ_INT(match(&b, st, strlen(st)), 0, "the first line wins over an earlier frame");
	st = "main;reparse_x";
	T_EQ_INT(match(&b, st, strlen(st)), 3, "whole names only: the catch-all");
	fk_budget_release(&b);
	T_OK(fk_budget_parse(&b, "a 1\nb 2\n", 8, &err) == 0 && b.n == 2, "no comment");
	st = "x;y";
	T_EQ_INT(match(&b, st, strlen(st)), -1, "no line matches");
	fk_budget_release(&b);
	T_OK(fk_budget_parse(&b, "a 1\nb\n", 6, &err) < 0 && err.line == 2 && b.n == 0,
	     "no size: refused at its line (%s)", err.msg);
	fk_err_init(&err, "b");
	T_OK(fk_budget_parse(&b, "a#b 1\n", 6, &err) == 0 && strcmp(b.v[0].pattern, "a#b") == 0,
	     "a '#' inside a pattern is no comment");
	fk_budget_release(&b);
}

/* One matcher over many stacks: what a name matched is kept, a line
 * without wildcards is found by its text (its quotes removed), a glob
 * keeps its line order against it. */
static void matching(void)
{
	static const char text[] =
		"a\\_b 1\n"              /* line 0: the text a_b */
		"a_b 1\n"                /* line 1: the same text; line 0 keeps it */
		"x\\ 1\n"                /* line 2: a last backslash matches nothing */
		"q[ 1\n"                 /* line 3: an unclosed '[' is itself */
		"*mid*dle* 1\n"          /* line 4: stars alone */
		"pre?x 1\n"              /* line 5 */
		"late 1\n"               /* line 6: a literal after the globs */
		"l* 1\n";                /* line 7: a glob that also matches "late" */
	static const struct { const char *stack; long line; } cases[] = {
		{ "main;a_b", 0 }, { "a_b;main", 0 }, { "main;x\\", -1 }, { "main;x", -1 },
		{ "q[", 3 }, { "q", -1 }, { "amiddle", 4 }, { "middle", 4 }, { "midle", -1 },
		{ "late;prefx", 5 }, { "late", 6 }, { "lately", 7 }, { "", -1 }, { ";;", -1 },
		{ "late;a_b", 0 }, { "late", 6 }, { "main;a_b", 0 },
	};
	/* fnmatch reads a frame up to a NUL byte; so does the matcher. */
	static const char nul[] = "x;late\0zz;y";
	struct fk_budget b;
	struct fk_budget_match *m;
	struct fk_err err;
	size_t i;

	fk_err_init(&err, "b");
	T_OK(fk_budget_parse(&b, text, sizeof text - 1, &err) == 0 && b.n == 8, "parses: %s",
	     err.msg);
	m = fk_budget_match_new(&b);
	T_OK(m != NULL, "a matcher");
	for (i = 0; m && i < sizeof cases / sizeof cases[0]; i++)
		T_EQ_INT(fk_budget_match_stack(m, cases[i].stack, strlen(cases[i].stack)),
			 cases[i].line, cases[i].stack);
	T_EQ_INT(m ? fk_budget_match_stack(m, nul, sizeof nul - 1) : -3, 6,
		 "a frame with a NUL byte: what comes before it");
	T_EQ_INT(m ? fk_budget_match_stack(m, "late\0", 5) : -3, 6, "the same name");
	fk_budget_match_free(m);
	fk_budget_release(&b);
	T_OK(fk_budget_parse(&b, "", 0, &err) == 0 && (m = fk_budget_match_new(&b)) &&
	     fk_budget_match_stack(m, "a;b", 3) == -1, "an empty budget matches nothing");
	fk_budget_match_free(m);
	fk_budget_release(&b);
}

static void verdicts(void)
{
	static const char now[] = "# columns: inuse_space/bytes alloc_space/bytes\n"
				  "main;a 100 1000\nmain;b 50 50\nmain;a 20 0\nmain;c 5 5\n";
	static const char old[] = "main;a 100\nmain;b 80\nmain;gone 7\n";
	struct fk_sites s, o;
	struct fk_verdict vd;
	struct fk_budget b;
	struct fk_err err;
	char buf[128];

	fk_err_init(&err, "t");
	T_OK(fk_sites_parse_folded(&s, "now", now, sizeof now - 1, &err) == 0, "columns: %s", err.msg);
	T_EQ_INT(s.n, 3, "equal stacks merged");
	T_EQ_INT(s.inuse, 175, "in-use total");
	T_EQ_INT(s.alloc, 1055, "allocated total");
	T_EQ_INT(s.v[0].inuse, 120, "main;a summed");
	T_OK(fk_sites_parse_folded(&o, "old", old, sizeof old - 1, &err) == 0 && !o.has_alloc,
	     "plain folded: in use only");
	fk_verdict_init(&vd, &s);
	T_OK(fk_verdict_total(&vd, &s, FK_CHECK_INUSE, 175, &err) == 0 && !vd.v[0].over,
	     "the limit itself is within");
	T_OK(fk_verdict_total(&vd, &s, FK_CHECK_ALLOC, 1000, &err) == 0 && vd.v[1].over &&
	     vd.v[1].nsites == 3 && vd.v[1].sites[0].value == 1000, "allocated over: heaviest first");
	T_OK(fk_verdict_total(&vd, &o, FK_CHECK_ALLOC, 1, &err) < 0, "no allocated bytes: an error");
	/* Growth: a +20, b -30, c +5, gone -7: total -12. */
	T_OK(fk_verdict_growth(&vd, &s, &o, 10, 0, &err) == 0, "growth");
	T_OK(vd.v[2].value == -12 && vd.v[2].over && vd.v[2].sites_over == 1,
	     "the total shrank but a site grew past 10: over");
	T_OK(vd.v[2].nsites == 2 && vd.v[2].sites[0].value == 20 && vd.v[2].sites[0].base == 100 &&
	     vd.v[2].sites[1].value == 5, "only sites that grew, most first");
	T_OK(fk_verdict_growth(&vd, &s, &o, 1000, 1, &err) == 0 && vd.v[3].limit == 18 &&
	     vd.v[3].over && vd.v[3].sites_over == 1,
	     "10%% of the base's 187 bytes is 18: the +20 site is over (limit %lld)",
	     (long long)vd.v[3].limit);
	fk_budget_parse(&b, "b 10\nmain 100\n", 14, &err);
	T_OK(fk_verdict_budget(&vd, &s, &b, &err) == 0, "budgets");
	T_OK(vd.v[4].value == 50 && vd.v[4].over && vd.v[5].value == 125 && vd.v[5].over &&
	     vd.v[5].matched == 2, "b takes its stack first, main the rest");
	T_EQ_INT(vd.nover, 5, "checks over");
	T_EQ_STR(fk_report_title(&vd.v[4], buf, sizeof buf), "budget line 1 'b'", "title");
	T_EQ_STR(fk_report_size(1023, buf, sizeof buf), "1023 B", "bytes");
	T_EQ_STR(fk_report_size(1536, buf, sizeof buf), "1.5 KiB", "KiB");
	T_EQ_STR(fk_report_size(-3 * 1048576, buf, sizeof buf), "-3.0 MiB", "negative");
	T_EQ_STR(fk_report_share(1, 8, buf, sizeof buf), "12.5%", "share");
	T_EQ_STR(fk_report_site("a;b;c;d;e;f", 11, buf, sizeof buf), "f < e < d < c < ...", "site");
	T_EQ_STR(fk_report_site("main", 4, buf, sizeof buf), "main", "one frame");
	fk_budget_release(&b);
	fk_verdict_release(&vd);
	fk_sites_release(&o);
	fk_sites_release(&s);
}

int main(void)
{
	sizes();
	budgets();
	matching();
	verdicts();
	return T_DONE();
}
