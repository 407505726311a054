/* SPDX-License-Identifier: MIT */
/* Unit tests of capture/serve_params.c: a request's name-value list, as
 * the transport decodes it, checked against a route's list and read into
 * the typed request (fk_req_parse): values, defaults, the bare flag, and
 * the 400 sentences the hook answers (tests/hook/params.t checks them end
 * to end). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t.h"
#include "serve_req.h"

static const char *fmt_word(int i)
{
	static const char *const w[] = { "pprof", "flame", "folded", "raw", "symbolized" };

	return i >= 0 && i < 5 ? w[i] : NULL;
}

static const char *type_word(int i)
{
	static const char *const w[] = { "inuse_space", "inuse_objects", "alloc_space",
					 "alloc_objects" };

	return i >= 0 && i < 4 ? w[i] : NULL;
}

static const struct fk_param heap[] = {
	{ .arg = FK_ARG_FORMAT, .kind = FK_PARAM_WORD, .word = fmt_word },
	{ .arg = FK_ARG_TITLE, .kind = FK_PARAM_TEXT },
	{ .arg = FK_ARG_MINWIDTH, .kind = FK_PARAM_WIDTH },
	{ .arg = FK_ARG_INVERTED, .kind = FK_PARAM_FLAG },
	{ .arg = FK_ARG_LINES, .kind = FK_PARAM_FLAG },
	{ .arg = FK_ARG_SAMPLE_TYPE, .kind = FK_PARAM_WORD, .word = type_word },
	{ .arg = FK_ARG_SNAPSHOT, .kind = FK_PARAM_ID, .max = UINT32_MAX },
	{ .arg = FK_ARG_SECONDS, .kind = FK_PARAM_UINT, .max = 3600 },
	{ .arg = FK_ARG_END },
};

static const struct fk_param settings[] = {
	{ .arg = FK_ARG_ENABLED, .kind = FK_PARAM_BOOL },
	{ .arg = FK_ARG_LG_SAMPLE, .kind = FK_PARAM_UINT, .max = 63 },
	{ .arg = FK_ARG_PID, .kind = FK_PARAM_PID_ALL },
	{ .arg = FK_ARG_END },
};

/* One decoded parameter: F("name", "value"), or B("name") for one given
 * without '='; lengths from the literal, so that "p\0id" holds its NUL. */
struct field {
	const char *key;
	size_t klen;
	const char *val;
	size_t vlen;
};
#define F(k, v) { (k), sizeof(k) - 1, (v), sizeof(v) - 1 }
#define B(k) { (k), sizeof(k) - 1, NULL, 0 }
#define END_LIST { NULL, 0, NULL, 0 }

static int each(void *tctx, fk_arg_fn *fn, void *cls)
{
	const struct field *f = tctx;
	int rc;

	for (; f->key; f++)
		if ((rc = fn(cls, f->key, f->klen, f->val, f->vlen)) != 0)
			return rc;
	return 0;
}

static char msg[600];

/* Parses the list against params: fk_req_parse's result, msg its sentence. */
static int parse(const struct field *list, const struct fk_param *params, struct fk_req *q)
{
	return fk_req_parse(q, each, (void *)list, params, "GET /x", msg, sizeof msg);
}

/* The sentence a list refuses with, or "(accepted)". */
static const char *refused(const struct field *list, const struct fk_param *params)
{
	struct fk_req q;

	return parse(list, params, &q) < 0 ? msg : "(accepted)";
}

/* A list written in place. */
#define L(...) ((const struct field[]){ __VA_ARGS__, END_LIST })

static void test_names(void)
{
	int unique = 1, named = 1;

	T_OK(fk_arg_name(FK_ARG_END) == NULL, "FK_ARG_END has no name");
	T_OK(fk_arg_name(FK_ARG_COUNT) == NULL, "nothing past the last");
	for (int a = FK_ARG_END + 1; a < FK_ARG_COUNT; a++) {
		named &= fk_arg_name(a) != NULL;
		for (int b = a + 1; b < FK_ARG_COUNT && named; b++)
			if (fk_arg_name(b) && strcmp(fk_arg_name(a), fk_arg_name(b)) == 0)
				unique = 0;
	}
	T_OK(named, "every parameter has a name");
	T_OK(unique, "no two parameters share one");
	T_EQ_STR(fk_arg_name(FK_ARG_MAX_SAMPLES), "max_samples", "a name as the query spells it");
}

static void test_values(void)
{
	struct fk_req q;

	T_EQ_INT(fk_req_parse(&q, NULL, NULL, heap, "GET /x", msg, sizeof msg), 0,
		 "no list is accepted");
	T_EQ_INT(parse(L(END_LIST), heap, &q), 0, "an empty list is accepted");
	T_EQ_INT(q.given, 0, "with nothing given");
	T_EQ_INT(q.format, 0, "the format is the list's first word");
	T_EQ_INT(q.inverted, -1, "inverted defaults to the renderer's");
	T_OK(q.minwidth < 0, "minwidth defaults to the renderer's");
	T_OK(q.title == NULL, "no title");

	T_EQ_INT(parse(L(F("format", "folded"), F("sample_type", "alloc_space"),
			 F("seconds", "30"), F("snapshot", "7")), heap, &q), 0,
		 "typed values are accepted");
	T_EQ_INT(q.format, 2, "format folded is word 2");
	T_EQ_INT(q.sample_type, 2, "sample_type alloc_space is word 2");
	T_EQ_INT(q.seconds, 30, "seconds");
	T_EQ_INT(q.snapshot, 7, "snapshot");
	T_OK(fk_req_has(&q, FK_ARG_FORMAT) && fk_req_has(&q, FK_ARG_SECONDS) &&
	     fk_req_has(&q, FK_ARG_SNAPSHOT) && fk_req_has(&q, FK_ARG_SAMPLE_TYPE),
	     "each given is marked");
	T_OK(!fk_req_has(&q, FK_ARG_TITLE) && !fk_req_has(&q, FK_ARG_PID), "nothing else is");

	T_EQ_INT(parse(L(F("format", "flame"), B("inverted")), heap, &q), 0,
		 "the bare flag &inverted");
	T_EQ_INT(q.inverted, 1, "a bare flag is true");
	T_OK(fk_req_has(&q, FK_ARG_INVERTED), "and given");
	T_EQ_INT(parse(L(F("inverted", ""), B("lines")), heap, &q), 0,
		 "a flag with an empty value");
	T_EQ_INT(q.inverted, 1, "is true too");
	T_EQ_INT(q.lines, 1, "a bare lines");
	T_EQ_INT(parse(L(F("inverted", "false")), heap, &q), 0, "inverted=false");
	T_EQ_INT(q.inverted, 0, "is 0");
	T_EQ_INT(parse(L(F("inverted", "1")), heap, &q), 0, "inverted=1");
	T_EQ_INT(q.inverted, 1, "is 1");

	T_EQ_INT(parse(L(F("minwidth", "5%")), heap, &q), 0, "minwidth as a percentage");
	T_OK(q.minwidth == 5 && q.minwidth_pct == 1, "5 %%");
	T_EQ_INT(parse(L(F("minwidth", "0.5")), heap, &q), 0, "minwidth in pixels");
	T_OK(q.minwidth == 0.5 && q.minwidth_pct == 0, "0.5 px");

	{
		const struct field *l = L(F("title", "a b"));

		T_EQ_INT(parse(l, heap, &q), 0, "a title");
		T_OK(q.title == l[0].val, "pointing into the request's own list");
	}

	T_EQ_INT(parse(L(F("a", ""), F("pid", "42")), heap, &q) < 0, 1,
		 "an unknown name with an empty value");
	T_EQ_INT(parse(L(B(""), F("", ""), F("pid", "42"), B("")), heap, &q), 0,
		 "empty fields carry nothing");
	T_EQ_INT(q.pid, 42, "pid is every route's");
	T_OK(fk_req_has(&q, FK_ARG_PID) && !q.pid_all, "pid given, not all");

	T_EQ_INT(parse(L(F("enabled", "true"), F("lg_sample", "12"), F("pid", "all")), settings,
		       &q), 0, "settings");
	T_OK(q.enabled == 1 && q.lg_sample == 12 && q.pid_all, "enabled, lg_sample, pid=all");
	T_EQ_INT(parse(L(F("enabled", "0")), settings, &q), 0, "enabled=0");
	T_OK(q.enabled == 0 && fk_req_has(&q, FK_ARG_ENABLED) &&
	     !fk_req_has(&q, FK_ARG_LG_SAMPLE), "is given and false");
}

static void test_refused(void)
{
	T_EQ_STR(refused(L(F("bogus", "1")), heap),
		 "unknown parameter 'bogus': GET /x takes format, title, minwidth, inverted, "
		 "lines, sample_type, snapshot, seconds and pid", "an unknown parameter");
	T_EQ_STR(refused(L(F("bogus", "1")), settings),
		 "unknown parameter 'bogus': GET /x takes enabled, lg_sample and pid",
		 "pid is said once when the list has it");
	T_EQ_STR(refused(L(F("title", "a"), F("title", "b")), heap),
		 "parameter 'title' given twice: give it once", "a parameter twice");
	T_EQ_STR(refused(L(F("pid", "1"), F("pid", "1")), heap),
		 "parameter 'pid' given twice: give it once", "pid twice");
	T_EQ_STR(refused(L(B("pid")), heap), "parameter 'pid' has no value (no '='): want "
		 "pid=VALUE, VALUE a process id (1 to 2147483647)", "pid without '='");
	T_EQ_STR(refused(L(B("seconds")), heap), "parameter 'seconds' has no value (no '='): "
		 "want seconds=VALUE, VALUE 0 to 3600", "a number without '='");
	T_EQ_STR(refused(L(F("inverted", "maybe")), heap),
		 "bad inverted 'maybe': want true or false", "a bad flag");
	T_EQ_STR(refused(L(F("seconds", "3601")), heap), "bad seconds '3601': want 0 to 3600",
		 "a number past its bound");
	T_EQ_STR(refused(L(F("seconds", "-1")), heap), "bad seconds '-1': want 0 to 3600",
		 "a sign");
	T_EQ_STR(refused(L(F("snapshot", "0")), heap), "bad snapshot '0': want 1 to 4294967295",
		 "an id of 0");
	T_EQ_STR(refused(L(F("format", "svg")), heap),
		 "unknown format 'svg': want pprof, flame, folded, raw or symbolized",
		 "a word not in the list");
	T_EQ_STR(refused(L(F("minwidth", "2000000")), heap), "bad minwidth '2000000': want a "
		 "width in pixels (0 to 1000000) or a percentage (N%)", "a width past 1e6");
	T_EQ_STR(refused(L(F("pid", "all")), heap),
		 "bad pid 'all': want a process id (1 to 2147483647)",
		 "pid=all where the route does not take it");
	T_EQ_STR(refused(L(F("pid", "2147483648")), heap), "bad pid '2147483648': want a "
		 "process id (1 to 2147483647)", "a pid past pid_t");
	T_EQ_STR(refused(L(F("p\0id", "1")), heap), "a parameter's name 'p?id' holds a NUL "
		 "byte (%00): GET /x takes format, title, minwidth, inverted, lines, sample_type, "
		 "snapshot, seconds and pid", "a NUL byte in a name");
	T_EQ_STR(refused(L(F("lg_sample", "1\0")), settings), "bad lg_sample '1?': it holds a "
		 "NUL byte (%00); want 0 to 63", "a NUL byte in a value");
	T_EQ_STR(refused(L(F("", "x")), heap), "a parameter without a name ('=x'): GET /x takes "
		 "format, title, minwidth, inverted, lines, sample_type, snapshot, seconds and pid",
		 "a value without a name");
	T_EQ_STR(refused(L(F("enabled", "yes")), settings),
		 "bad enabled 'yes': want true or false", "a bad boolean");
	T_EQ_STR(refused(L(B("enabled")), settings), "parameter 'enabled' has no value (no "
		 "'='): want enabled=VALUE, VALUE true or false", "a boolean is no flag");
}

int main(void)
{
	test_names();
	test_values();
	test_refused();
	return T_DONE();
}
