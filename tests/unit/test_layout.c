/* SPDX-License-Identifier: MIT */
/* Unit tests of the flame graph tree (render/layout.c) and text helpers
 * (render/text.c), and the in-process entry point (render/flame.c). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "render_int.h"
#include "t.h"

static uint32_t find(const struct fk_tree *t, uint32_t parent, const char *name)
{
	uint32_t c;

	for (c = t->nodes[parent].child; c; c = t->nodes[c].next)
		if (strcmp(t->names[t->nodes[c].name].s, name) == 0)
			return c;
	return 0;
}

static const char *nth_child(const struct fk_tree *t, uint32_t parent, int k)
{
	uint32_t c = t->nodes[parent].child;

	while (c && k--)
		c = t->nodes[c].next;
	return c ? t->names[t->nodes[c].name].s : "(none)";
}

static void add(struct fk_tree *t, const char *s, int64_t v, int base)
{
	struct fk_err err;

	fk_err_init(&err, "t");
	if (fk_tree_add_line(t, s, strlen(s), v, base, 1, &err) < 0)
		printf("# add '%s': %s\n", s, err.msg);
}

/* The length of the name of parent's k-th child, or -1. */
static long kid_len(const struct fk_tree *t, uint32_t parent, int k)
{
	uint32_t c = t->nodes[parent].child;

	while (c && k--)
		c = t->nodes[c].next;
	return c ? (long)t->names[t->nodes[c].name].len : -1;
}

/* Adds s[0..n) (may hold NUL bytes) with value v. */
static void addn(struct fk_tree *t, const char *s, size_t n, int64_t v)
{
	struct fk_err err;

	fk_err_init(&err, "t");
	if (fk_tree_add_line(t, s, n, v, 0, 1, &err) < 0)
		printf("# add: %s\n", err.msg);
}

/* Renders folded text with o, into a malloc'd *out of *len bytes. */
static int render(const char *in, const struct fk_flame_opts *o, char **out, size_t *len)
{
	struct fk_err err;
	FILE *fp = open_memstream(out, len);
	int rc;

	fk_err_init(&err, "t");
	rc = fk_flame_render(in, strlen(in), NULL, 0, o, fp, &err);
	fclose(fp);
	return rc;
}

/* Renders the lines of in (each "a;b;c V") given one by one to
 * fk_flame_add_stack, into a malloc'd *out of *len bytes. */
static int render_stacks(const char *in, const struct fk_flame_opts *o, char **out,
			 size_t *len)
{
	struct fk_err err;
	struct fk_flame *f;
	const char *names[64], *l = in;
	size_t lens[64];
	FILE *fp;
	int rc = 0;

	fk_err_init(&err, "t");
	if (!(f = fk_flame_new(o, &err)))
		return -1;
	while (*l && rc == 0) {
		const char *nl = strchr(l, '\n'), *sp = nl;
		size_t n = 0;

		while (sp[-1] != ' ')
			sp--;
		for (const char *a = l; n < 64;) {
			const char *e = memchr(a, ';', (size_t)(sp - 1 - a));

			names[n] = a;
			lens[n++] = (size_t)((e ? e : sp - 1) - a);
			if (!e)
				break;
			a = e + 1;
		}
		rc = fk_flame_add_stack(f, names, lens, n, strtoll(sp, NULL, 10), 0, &err);
		l = nl + 1;
	}
	fp = open_memstream(out, len);
	if (rc == 0)
		rc = fk_flame_write(f, fp, &err);
	fclose(fp);
	fk_flame_free(f);
	return rc;
}

/* fk_flame_add_stack, which finds the frames a stack shares with the one
 * before by their bytes, draws the page render-flame draws from the same
 * lines as text (the hook's ?format=flame relies on it). */
static void test_add_stack(void)
{
	static const char in[] =
		"main;a;b;c 5\n"
		"main;a;b 3\n"              /* a prefix of the last */
		"main;a;b;c;d 2\n"          /* longer again */
		"main;a;x;c 7\n"            /* differs in the middle, same leaf */
		"main;ab;b 1\n"             /* a longer name sharing bytes */
		"main;a;b;c 4\n"            /* back to an earlier stack */
		"other 6\n"
		"main;a 2\n"
		"main;main;main 1\n"
		"x;y 1\n"
		"y;x 2\n";                  /* the last one reversed */
	struct fk_flame_opts o;
	char *a = NULL, *b = NULL;
	size_t an = 0, bn = 0;

	for (int rev = 0; rev < 2; rev++) {
		fk_flame_opts_init(&o);
		o.reverse = (unsigned)rev;
		o.minwidth = 0;
		T_OK(render(in, &o, &a, &an) == 0, "text rendered (reverse %d)", rev);
		T_OK(render_stacks(in, &o, &b, &bn) == 0, "stacks rendered (reverse %d)", rev);
		T_OK(an == bn && memcmp(a, b, an) == 0,
		     "stacks one by one give the text's page, byte for byte (reverse %d)", rev);
		free(a);
		free(b);
		a = b = NULL;
	}
}

/* The hook's live page (issue 36): the four heap sample types through
 * fk_flame_set_columns and fk_flame_add_stack_cols, the origin through
 * fk_flame_opts.info, draw the page render-flame draws from the same
 * stacks as "# info:" and "# columns:" text, byte for byte. */
static void test_add_stack_columns(void)
{
	static const char cols[] = "inuse_space/bytes inuse_objects/count alloc_space/bytes alloc_objects/count";
	static const char *const st[][3] = { { "main", "a", NULL }, { "main", "a", "b" }, { "main", "c", NULL } };
	static const int64_t v[][4] = { { 100, 2, 400, 8 }, { 0, 0, 50, 1 }, { 30, 1, 30, 1 } };
	static const char text[] =
		"# info: program=/usr/bin/demo\n# info: pid=42\n"
		"# columns: inuse_space/bytes inuse_objects/count alloc_space/bytes alloc_objects/count\n"
		"main;a 100 2 400 8\nmain;a;b 0 0 50 1\nmain;c 30 1 30 1\n";
	struct fk_flame_opts o;
	struct fk_flame *f;
	struct fk_err err;
	char *a = NULL, *b = NULL;
	size_t an = 0, bn = 0, i, n;
	FILE *fp;
	int rc;

	fk_flame_opts_init(&o);
	T_OK(render(text, &o, &a, &an) == 0, "the text of four columns and an origin renders");
	fk_err_init(&err, "t");
	o.info = "program=/usr/bin/demo\npid=42\n";
	f = fk_flame_new(&o, &err);
	rc = f ? fk_flame_set_columns(f, cols, &err) : -1;
	for (i = 0; rc == 0 && i < 3; i++) {
		size_t lens[3];
		for (n = 0; n < 3 && st[i][n]; n++)
			lens[n] = strlen(st[i][n]);
		rc = fk_flame_add_stack_cols(f, st[i], lens, n, v[i], &err);
	}
	fp = open_memstream(&b, &bn);
	if (rc == 0)
		rc = fk_flame_write(f, fp, &err);
	fclose(fp);
	T_OK(rc == 0, "the stacks with four values and opts.info render: %s", err.msg);
	T_OK(an == bn && memcmp(a, b, an) == 0, "they give the text's page, byte for byte");
	T_OK(strstr(b, "<metadata id=\"fkinfo\">\nprogram=/usr/bin/demo\npid=42\n</metadata>") != NULL,
	     "the page holds the origin's lines");
	T_OK(fk_flame_set_columns(f, cols, &err) < 0, "columns are named before any stack");
	fk_flame_free(f);
	free(a);
	free(b);
	o.info = "program /usr/bin/demo";
	f = fk_flame_new(&o, &err);
	fp = open_memstream(&b, &bn);
	rc = fk_flame_write(f, fp, &err);
	fclose(fp);
	T_OK(rc < 0 && strstr(err.msg, "KEY=VALUE"), "a bad info line is refused: %s", err.msg);
	fk_flame_free(f);
	free(b);
}

/* Warnings told by a graph, one "line N: message" a line. */
static void warn_to(void *ctx, const struct fk_err *e)
{
	fprintf(ctx, "line %llu: %s\n", (unsigned long long)e->line, e->msg);
}

/* Renders the file fd with o (threads or not) into *out (malloc'd, *len
 * bytes), the warnings into *warns; returns add_fd's result, err its error. */
static int render_fd(int fd, struct fk_flame_opts o, int threads, char **out, size_t *len,
		     char **warns, struct fk_err *err)
{
	size_t wlen;
	FILE *wf = open_memstream(warns, &wlen), *fp = open_memstream(out, len);
	struct fk_flame *fl;
	int rc = -1;

	o.threads = threads;
	o.warn = warn_to;
	o.warn_ctx = wf;
	fk_err_init(err, "tmp");
	lseek(fd, 0, SEEK_SET);
	if ((fl = fk_flame_new(&o, err)) != NULL) {
		rc = fk_flame_add_fd(fl, fd, 0, err);
		if (rc == 0)
			rc = fk_flame_write(fl, fp, err);
		fk_flame_free(fl);
	}
	fclose(fp);
	fclose(wf);
	return rc;
}

/* A file read on a second thread gives the very page, warnings and
 * errors of one read on one thread: text of many record blocks, with bad
 * lines, long lines, shared prefixes and new names throughout. */
static void test_threaded_read(void)
{
	FILE *tf = tmpfile();
	struct fk_flame_opts o;
	struct fk_err e0, e1;
	char *o0 = NULL, *o1 = NULL, *w0 = NULL, *w1 = NULL;
	size_t n0 = 0, n1 = 0;
	unsigned i, j, x = 12345;
	int r0, r1;

	fk_flame_opts_init(&o);
	o.skip_bad = 1;
	for (i = 0; i < 60000; i++) {
		x = x * 1103515245u + 12345u;
		fprintf(tf, "main;loop_%u;mid_%u", x >> 28, (x >> 20) % 50);
		for (j = 0; j < 3 + (x >> 8) % 9; j++)
			fprintf(tf, ";fn_%u", (x >> j) % (i + 7));
		if (i % 7919 == 0)
			for (j = 0; j < 3000; j++)
				fprintf(tf, ";deep_%u", j);
		if (i % 997 == 0)
			fputs(" -3\n", tf);               /* negative: skipped */
		else if (i % 1499 == 0)
			fputs(" 1.5\n", tf);              /* malformed: skipped */
		else
			fprintf(tf, " %u\n", 1 + (x >> 12) % 1000);
	}
	fflush(tf);
	r0 = render_fd(fileno(tf), o, 0, &o0, &n0, &w0, &e0);
	r1 = render_fd(fileno(tf), o, 1, &o1, &n1, &w1, &e1);
	T_OK(r0 == 0 && r1 == 0 && n0 > 1000000, "60000 lines render both ways (%zu bytes)", n0);
	T_OK(n0 == n1 && memcmp(o0, o1, n0) == 0, "threaded reading: the same page");
	T_OK(strcmp(w0, w1) == 0 && strstr(w0, "line 59821: negative value") != NULL,
	     "threaded reading: the same warnings in the same order (%zu bytes)", strlen(w1));
	free(o0), free(o1), free(w0), free(w1);
	fclose(tf);

	/* An error the placing side finds (the total) comes before a bad line
	 * after it, and no warning about that line is told. */
	tf = tmpfile();
	fputs("a;b 1\nbad\na;c 9223372036854775000\na;d 9223372036854775000\nworse\n", tf);
	fflush(tf);
	r0 = render_fd(fileno(tf), o, 0, &o0, &n0, &w0, &e0);
	r1 = render_fd(fileno(tf), o, 1, &o1, &n1, &w1, &e1);
	T_OK(r0 == -1 && r1 == -1 && e0.line == 4 && e1.line == 4 && strcmp(e0.msg, e1.msg) == 0,
	     "threaded reading: the total's error at its line (%s)", e1.msg);
	T_OK(strcmp(w0, w1) == 0 && strstr(w1, "line 2:") && !strstr(w1, "line 5:"),
	     "threaded reading: only the warnings before the error ('%s')", w1);
	free(o0), free(o1), free(w0), free(w1);
	fclose(tf);
}

int main(void)
{
	test_add_stack();
	test_add_stack_columns();
	struct fk_tree t;
	struct fk_err err;
	struct fk_buf b = { 0 };
	uint32_t main_, foo, bar;
	size_t nch, cut;
	char *out = NULL;
	size_t outlen = 0;
	FILE *fp;
	struct fk_flame_opts o;
	int rc;

	/* The merge bug of flamegraph.pl and inferno. */
	fk_err_init(&err, "t");
	T_EQ_INT(fk_tree_init(&t, &err), 0, "tree init");
	add(&t, "main;foo", 5, 0);
	add(&t, "main;foo::bar", 3, 0);
	add(&t, "main;foo;baz", 2, 0);
	T_EQ_INT(fk_tree_finish(&t, &err), 0, "finish");
	main_ = find(&t, 0, "main");
	foo = find(&t, main_, "foo");
	T_EQ_INT(t.nodes[foo].total, 7, "one foo of 7");
	T_EQ_INT(t.nodes[foo].self, 5, "foo's self is 5");
	T_EQ_INT(t.nodes[find(&t, foo, "baz")].total, 2, "baz under foo");
	T_EQ_INT(t.nodes[0].total, 10, "root total");
	T_EQ_STR(nth_child(&t, main_, 0), "foo", "name order: foo first");
	T_EQ_STR(nth_child(&t, main_, 1), "foo::bar", "name order: foo::bar second");
	fk_tree_release(&t);

	/* Unsorted input, shared prefixes, weight order. */
	fk_tree_init(&t, &err);
	t.sort = FK_SORT_WEIGHT;
	add(&t, "a;b;c", 1, 0);
	add(&t, "a;b;d", 2, 0);
	add(&t, "a;x", 10, 0);
	add(&t, "a;b;c", 4, 0);
	add(&t, "a;b", 1, 0);
	fk_tree_finish(&t, &err);
	main_ = find(&t, 0, "a");
	T_EQ_STR(nth_child(&t, main_, 0), "x", "weight order: heaviest first");
	bar = find(&t, main_, "b");
	T_EQ_INT(t.nodes[bar].total, 8, "prefix-shared lines merge (b = 1+2+4+1)");
	T_EQ_INT(t.nodes[find(&t, bar, "c")].total, 5, "repeated stack adds up");
	T_EQ_STR(nth_child(&t, bar, 0), "c", "weight order among b's children");
	T_EQ_INT(t.nnodes, 6, "no duplicate nodes (root, a, b, c, d, x)");
	fk_tree_release(&t);

	/* A prefix that is not a frame boundary must not be shared. */
	fk_tree_init(&t, &err);
	add(&t, "ab;c", 1, 0);
	add(&t, "a;c", 1, 0);
	add(&t, "a", 1, 0);
	add(&t, "ab", 1, 0);
	fk_tree_finish(&t, &err);
	T_OK(find(&t, 0, "a") && find(&t, 0, "ab"), "'a' and 'ab' are different frames");
	T_EQ_INT(t.nodes[find(&t, 0, "ab")].total, 2, "ab = 2");
	T_EQ_INT(t.nodes[find(&t, 0, "a")].total, 2, "a = 2");
	fk_tree_release(&t);

	/* Frame ends and line prefixes at every offset of an 8-byte word
	 * (frames are scanned and lines compared a word at a time): names of
	 * 1-20 bytes that differ only in their last byte stay apart, repeats
	 * merge, whether or not the line before shares their bytes. Each line
	 * has a buffer of its own: the tree compares a line with the last. */
	fk_tree_init(&t, &err);
	{
		static char lines[60][32];
		int len, k, bad = 0;
		for (len = 1; len <= 20; len++)
			for (k = 0; k < 3; k++) {
				char *line = lines[(len - 1) * 3 + k];
				memcpy(line, "p;", 2);
				memset(line + 2, 'x', (size_t)len);
				line[2 + len - 1] = k == 1 ? 'b' : 'a';
				memcpy(line + 2 + len, ";q", 2);
				addn(&t, line, (size_t)len + 4, 1);
			}
		fk_tree_finish(&t, &err);
		main_ = find(&t, 0, "p");
		for (k = 0, foo = t.nodes[main_].child; foo; foo = t.nodes[foo].next, k++) {
			const struct fk_fname *nm = &t.names[t.nodes[foo].name];
			int64_t want = nm->s[nm->len - 1] == 'a' ? 2 : 1;
			if (t.nodes[foo].total != want || !t.nodes[foo].child ||
			    t.nodes[t.nodes[foo].child].next)
				bad++;
		}
		T_EQ_INT(k, 40, "40 distinct frames of 1-20 bytes");
		T_EQ_INT(bad, 0, "each merged with its repeats, one child q each");
		T_EQ_INT(t.nnodes, 1 + 1 + 40 + 40, "no duplicate nodes");
	}
	fk_tree_release(&t);

	/* Byte order, then length, across the 16-byte sort keys: names that
	 * share 16 bytes, a name that is a prefix of another, and NUL bytes
	 * (a key pads with zeros, which must not tie a name with a NUL). */
	fk_tree_init(&t, &err);
	addn(&t, "r;0123456789abcdefZ", 19, 1);
	addn(&t, "r;0123456789abcdef\0", 19, 1);
	addn(&t, "r;0123456789abcdef", 18, 1);
	addn(&t, "r;0123456789abcde\x01", 19, 1);
	addn(&t, "r;ab\0", 5, 1);
	addn(&t, "r;ab", 4, 1);
	addn(&t, "r;ab\0\0", 6, 1);
	fk_tree_finish(&t, &err);
	main_ = find(&t, 0, "r");
	T_EQ_INT(kid_len(&t, main_, 0), 17, "0123456789abcde\\x01 first");
	T_EQ_INT(kid_len(&t, main_, 1), 16, "then 0123456789abcdef");
	T_EQ_INT(kid_len(&t, main_, 2), 17, "then 0123456789abcdef\\0");
	T_EQ_STR(nth_child(&t, main_, 3), "0123456789abcdefZ", "then ...Z");
	T_EQ_INT(kid_len(&t, main_, 4), 2, "then ab");
	T_EQ_INT(kid_len(&t, main_, 5), 3, "then ab\\0");
	T_EQ_INT(kid_len(&t, main_, 6), 4, "then ab\\0\\0");
	fk_tree_release(&t);

	/* Sibling order with few children (an insertion sort) and many (qsort):
	 * by name, and by weight with ties by name. */
	for (rc = 0; rc < 4; rc++) {
		int nk = rc & 1 ? 40 : 9, k, inorder = 1;
		static char lines[40][16];
		fk_tree_init(&t, &err);
		t.sort = rc & 2 ? FK_SORT_WEIGHT : FK_SORT_NAME;
		for (k = nk - 1; k >= 0; k--) {
			snprintf(lines[k], sizeof lines[k], "s;k%02d", k);
			add(&t, lines[k], rc & 2 ? 1 + k % 3 : 1, 0);
		}
		fk_tree_finish(&t, &err);
		main_ = find(&t, 0, "s");
		for (foo = t.nodes[main_].child, k = 0; foo && t.nodes[foo].next;
		     foo = t.nodes[foo].next, k++) {
			bar = t.nodes[foo].next;
			if (t.sort == FK_SORT_WEIGHT && t.nodes[foo].total != t.nodes[bar].total) {
				inorder &= t.nodes[foo].total > t.nodes[bar].total;
				continue;
			}
			inorder &= strcmp(t.names[t.nodes[foo].name].s,
					  t.names[t.nodes[bar].name].s) < 0;
		}
		T_OK(inorder && k == nk - 1, "%d children in %s order", nk,
		     rc & 2 ? "weight" : "name");
		fk_tree_release(&t);
	}

	/* The threaded page (render-flame) is byte for byte the page written
	 * on one thread (the hook). */
	{
		char *o1 = NULL, *o2 = NULL;
		size_t l1 = 0, l2 = 0;
		const char *in = "main;a;b 5\nmain;a;c 7\nmain;d 1\nz 2\n";
		fk_flame_opts_init(&o);
		T_EQ_INT(render(in, &o, &o1, &l1), 0, "one thread renders");
		o.threads = 1;
		T_EQ_INT(render(in, &o, &o2, &l2), 0, "two threads render");
		T_OK(l1 > 1000 && l1 == l2 && memcmp(o1, o2, l1) == 0,
		     "same page either way (%zu, %zu bytes)", l1, l2);
		free(o1);
		free(o2);
	}

	/* Flame chart: input order, only adjacent frames merge. */
	fk_tree_init(&t, &err);
	t.flamechart = 1;
	add(&t, "m;z", 1, 0);
	add(&t, "m;a", 1, 0);
	add(&t, "m;z", 1, 0);
	fk_tree_finish(&t, &err);
	main_ = find(&t, 0, "m");
	T_EQ_STR(nth_child(&t, main_, 0), "z", "flame chart keeps input order");
	T_EQ_STR(nth_child(&t, main_, 2), "z", "non-adjacent repeats stay apart");
	fk_tree_release(&t);

	/* Reverse: leaf becomes root. */
	fk_tree_init(&t, &err);
	t.reverse = 1;
	add(&t, "main;leaf", 3, 0);
	add(&t, "other;leaf", 4, 0);
	fk_tree_finish(&t, &err);
	T_EQ_INT(t.nodes[find(&t, 0, "leaf")].total, 7, "reversed stacks merge at the leaf");
	fk_tree_release(&t);

	/* Differential: base values, vanished stacks. */
	fk_tree_init(&t, &err);
	add(&t, "m;gone", 6, 1);
	add(&t, "m;kept", 2, 1);
	add(&t, "m;kept", 5, 0);
	fk_tree_finish(&t, &err);
	main_ = find(&t, 0, "m");
	T_EQ_INT(t.has_base, 1, "base seen");
	T_EQ_INT(t.btotal[main_], 8, "base total");
	T_EQ_INT(t.nodes[main_].total, 5, "new total");
	T_EQ_INT(t.vtotal[main_], 11, "visible total keeps the vanished stack");
	T_EQ_INT(t.vtotal[find(&t, main_, "kept")], 5, "a kept frame shows its new value");
	fk_tree_release(&t);

	/* Overflow and bad values. */
	fk_tree_init(&t, &err);
	rc = fk_tree_add_line(&t, "a", 1, INT64_MAX, 0, 1, &err);
	T_EQ_INT(rc, 0, "2^63-1 accepted");
	rc = fk_tree_add_line(&t, "b", 1, 1, 0, 2, &err);
	T_OK(rc == -1 && err.code == FK_ELIMIT && err.line == 2, "total overflow detected at line 2");
	rc = fk_tree_add_line(&t, "c", 1, -1, 0, 3, &err);
	T_OK(rc == -1 && err.code == FK_ESYNTAX, "negative value rejected");
	fk_tree_release(&t);

	/* Text cleaning. */
	fk_buf_add_clean(&b, "ok\x01\xff\xc3\xa9\xed\xa0\x80\xef\xbf\xbe\xc2\x85!", 15);
	fk_buf_add(&b, "", 1);
	T_EQ_STR(b.p, "ok\xef\xbf\xbd\xef\xbf\xbd\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
		 "\xef\xbf\xbd\xef\xbf\xbd!", "controls, invalid bytes, surrogates, U+FFFE, C1 replaced");
	b.len = 0;
	fk_buf_add_fix1(&b, 12345);
	fk_buf_add(&b, " ", 1);
	fk_buf_add_fix1(&b, 120);
	fk_buf_add(&b, " ", 1);
	fk_buf_add_i64(&b, INT64_MIN);
	fk_buf_add(&b, "", 1);
	T_EQ_STR(b.p, "1234.5 12 -9223372036854775808", "number formatting");
	cut = fk_utf8_prefix("h\xc3\xa9llo", 6, 2, &nch);
	T_OK(cut == 3 && nch == 5, "utf8 prefix cuts at a character boundary");
	fk_buf_release(&b);

	/* The entry point: whole SVG, nothing on error. */
	fk_flame_opts_init(&o);
	fp = open_memstream(&out, &outlen);
	fk_err_init(&err, "t");
	rc = fk_flame_render("main;foo 5\nmain;bar 3\n", 22, NULL, 0, &o, fp, &err);
	fclose(fp);
	T_EQ_INT(rc, 0, "fk_flame_render succeeds");
	T_OK(out && strstr(out, "<svg") && strstr(out, "</svg>\n"), "a whole SVG is written");
	T_OK(out && strstr(out, ">foo</text>"), "labels written");
	free(out);
	out = NULL;
	fp = open_memstream(&out, &outlen);
	rc = fk_flame_render("main;foo 5\nbad\n", 15, NULL, 0, &o, fp, &err);
	fclose(fp);
	T_OK(rc == -1 && outlen == 0, "nothing written on a bad line");
	T_EQ_INT(err.line, 2, "error at line 2");
	free(out);
	/* Reading a file in pieces: lines across the 1 MiB buffer, a line
	 * longer than the buffer, line numbers counted across pieces. */
	{
		FILE *tf = tmpfile();
		struct fk_flame *fl;
		int i;
		for (i = 0; i < 40000; i++)
			fprintf(tf, "main;frame_%05d;leaf %d\n", i % 5000, i % 7);
		fputs("main;", tf);
		for (i = 0; i < 300000; i++)
			fputs("longname", tf);
		fputs(" 5\nmain;after 1\nmain;bad\n", tf);
		fflush(tf);
		rewind(tf);
		fl = fk_flame_new(&o, &err);
		fk_err_init(&err, "tmp");
		rc = fk_flame_add_fd(fl, fileno(tf), 0, &err);
		T_OK(rc == -1 && err.line == 40003, "line number across 1 MiB pieces (%llu: %s)",
		     (unsigned long long)err.line, err.msg);
		fk_flame_free(fl);
		fclose(tf);
	}
	/* Value columns: the header, extra values per node, the same header
	 * on every input, a header read across fd pieces. */
	{
		static const char cols[] = "# columns: a/bytes b\nmain;x 5 7\nmain;x;y 1 2\nmain;z 0 3\n";
		struct fk_flame *fl = fk_flame_new(&o, &err);
		struct fk_tree tree;
		int64_t xv[1];
		uint32_t mx, x, z;
		FILE *tf;

		fk_err_init(&err, "cols");
		rc = fk_flame_add_folded(fl, cols, sizeof cols - 1, 0, &err);
		T_OK(rc == 0, "multi-column input reads (%s)", err.msg);
		T_EQ_STR(fk_flame_columns(fl), "a/bytes b", "column names kept");
		tf = tmpfile();
		T_EQ_INT(fk_flame_write(fl, tf, &err), 0, "multi-column graph writes");
		fclose(tf);
		fk_flame_free(fl);

		/* The tree keeps the extra columns per node. */
		T_EQ_INT(fk_tree_init(&tree, &err), 0, "tree init");
		tree.ncols = 2;
		tree.xv = xv;
		xv[0] = 7;
		add(&tree, "main;x", 5, 0);
		xv[0] = 2;
		add(&tree, "main;x;y", 1, 0);
		xv[0] = 3;
		add(&tree, "main;z", 0, 0);
		xv[0] = -1;
		fk_err_init(&err, "t");
		T_OK(fk_tree_add_line(&tree, "main;w", 6, 1, 0, 4, &err) == -1 && err.line == 4,
		     "a negative extra value is refused (%s)", err.msg);
		xv[0] = INT64_MAX;
		T_OK(fk_tree_add_line(&tree, "main;w", 6, 1, 0, 5, &err) == -1 && err.line == 5,
		     "an extra column's total may not overflow (%s)", err.msg);
		T_EQ_INT(fk_tree_finish(&tree, &err), 0, "finish");
		mx = find(&tree, 0, "main");
		x = find(&tree, mx, "x");
		z = find(&tree, mx, "z");
		T_EQ_INT(tree.nodes[x].self, 5, "column 0 of x");
		T_EQ_INT(fk_tree_xself(&tree, x, 1), 7, "column 1 of x");
		T_EQ_INT(fk_tree_xself(&tree, find(&tree, x, "y"), 1), 2, "column 1 of y");
		T_EQ_INT(fk_tree_xself(&tree, z, 1), 3, "a zero in column 0 keeps column 1");
		T_EQ_INT(fk_tree_xself(&tree, mx, 1), 0, "a node no line ends at has 0");
		/* A row for each node a line ends at with an extra value (x, y,
		 * z; w's line was refused after its row was made), none for
		 * the others. */
		T_OK(tree.nxrows <= 4, "rows only where lines end (%zu)", tree.nxrows);
		fk_tree_release(&tree);

		fl = fk_flame_new(&o, &err);
		fk_err_init(&err, "cols");
		rc = fk_flame_add_folded(fl, "main;x 1\n", 9, 0, &err);
		rc = rc == 0 ? fk_flame_add_folded(fl, cols, sizeof cols - 1, 0, &err) : rc;
		T_OK(rc == -1 && strstr(err.msg, "columns differ"), "a second input with other columns is refused (%s)", err.msg);
		fk_flame_free(fl);

		fl = fk_flame_new(&o, &err);
		fk_err_init(&err, "cols");
		rc = fk_flame_add_folded(fl, "# columns: a b\nmain;x 1 99999999999999999999\n", 44, 0, &err);
		T_OK(rc == -1 && err.line == 2, "a bad extra value is an error at its line (%s)", err.msg);
		fk_flame_free(fl);

		tf = tmpfile();
		fputs(cols, tf);
		fflush(tf);
		rewind(tf);
		fl = fk_flame_new(&o, &err);
		fk_err_init(&err, "tmp");
		rc = fk_flame_add_fd(fl, fileno(tf), 0, &err);
		T_OK(rc == 0 && strcmp(fk_flame_columns(fl), "a/bytes b") == 0, "the header is read from a file too (%s)", err.msg);
		fk_flame_free(fl);
		fclose(tf);
	}
	test_threaded_read();
	o.colors = "nope";
	T_OK(fk_flame_new(&o, &err) == NULL, "unknown palette refused");
	return T_DONE();
}
