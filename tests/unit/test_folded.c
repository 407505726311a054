/* SPDX-License-Identifier: MIT */
/* Unit tests of the folded-stack reader and frame writer (core/folded.c). */
#include <stdlib.h>
#include <string.h>

#include "folded.h"
#include "t.h"

struct seen {
	int n;
	char stacks[8][64];
	long long values[8];
	unsigned long long lines[8];
	int bad;
	unsigned long long badlines[8];
};

static int on_line(void *ctx, const struct fk_folded_line *l)
{
	struct seen *s = ctx;

	if (s->n < 8) {
		snprintf(s->stacks[s->n], sizeof s->stacks[0], "%.*s", (int)l->len, l->stack);
		s->values[s->n] = l->value;
		s->lines[s->n] = l->lineno;
	}
	s->n++;
	return 0;
}

static void on_bad(void *ctx, const struct fk_err *e)
{
	struct seen *s = ctx;

	if (s->bad < 8)
		s->badlines[s->bad] = e->line;
	s->bad++;
}

static int stop_after_one(void *ctx, const struct fk_folded_line *l)
{
	(void)l;
	return ++*(int *)ctx >= 1 ? -1 : 0;
}

static int run(const char *in, int skip, struct seen *s, struct fk_err *err)
{
	memset(s, 0, sizeof *s);
	fk_err_init(err, "t");
	return fk_folded_each(in, strlen(in), skip, on_line, on_bad, s, err);
}

int main(void)
{
	struct seen s;
	struct fk_err err;
	int rc, k;
	char buf[128];
	FILE *fp;

	rc = run("main;foo 5\nmain;foo::bar 3\r\n\n  \r\nmain;foo;baz 2", 0, &s, &err);
	T_EQ_INT(rc, 0, "three lines read");
	T_EQ_INT(s.n, 3, "blank lines skipped");
	T_EQ_STR(s.stacks[1], "main;foo::bar", "CR stripped from the stack");
	T_EQ_INT(s.values[1], 3, "value of a CRLF line");
	T_EQ_INT(s.lines[2], 5, "line numbers count blank lines");
	T_EQ_STR(s.stacks[2], "main;foo;baz", "last line without newline");

	rc = run("a b  c;d e \t 42  \n", 0, &s, &err);
	T_EQ_STR(s.stacks[0], "a b  c;d e", "spaces inside names kept, separator blanks dropped");
	T_EQ_INT(s.values[0], 42, "value is the last field");

	rc = run("x 9223372036854775807\n", 0, &s, &err);
	T_EQ_INT(s.values[0], INT64_MAX, "value up to 2^63-1");

	rc = run("ok 1\nnovalue\n", 0, &s, &err);
	T_EQ_INT(rc, -1, "a line without value fails");
	T_EQ_INT(err.line, 2, "the error names line 2");
	T_OK(strstr(err.msg, "missing value") != NULL, "message says missing value: %s", err.msg);
	T_EQ_INT(s.n, 1, "lines before the bad one were delivered");

	rc = run("a 1.5\n", 0, &s, &err);
	T_OK(rc == -1 && strstr(err.msg, "bad value '1.5'"), "fractional value rejected: %s", err.msg);
	rc = run("a 99999999999999999999\n", 0, &s, &err);
	T_OK(rc == -1 && err.code == FK_ESYNTAX, "value past int64 rejected: %s", err.msg);
	rc = run("   7\n", 0, &s, &err);
	T_OK(rc == -1 && strstr(err.msg, "empty stack"), "a bare number has no stack: %s", err.msg);
	rc = run("a -3\n", 0, &s, &err);
	T_OK(rc == 0 && s.values[0] == -3, "negative values parse (the caller decides)");

	rc = run("a 1\nbad\nb x\nc 3\n", 1, &s, &err);
	T_EQ_INT(rc, 0, "skip_bad goes on");
	T_EQ_INT(s.n, 2, "good lines delivered around bad ones");
	T_EQ_INT(s.bad, 2, "bad lines reported");
	T_OK(s.badlines[0] == 2 && s.badlines[1] == 3, "bad lines named by number");
	T_EQ_INT(err.code, FK_OK, "err cleared after skipping");

	k = 0;
	fk_err_init(&err, "t");
	rc = fk_folded_each("a 1\nb 2\n", 8, 0, stop_after_one, NULL, &k, &err);
	T_OK(rc == -1 && k == 1, "callback can stop the walk");

	{
		uint64_t line = 10;
		memset(&s, 0, sizeof s);
		fk_err_init(&err, "t");
		rc = fk_folded_each_from("a 1\nb\n", 6, &line, 0, on_line, NULL, &s, &err);
		T_OK(rc == -1 && err.line == 12, "each_from numbers lines after the first %llu",
		     (unsigned long long)err.line);
		line = 3;
		rc = fk_folded_each_from("a 1\nb 2\n", 8, &line, 0, on_line, NULL, &s, &err);
		T_EQ_INT(line, 5, "each_from advances the line count");
	}

	fp = fmemopen(buf, sizeof buf, "w");
	fk_folded_put_frame(fp, "a;b\tc\nd\x01" "e");
	fclose(fp);
	T_EQ_STR(buf, "a:b c d e", "put_frame keeps a frame one frame of one line");
	return T_DONE();
}
