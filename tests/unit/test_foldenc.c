/* SPDX-License-Identifier: MIT */
/* Unit tests of encode/'s folded side: the line accumulator (escaping as
 * fk_folded_put_frame, merging, order), to-folded's frames and values, and
 * the promise that pprof read back gives the same lines. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "encode_int.h"
#include "folded.h"
#include "folded_enc.h"
#include "pprof_dec.h"
#include "pprof_enc.h"
#include "series_enc.h"
#include "symprof.h"
#include "t.h"
#include "input.h"
#include "num.h"

static const char sym_text[] =
	"--- symbol\n"
	"binary=/opt/t/prog\n"
	"=flamekit 0.1.0 allocator-frames=dropped\n"
	"0x0000000000001100 f_outer--f_leaf\n"
	"=sym 0x0000000000001100\tf\tf_outer\t\t/src/a.c\t10\tf_leaf\t\t/src/a.c\t3\n"
	"0x00000000000011ff main\n"
	"=sym 0x00000000000011ff\tf\tmain\t\t/src/a.c\t20\n"
	"0x0000000000001300 semi;colon\n"
	"=sym 0x0000000000001300\tf\tsemi;colon\t\t\t0\n"
	"---\n"
	"--- heap\n"
	"heap_v2/4096\n"
	"  t*: 4: 4192 [0: 0]\n"
	"  t1: 4: 4192 [0: 0] main\n"
	"@ 0x1100 0x1200\n"
	"  t*: 2: 128 [0: 0]\n"
	"  t1: 2: 128 [0: 0]\n"
	"@ 0x7f00000010 0x1200\n"
	"  t*: 1: 64 [0: 0]\n"
	"  t1: 1: 64 [0: 0]\n"
	"@ 0x1300 0x1555\n"
	"  t*: 1: 4000 [0: 0]\n"
	"  t1: 1: 4000 [0: 0]\n"
	"\n"
	"MAPPED_LIBRARIES:\n"
	"00001000-00002000 r-xp 00001000 08:01 12 /opt/t/prog\n"
	"7f00000000-7f00001000 rwxp 00000000 00:00 0 \n";

static char *folded_of(const struct fk_profile *p, const struct fk_folded_opts *o)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	struct fk_err err;

	fk_err_init(&err, "t");
	if (fk_folded_write(p, o, f, &err) < 0)
		printf("# to-folded failed: %s\n", err.msg);
	fclose(f);
	return buf;
}

static void test_acc(void)
{
	struct fk_foldacc *acc = fk_foldacc_new();
	struct fk_err err;
	char *buf = NULL, *ref = NULL;
	size_t n = 0, rn = 0;
	FILE *f;
	static const char weird[] = "a;b\nc\td\x7f" "e";

	fk_err_init(&err, "t");
	fk_foldacc_begin(acc);
	fk_foldacc_frame(acc, "main", &err);
	fk_foldacc_frame(acc, weird, &err);
	fk_foldacc_end(acc, 5, &err);
	fk_foldacc_begin(acc);
	fk_foldacc_frame(acc, "main", &err);
	fk_foldacc_frame(acc, "a:b c d e", &err);   /* escapes to the same line */
	fk_foldacc_end(acc, 2, &err);
	fk_foldacc_begin(acc);
	fk_foldacc_frame(acc, "alpha", &err);
	fk_foldacc_end(acc, 3, &err);
	fk_foldacc_begin(acc);
	fk_foldacc_frame(acc, "zero", &err);
	fk_foldacc_end(acc, 4, &err);
	fk_foldacc_begin(acc);
	fk_foldacc_frame(acc, "zero", &err);
	fk_foldacc_end(acc, -4, &err);
	fk_foldacc_begin(acc);
	fk_foldacc_end(acc, 1, &err);
	f = open_memstream(&buf, &n);
	T_OK(fk_foldacc_write(acc, f, &err) == 0, "accumulator writes");
	fclose(f);
	T_EQ_STR(buf, "[no stack] 1\nalpha 3\nmain;a:b c d e 7\n",
		 "escaped, merged, sorted, zero totals left out");
	free(buf);
	fk_foldacc_free(acc);

	/* The escaping is exactly core's fk_folded_put_frame. */
	acc = fk_foldacc_new();
	fk_foldacc_begin(acc);
	fk_foldacc_frame(acc, weird, &err);
	fk_foldacc_end(acc, 1, &err);
	buf = NULL;
	f = open_memstream(&buf, &n);
	fk_foldacc_write(acc, f, &err);
	fclose(f);
	f = open_memstream(&ref, &rn);
	fk_folded_put_frame(f, weird);
	fputs(" 1\n", f);
	fclose(f);
	T_EQ_STR(buf, ref, "same escaping as fk_folded_put_frame");
	free(buf);
	free(ref);
	fk_foldacc_free(acc);
}

static void test_to_folded(void)
{
	struct fk_profile *p = fk_profile_new("t");
	struct fk_folded_opts o;
	struct fk_err err;
	char *out, *back = NULL;
	size_t n = 0;
	unsigned char *pb;
	size_t pbn;
	struct fk_pprof *pp;
	FILE *f;
	struct fk_values v;
	char want[512];

	fk_err_init(&err, "t");
	if (fk_profile_parse(p, sym_text, strlen(sym_text), &err) < 0) {
		T_OK(0, "test profile parses: %s", err.msg);
		return;
	}
	memset(&o, 0, sizeof o);
	out = folded_of(p, &o);
	{
		/* Expected values: unbiased per stack; each stack has a leaf
		 * function of its own, so no rounding error is carried. */
		long long b[3], ob[3];
		int i;

		for (i = 0; i < 3; i++) {
			v = fk_unbias(p, &p->stacks[i].c);
			b[i] = llround(v.bytes);
			ob[i] = llround(v.objs);
		}
		snprintf(want, sizeof want,
			 "main;[anon]+0x7f00000010 %lld\n"
			 "main;f_outer;f_leaf %lld\n"
			 "prog+0x1555;semi:colon %lld\n", b[1], b[0], b[2]);
		T_EQ_STR(out, want, "inline frames caller first, unresolved addresses named, ';' escaped");
		free(out);
		o.value = FK_FOLDED_OBJECTS;
		out = folded_of(p, &o);
		snprintf(want, sizeof want,
			 "main;[anon]+0x7f00000010 %lld\n"
			 "main;f_outer;f_leaf %lld\n"
			 "prog+0x1555;semi:colon %lld\n", ob[1], ob[0], ob[2]);
		T_EQ_STR(out, want, "objects unbiased");
		T_OK(ob[0] == 129 && b[0] == 8256, "2 objects of 64 bytes at period 4096 are 129 objects, 8256 bytes");
		free(out);
	}
	o.value = FK_FOLDED_BYTES;
	o.alloc = 1;
	T_OK(fk_folded_write(p, &o, stdout, &err) < 0 && err.code == FK_EUNSUPP,
	     "--alloc without accumulated counts refused (%s)", err.msg);
	o.alloc = 0;
	o.threads = 1;
	out = folded_of(p, &o);
	T_OK(out && strncmp(out, "[thread 1 main];", 16) == 0, "thread root frame: %s", out);
	free(out);

	/* to-pprof | from-pprof equals to-folded. */
	o.threads = 0;
	out = folded_of(p, &o);
	T_OK(fk_pprof_encode(p, NULL, &pb, &pbn, &err) == 0 &&
	     fk_pprof_read(pb, pbn, &pp, &err) == 0, "pprof round trip (%s)", err.msg);
	f = open_memstream(&back, &n);
	fk_pprof_folded_write(pp, (size_t)fk_pprof_pick_type(pp, NULL, &err), f, &err);
	fclose(f);
	T_EQ_STR(back, out, "from-pprof of to-pprof equals to-folded");
	free(back);
	free(out);
	free(pb);
	fk_pprof_free(pp);
	fk_profile_free(p);
}

/* Odd names: a leaf ending in blanks (a reader of the line drops them),
 * a caller of blanks only, a control byte, an inline chain, a stack with
 * no frame, two threads. */
static const char odd_text[] =
	"--- symbol\n"
	"binary=/opt/t/prog\n"
	"=flamekit 0.1.0 allocator-frames=dropped\n"
	"0x0000000000001100 tail\n"
	"=sym 0x0000000000001100\tf\ttail sp  \t\t\t0\n"
	"0x00000000000011ff blank\n"
	"=sym 0x00000000000011ff\tf\t   \t\t\t0\n"
	"0x0000000000001300 ctl\n"
	"=sym 0x0000000000001300\tf\tc\001l\t\t\t0\tout;er\t\t\t0\n"
	"---\n"
	"--- heap\n"
	"heap_v2/1\n"
	"  t*: 9: 900 [0: 0]\n"
	"  t1: 4: 400 [0: 0] main\n"
	"  t2: 5: 500 [0: 0]\n"
	"@ 0x1100 0x1200\n"
	"  t*: 2: 200 [0: 0]\n"
	"  t1: 2: 200 [0: 0]\n"
	"@ 0x1300 0x1200\n"
	"  t*: 3: 300 [0: 0]\n"
	"  t1: 1: 100 [0: 0]\n"
	"  t2: 2: 200 [0: 0]\n"
	"@ 0x1300 0x1200\n"
	"  t*: 1: 100 [0: 0]\n"
	"  t2: 1: 100 [0: 0]\n"
	"@\n"
	"  t*: 3: 300 [0: 0]\n"
	"  t1: 1: 100 [0: 0]\n"
	"  t2: 2: 200 [0: 0]\n"
	"\n"
	"MAPPED_LIBRARIES:\n"
	"00001000-00002000 r-xp 00001000 08:01 12 /opt/t/prog\n";

/* fk_folded_each_stack's stacks, each joined by ';', into acc (its
 * columns' values when it has columns). */
static int join_stack(void *ctx, const char *const *names, const size_t *lens, size_t n,
		      const int64_t *v, struct fk_err *err)
{
	struct fk_foldacc *acc = ctx;
	char line[4096];
	size_t len = 0;

	for (size_t i = 0; i < n; i++) {
		if (i)
			line[len++] = ';';
		memcpy(line + len, names[i], lens[i]);
		len += lens[i];
	}
	fk_foldacc_begin(acc);
	if (fk_foldacc_frames(acc, line, len, err) < 0)
		return -1;
	return fk_foldacc_endv(acc, v, err);
}

/* A line of fk_folded_write's text as a reader finds it, into acc. */
static int read_line(void *ctx, const struct fk_folded_line *l)
{
	struct fk_err err;

	fk_err_init(&err, "t");
	fk_foldacc_begin(ctx);
	if (fk_foldacc_frames(ctx, l->stack, l->len, &err) < 0)
		return -1;
	return fk_foldacc_end(ctx, l->value, &err);
}

/* acc's lines, merged and sorted (freed). */
static char *acc_text(struct fk_foldacc *acc)
{
	struct fk_err err;
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	fk_err_init(&err, "t");
	fk_foldacc_write(acc, f, &err);
	fclose(f);
	fk_foldacc_free(acc);
	return buf;
}

/* The lines of multi-column text[0..) after its header into acc as
 * render-flame reads them: the last ncols blank-separated numbers, then
 * the stack without the blanks at its end. */
static void read_columns(struct fk_foldacc *acc, const char *text, size_t ncols)
{
	const char *l = strchr(text, '\n') + 1, *nl;
	struct fk_err err;
	int64_t v[8];

	fk_err_init(&err, "t");
	for (; (nl = strchr(l, '\n')); l = nl + 1) {
		const char *e = nl;

		for (size_t c = ncols; c-- > 0;) {
			const char *sp = e;

			while (sp[-1] != ' ')
				sp--;
			fk_parse_i64(sp, (size_t)(e - sp), &v[c]);
			e = sp - 1;
		}
		while (e > l && e[-1] == ' ')
			e--;
		fk_foldacc_begin(acc);
		fk_foldacc_frames(acc, l, (size_t)(e - l), &err);
		fk_foldacc_endv(acc, v, &err);
	}
}

/* fk_folded_each_stack gives the stacks a reader finds in fk_folded_write's
 * text of p with o: the same lines once merged; with o->columns a value a
 * column of fk_folded_columns(p), which the text's "# columns:" line
 * names. */
static void same_as_text(const struct fk_profile *p, const struct fk_folded_opts *o,
			 const char *what)
{
	struct fk_foldacc *direct = fk_foldacc_new(), *read = fk_foldacc_new();
	struct fk_err err;
	char *text = folded_of(p, o), *a, *b, head[160];
	size_t ncols = o && o->columns ? (p->has_accum ? 4 : 2) : 1;
	int rc;

	fk_err_init(&err, "t");
	if (ncols > 1) {
		snprintf(head, sizeof head, "# columns: %s\n", fk_folded_columns(p));
		T_OK(fk_foldacc_columns(direct, ncols) == 0 && fk_foldacc_columns(read, ncols) == 0,
		     "%s: %zu columns", what, ncols);
		T_OK(strncmp(text, head, strlen(head)) == 0, "%s: the text's columns line is %s",
		     what, head);
	}
	rc = fk_folded_each_stack(p, o, join_stack, direct, &err);
	T_OK(rc == 0, "%s: each stack given (%s)", what, rc ? err.msg : "");
	if (ncols > 1)
		read_columns(read, text, ncols);
	else
		T_OK(fk_folded_each(text, strlen(text), 0, read_line, NULL, read, &err) == 0,
		     "%s: the text reads back", what);
	a = acc_text(direct);
	b = acc_text(read);
	T_OK(b[0] && strcmp(a, b) == 0, "%s: the text's stacks and values", what);
	if (strcmp(a, b) != 0)
		printf("# given:\n%s# read:\n%s", a, b);
	free(a);
	free(b);
	free(text);
}

/* The same with accumulated counts: four columns. */
static void same_columns_accum(const struct fk_folded_opts *o)
{
	struct fk_profile *p = fk_profile_new("t");
	char *text = strdup(sym_text), *s;
	struct fk_err err;

	fk_err_init(&err, "t");
	/* Every stack (and thread) allocated 7 objects, 9 bytes in all. */
	for (s = text; (s = strstr(s, "[0: 0]")); s++)
		memcpy(s, "[7: 9]", 6);
	if (fk_profile_parse(p, text, strlen(text), &err) < 0 || !p->has_accum)
		T_OK(0, "a profile with accumulated counts parses: %s", err.msg);
	else
		same_as_text(p, o, "accumulated, every column");
	fk_profile_free(p);
	free(text);
}

static void test_each_stack(void)
{
	static const struct fk_folded_opts thr = { .threads = 1 }, objs = { .value = FK_FOLDED_OBJECTS },
		cols = { .columns = 1 };
	struct fk_profile *p = fk_profile_new("t"), *q = fk_profile_new("t");
	struct fk_err err;

	fk_err_init(&err, "t");
	if (fk_profile_parse(p, sym_text, strlen(sym_text), &err) < 0 ||
	    fk_profile_parse(q, odd_text, strlen(odd_text), &err) < 0) {
		T_OK(0, "test profiles parse: %s", err.msg);
		return;
	}
	same_as_text(p, NULL, "inline chain, ';' in a name, addresses");
	same_as_text(p, &thr, "per thread");
	same_as_text(q, NULL, "odd names");
	same_as_text(q, &thr, "odd names per thread");
	same_as_text(q, &objs, "odd names, objects");
	same_as_text(p, &cols, "every column");
	same_as_text(q, &cols, "odd names, every column");
	same_columns_accum(&cols);
	fk_profile_free(p);
	fk_profile_free(q);
}

static void test_dump_seq(void)
{
	uint64_t pid = 0, seq = 0;

	T_OK(fk_series_dump_seq("/tmp/x.y/jeprof.1234.17.i3.heap", &pid, &seq) == 0 &&
	     pid == 1234 && seq == 17, "interval dump: pid and seq");
	T_OK(fk_series_dump_seq("heap.5.0.u0.heap", &pid, &seq) == 0 && pid == 5 && seq == 0,
	     "gdump: pid and seq");
	T_OK(fk_series_dump_seq("a.b.9.42.m1.heap", &pid, &seq) == 0 && pid == 9 && seq == 42,
	     "a prefix with dots, manual dump");
	T_OK(fk_series_dump_seq("p.9.43.f.heap", &pid, &seq) == 0 && seq == 43, "final dump");
	T_OK(fk_series_dump_seq("flamekit.77.3.heap", &pid, &seq) == 0 && pid == 77 && seq == 3,
	     "the hook's dump");
	T_OK(fk_series_dump_seq("heap.prof", &pid, &seq) < 0, "no .heap: refused");
	T_OK(fk_series_dump_seq("x.heap", &pid, &seq) < 0, "no numbers: refused");
	T_OK(fk_series_dump_seq("p.9.x.i1.heap", &pid, &seq) < 0, "a seq that is not a number: refused");
	T_OK(fk_series_dump_seq("p.9.1.q1.heap", &pid, &seq) < 0, "an unknown kind: refused");
}

static void test_series_order(void)
{
	const char *three[] = { "p.9.10.i2.heap", "p.9.2.i1.heap", "p.9.2.i0.heap" };
	const char *mixed[] = { "p.9.1.i0.heap", "q.8.2.i0.heap" };
	const char *plain[] = { "b.prof", "a.prof" };
	struct fk_series_dump d[3];
	struct fk_err err;

	fk_err_init(&err, NULL);
	T_OK(fk_series_order(three, 3, 0, d, &err) == 0 && d[0].arg == 1 && d[1].arg == 2 &&
	     d[2].arg == 0 && d[2].seq == 10, "by number, equal numbers as given");
	T_OK(fk_series_order(three, 3, 1, d, &err) == 0 && d[0].arg == 0 && d[0].seq == 0 &&
	     d[2].seq == 2, "--keep-order: as given, numbered by position");
	T_OK(fk_series_order(mixed, 2, 1, d, &err) < 0 && strcmp(err.path, "q.8.2.i0.heap") == 0 &&
	     strstr(err.msg, "process 8, not 9") != NULL, "two processes refused, even kept");
	T_OK(fk_series_order(plain, 2, 0, d, &err) < 0 && strcmp(err.path, "b.prof") == 0,
	     "a name without a number refused");
	T_OK(fk_series_order(plain, 2, 1, d, &err) == 0 && d[1].pid == 0, "... unless kept");
}

static void test_series_enc(void)
{
	static const char a[] = "main;cache 10\nmain;spike 5\n", b[] = "main;cache 30\nmain;new 1\n";
	static const char want[] = "# columns: 3/bytes 7/bytes\n# series: 3 time=1.500\n# series: 7 rss=99\n"
				   "main;cache 10 30\nmain;new 0 1\nmain;spike 5 0\n";
	struct fk_snapmeta m3, m7;
	struct fk_series_enc *s;
	struct fk_err err;
	char *text = NULL;
	size_t len = 0;
	FILE *ms;

	fk_err_init(&err, "t");
	fk_series_meta_init(&m3, "3");
	m3.time_ns = 1500000000;
	fk_series_meta_init(&m7, "7");
	m7.stat[FK_SER_RSS] = 99;
	s = fk_series_enc_new(2, &err);
	T_OK(s != NULL, "a series of two");
	if (!s)
		return;
	T_OK(fk_series_enc_add_folded(s, 1, b, strlen(b), &m7, &err) == 0, "the second column first");
	T_OK(fk_series_enc_add_folded(s, 1, b, strlen(b), &m7, &err) < 0, "a column added twice is refused");
	ms = open_memstream(&text, &len);
	fk_err_init(&err, "t");
	T_OK(fk_series_enc_write(s, ms, &err) < 0, "writing with a column missing is refused");
	T_OK(fk_series_enc_add_folded(s, 0, a, strlen(a), &m3, &err) == 0, "then the first");
	fk_err_init(&err, "t");
	T_OK(fk_series_enc_write(s, ms, &err) == 0, "the series is written");
	fclose(ms);
	T_EQ_STR(text, want, "one line a stack, a value a snapshot, header lines first");
	free(text);
	fk_series_enc_free(s);
	T_OK(fk_series_enc_new(0, &err) == NULL && fk_series_enc_new(513, &err) == NULL,
	     "0 or 513 columns refused");
	s = fk_series_enc_new(1, &err);
	fk_err_init(&err, "t");
	T_OK(s && fk_series_enc_add_folded(s, 0, "main 1\nbad\n", 11, &m3, &err) < 0 && err.line == 2,
	     "a bad folded line names its line (%s)", err.msg);
	fk_series_enc_free(s);
}

/* Snapshot k of the series test: every stack's counts times k + 1, the
 * third stack absent from snapshot 1, and the period varying. */
static void scale_counts(struct fk_profile *p, const struct fk_counts *orig, uint32_t k)
{
	for (size_t i = 0; i < p->nstacks; i++) {
		p->stacks[i].c = orig[i];
		p->stacks[i].c.objs *= k + 1;
		p->stacks[i].c.bytes *= k + 1;
		if (k == 1 && i == 2)
			p->stacks[i].c.objs = p->stacks[i].c.bytes = 0;
	}
	p->period = k == 2 ? 512 : 4096;
}

struct all_test {
	const struct fk_counts *orig;
};

static void all_set(void *ctx, uint32_t k, struct fk_profile *p, struct fk_snapmeta *m)
{
	const struct all_test *t = ctx;
	char id[8];

	scale_counts(p, t->orig, k);
	snprintf(id, sizeof id, "s%u", k);
	fk_series_meta_init(m, id);
}

static char *series_text(struct fk_series_enc *s)
{
	char *text = NULL;
	size_t len = 0;
	FILE *ms = open_memstream(&text, &len);
	struct fk_err err;

	fk_err_init(&err, "t");
	if (fk_series_enc_write(s, ms, &err) < 0)
		printf("# series write failed: %s\n", err.msg);
	fclose(ms);
	return text;
}

/* fk_series_enc_add_all gives what adding each snapshot's own profile
 * gives: the same names, values and rounding. */
static void test_series_all(void)
{
	struct fk_profile *p = fk_profile_new("t");
	struct fk_counts orig[8];
	struct fk_series_enc *one, *all;
	struct fk_err err;
	struct all_test t = { orig };

	fk_err_init(&err, "t");
	if (!p || fk_profile_parse(p, sym_text, strlen(sym_text), &err) < 0 || p->nstacks > 8) {
		T_OK(0, "the series test profile parses (%s)", err.msg);
		return;
	}
	for (size_t i = 0; i < p->nstacks; i++)
		orig[i] = p->stacks[i].c;
	one = fk_series_enc_new(3, &err);
	all = fk_series_enc_new(3, &err);
	for (uint32_t k = 0; one && k < 3; k++) {
		struct fk_snapmeta m;

		all_set(&t, k, p, &m);
		T_OK(fk_series_enc_add(one, k, p, &m, &err) == 0, "snapshot %u on its own", k);
	}
	T_OK(all && fk_series_enc_add_all(all, p, all_set, &t, &err) == 0, "all at once (%s)", err.msg);
	char *a = one ? series_text(one) : NULL, *b = all ? series_text(all) : NULL;
	T_OK(a && b && strcmp(a, b) == 0 && strstr(a, "main;f_outer;f_leaf 8256 16512 3268"),
	     "all at once equals one by one:\n%s---\n%s", a ? a : "", b ? b : "");
	free(a);
	free(b);
	fk_series_enc_free(one);
	fk_series_enc_free(all);
	fk_profile_free(p);
}

int main(void)
{
	test_series_all();
	test_acc();
	test_to_folded();
	test_each_stack();
	test_dump_seq();
	test_series_order();
	test_series_enc();
	return T_DONE();
}
