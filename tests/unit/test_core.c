/* SPDX-License-Identifier: MIT */
/* Unit tests of core/: number parser, unbiasing, maps lines, dump reader
 * corner cases, symbolized-profile round trip, growth diff, series lines. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t.h"
#include "diff.h"
#include "hash.h"
#include "heapdump.h"
#include "hostport.h"
#include "maps.h"
#include "num.h"
#include "series.h"
#include "stackmemo.h"
#include "strtab.h"
#include "symprof.h"
#include "arena.h"

static const char MAPS[] =
	"MAPPED_LIBRARIES:\n"
	"55d0c0a00000-55d0c0a02000 r-xp 00001000 08:01 1234 /opt/fk/bin/tiny\n"
	"7f0000100000-7f0000200000 r-xp 00002000 08:01 99 /opt/my lib/libx.so (deleted)\n"
	"7ffd00100000-7ffd00102000 r-xp 00000000 00:00 0                  [vdso]\n";

static struct fk_profile *parse(const char *text, struct fk_err *err)
{
	struct fk_profile *p = fk_profile_new("test");
	char *copy = strdup(text);

	fk_err_init(err, "test");
	fk_profile_own(p, copy);
	if (fk_profile_parse(p, copy, strlen(copy), err) < 0) {
		fk_profile_free(p);
		return NULL;
	}
	return p;
}

static void test_numbers(void)
{
	uint64_t u;
	int64_t i;

	T_OK(fk_parse_u64("18446744073709551615", 20, &u) == 0 && u == UINT64_MAX, "u64 max");
	T_OK(fk_parse_u64("18446744073709551616", 20, &u) < 0, "u64 max + 1 rejected");
	T_OK(fk_parse_u64("", 0, &u) < 0, "empty rejected");
	T_OK(fk_parse_u64("+1", 2, &u) < 0, "plus sign rejected");
	T_OK(fk_parse_u64(" 1", 2, &u) < 0, "leading space rejected");
	T_OK(fk_parse_i64("-9223372036854775808", 20, &i) == 0 && i == INT64_MIN, "i64 min");
	T_OK(fk_parse_i64("9223372036854775808", 19, &i) < 0, "i64 max + 1 rejected");
	T_OK(fk_parse_i64("-", 1, &i) < 0, "lone minus rejected");
	T_OK(fk_parse_hex("0xffffffffffffffff", 18, 1, &u) == 0 && u == UINT64_MAX, "hex max");
	T_OK(fk_parse_hex("0x00000000000000000001", 22, 1, &u) == 0 && u == 1, "hex leading zeros");
	T_OK(fk_parse_hex("0x10000000000000000", 19, 1, &u) < 0, "hex overflow rejected");
	T_OK(fk_parse_hex("ff", 2, 1, &u) < 0, "missing prefix rejected when required");
	T_OK(fk_parse_hex("0x", 2, 1, &u) < 0, "bare prefix rejected");
}

static void test_doubles(void)
{
	static const char *bad[] = { "", ".", "-1", "+1", " 1", "1 ", "1e", "1e+", "e3",
				     "0x10", "inf", "nan", "1..2", "1,5", "1e400" };
	double d;
	size_t z;
	uint64_t u;
	int pct;

	T_OK(fk_parse_double("12", 2, &d) == 0 && d == 12, "double integer");
	T_OK(fk_parse_double("0.5", 3, &d) == 0 && d == 0.5, "double fraction");
	T_OK(fk_parse_double(".25", 3, &d) == 0 && d == 0.25, "double leading dot");
	T_OK(fk_parse_double("2.", 2, &d) == 0 && d == 2, "double trailing dot");
	T_OK(fk_parse_double("1e3", 3, &d) == 0 && d == 1000, "double exponent");
	T_OK(fk_parse_double("25e-2", 5, &d) == 0 && d == 0.25, "double negative exponent");
	T_OK(fk_parse_double("0.1x", 3, &d) == 0 && d == 0.1, "double reads n bytes only");
	for (size_t k = 0; k < sizeof bad / sizeof *bad; k++)
		T_OK(fk_parse_double(bad[k], strlen(bad[k]), &d) < 0, "double '%s' rejected", bad[k]);
	T_OK(fk_parse_minwidth("0.5%", 4, &d, &pct) == 0 && d == 0.5 && pct == 1, "minwidth N%%");
	T_OK(fk_parse_minwidth("3", 1, &d, &pct) == 0 && d == 3 && pct == 0, "minwidth PX");
	T_OK(fk_parse_minwidth("%", 1, &d, &pct) < 0, "minwidth lone percent rejected");
	T_OK(fk_parse_minwidth("1%%", 3, &d, &pct) < 0, "minwidth two percents rejected");
	T_OK(fk_parse_size("4294967295", 10, UINT32_MAX, &z) == 0 && z == UINT32_MAX, "size max");
	T_OK(fk_parse_size("4294967296", 10, UINT32_MAX, &z) < 0, "size above max rejected");
	T_OK(fk_parse_bytes("3KiB", 4, UINT64_MAX, &u) == 0 && u == 3072, "bytes KiB");
	T_OK(fk_parse_bytes("1GiB", 4, 1 << 30, &u) == 0 && u == 1 << 30, "bytes at max");
	T_OK(fk_parse_bytes("1GiB", 4, (1 << 30) - 1, &u) < 0, "bytes above max rejected");
	T_OK(fk_parse_bytes("17179869184GiB", 14, UINT64_MAX, &u) < 0, "bytes past 64 bits rejected");
	for (const char *const *b = (const char *const[]){ "", "KiB", "1KB", "1kib", "1 KiB", "-1",
			"1.5MiB", "1MiBs", NULL }; *b; b++)
		T_OK(fk_parse_bytes(*b, strlen(*b), UINT64_MAX, &u) < 0, "bytes '%s' rejected", *b);
}

static void test_hostport(void)
{
	struct fk_hostport hp;
	unsigned port = 0;

	T_OK(fk_hostport_split("127.0.0.1:6060", 14, 1, &hp) == FK_HOSTPORT_OK && hp.hostlen == 9 &&
	     memcmp(hp.host, "127.0.0.1", 9) == 0 && fk_hostport_port(&hp, &port) == 0 && port == 6060,
	     "HOST:PORT");
	T_OK(fk_hostport_split("[::1]:80", 8, 1, &hp) == FK_HOSTPORT_OK && hp.bracketed &&
	     hp.hostlen == 3 && memcmp(hp.host, "::1", 3) == 0 && hp.portlen == 2, "[V6]:PORT");
	T_OK(fk_hostport_split("[::1]", 5, 1, &hp) == FK_HOSTPORT_OK && !hp.port, "[V6] without port");
	T_OK(fk_hostport_split("[::1", 4, 1, &hp) == FK_HOSTPORT_NOCLOSE, "[ without ]");
	T_OK(fk_hostport_split("[::1]x", 6, 1, &hp) == FK_HOSTPORT_JUNK, "junk after ]");
	T_OK(fk_hostport_split("a:1:2", 5, 1, &hp) == FK_HOSTPORT_COLONS && hp.hostlen == 1 &&
	     hp.portlen == 3, "two colons: host before the first");
	T_OK(fk_hostport_split("unix:/s", 7, 1, &hp) == FK_HOSTPORT_OK && hp.path && hp.pathlen == 2,
	     "unix:PATH");
	T_OK(fk_hostport_split("unix:80", 7, 0, &hp) == FK_HOSTPORT_OK && !hp.path && hp.hostlen == 4 &&
	     fk_hostport_port(&hp, &port) == 0 && port == 80, "unix is a host without unix_ok");
	T_OK(fk_hostport_split("a:65536", 7, 1, &hp) == FK_HOSTPORT_OK &&
	     fk_hostport_port(&hp, &port) < 0, "port above 65535 rejected");
	T_OK(fk_hostport_split("a:", 2, 1, &hp) == FK_HOSTPORT_OK && fk_hostport_port(&hp, &port) < 0,
	     "empty port rejected");
	T_OK(fk_hostport_split("a", 1, 1, &hp) == FK_HOSTPORT_OK && fk_hostport_port(&hp, &port) < 0,
	     "no port");
}

static void test_unbias(void)
{
	struct fk_profile *p = fk_profile_new("u");
	struct fk_counts c = { 10, 10 * 1024, 0, 0 };
	struct fk_values v;
	double f = 1.0 / (1.0 - exp(-1024.0 / 524288.0));

	p->period = 524288;
	v = fk_unbias(p, &c);
	T_OK(fabs(v.objs - 10 * f) < 1e-6 && fabs(v.bytes - 10240 * f) < 1e-3,
	     "jeprof's formula (%.3f objects)", v.objs);
	c.objs = 0;
	c.bytes = 0;
	v = fk_unbias(p, &c);
	T_OK(v.objs == 0 && v.bytes == 0, "n = 0 stays 0");
	c.objs = INT64_MAX;
	c.bytes = 1;
	v = fk_unbias(p, &c);
	T_OK(isfinite(v.objs) && isfinite(v.bytes), "tiny average stays finite");
	c.objs = 1;
	c.bytes = INT64_MAX;
	v = fk_unbias(p, &c);
	T_OK(isfinite(v.objs) && v.objs >= 1, "huge average stays finite");
	p->period = 0;
	c.objs = 3;
	c.bytes = 300;
	v = fk_unbias(p, &c);
	T_OK(v.objs == 3 && v.bytes == 300, "period 0 is exact");
	fk_profile_free(p);
}

static void test_maps(void)
{
	struct fk_profile *p = fk_profile_new("m");
	struct fk_mapping m;
	struct fk_err err;
	const char *line = "7f0000100000-7f0000200000 r-xp 00002000 08:01 99   /opt/a b/libc d.so (deleted)  ";

	fk_err_init(&err, "m");
	T_OK(fk_maps_parse_line(p, line, strlen(line), 3, &m, &err) == 0, "maps line parses");
	T_EQ_STR(m.path, "/opt/a b/libc d.so", "path with spaces, suffix removed");
	T_OK(m.deleted && m.kind == FK_MAP_FILE && m.offset == 0x2000 && m.inode == 99,
	     "deleted, offset and inode");
	T_OK(m.dev_major == 8 && m.dev_minor == 1, "device 08:01");
	T_EQ_STR(fk_maps_basename(m.path), "libc d.so", "basename");
	T_EQ_STR(fk_maps_basename(""), "[anon]", "anonymous basename");
	line = "7f0000000000-7f0000021000 rw-p 00000000 00:00 0 ";
	T_OK(fk_maps_parse_line(p, line, strlen(line), 4, &m, &err) == 0 && m.kind == FK_MAP_ANON,
	     "anonymous mapping");
	fk_profile_free(p);
}

static void test_reader(void)
{
	struct fk_err err;
	struct fk_profile *p;
	char buf[4096];
	const struct fk_mapping *m;

	snprintf(buf, sizeof buf,
		 "heap_v2/524288\n  t*: 1: 1 [0: 0]\n  t7: 1: 1 [0: 0] my thread\n"
		 "@ 0x55d0c0a01234 0x7f0000100010\n  t*: 1: 100 [0: 0]\n  t7: 1: 100 [0: 0]\n"
		 "@\n  t*: 5: 500 [0: 0]\n  t7: 5: 500 [0: 0]\n"
		 "@ 0x55d0c0a01240\n  t*: 2: 200 [0: 0]\n  t9: 2: 200 [0: 0]\n\n%s", MAPS);
	p = parse(buf, &err);
	T_OK(p != NULL, "dump parses (%s)", err.msg);
	if (!p)
		return;
	T_EQ_INT(p->nstacks, 3, "three stacks");
	T_EQ_INT(p->stacks[1].depth, 0, "bare @ is an empty stack of its own");
	T_EQ_INT(p->stacks[1].c.objs, 5, "bare @ keeps its own counts");
	T_EQ_INT(p->stacks[0].c.objs, 1, "previous stack unchanged by the bare @");
	T_EQ_INT(p->nthreads, 2, "two threads");
	T_EQ_STR(p->threads[0].name, "my thread", "thread name with a space");
	T_OK(p->threads[1].name == NULL && p->threads[1].id == 9, "unnamed thread 9");
	m = fk_profile_map_of(p, 0x7f0000100010);
	T_OK(m && m->deleted && strcmp(m->path, "/opt/my lib/libx.so") == 0, "map_of finds the deleted library");
	T_OK(fk_profile_map_of(p, 0x7f0000200000) == NULL, "limit is exclusive");
	T_OK(fk_profile_map_of(p, 0x1000) == NULL, "below every mapping");
	T_EQ_INT(fk_stack_key(&p->stacks[0], 1), 0x7f000010000f, "caller key is address - 1");
	fk_profile_free(p);
}

/* The address reader's 8-characters-at-a-time path and the general one
 * agree at every length, with leading zeros, capitals and blanks. */
static void test_reader_addrs(void)
{
	static const struct {
		const char *tok;
		uint64_t v;
	} ok[] = {
		{ "0x1", 0x1 }, { "0x1234567", 0x1234567 }, { "0x12345678", 0x12345678 },
		{ "0x123456789", 0x123456789 }, { "0xabcdef0123456789", 0xabcdef0123456789 },
		{ "0x7ffff7ca2630", 0x7ffff7ca2630 }, { "0x0000000000401234", 0x401234 },
		{ "0x00000000000000000042", 0x42 }, { "0xABCDEF12", 0xabcdef12 },
		{ "0x7fFFf7ca2630", 0x7ffff7ca2630 }, { "0X55d0c0a01234", 0x55d0c0a01234 },
		{ "0", 0 }, { "0x0", 0 },
	};
	static const char *const bad[] = {
		"0x", "0x12g4", "0x11111111111111111", "0x1234567890abcdefa", "0x12345678:",
		"0x12345678\xc3\xa9", "12345678",
	};
	struct fk_err err;
	struct fk_profile *p;
	char buf[512];

	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		/* Alone at the end of the line and between others, tab-separated. */
		snprintf(buf, sizeof buf, "heap_v2/1\n  t*: 1: 1 [0: 0]\n@ %s\t%s 0x5555555555554444\n"
			 "  t*: 1: 1 [0: 0]\n@ 0x5555555555554444 %s\n  t*: 1: 1 [0: 0]\n\n"
			 "MAPPED_LIBRARIES:\n", ok[i].tok, ok[i].tok, ok[i].tok);
		p = parse(buf, &err);
		T_OK(p && p->nstacks == 2 && p->stacks[0].depth == 3 && p->stacks[0].addrs[0] == ok[i].v &&
		     p->stacks[0].addrs[1] == ok[i].v && p->stacks[0].addrs[2] == 0x5555555555554444 &&
		     p->stacks[1].addrs[1] == ok[i].v, "address '%s' read as 0x%llx", ok[i].tok,
		     (unsigned long long)ok[i].v);
		fk_profile_free(p);
	}
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		snprintf(buf, sizeof buf, "heap_v2/1\n  t*: 1: 1 [0: 0]\n@ %s 0x5555555555554444 "
			 "0x5555555555554444\n  t*: 1: 1 [0: 0]\n\nMAPPED_LIBRARIES:\n", bad[i]);
		p = parse(buf, &err);
		T_OK(!p && strstr(err.msg, "bad address"), "'%s' refused (%s)", bad[i], err.msg);
		fk_profile_free(p);
	}
}

/* Counts lines as jemalloc writes them (the reader's fast path) and in
 * every other form the general path reads or refuses. */
static void test_reader_counts(void)
{
	static const struct {
		const char *line;
		long long objs, bytes, aobjs, abytes;
	} ok[] = {
		{ "t*: 3: 300 [4: 400]", 3, 300, 4, 400 },
		{ "t*: 007: 0300 [0: 0]", 7, 300, 0, 0 },
		{ "t*:   3:   300 [  4:   400]", 3, 300, 4, 400 },
		{ "t*: 3:300 [4:400]", 3, 300, 4, 400 },
		{ "t*: 1234567890123: 1234567890123 [0: 0]", 1234567890123LL, 1234567890123LL, 0, 0 },
	};
	static const char *const bad[] = {
		"t*: 9223372036854775808: 1 [0: 0]", "t*: 3: 300 [0: 0] ", "t*: 3: 300 [0: 0] x",
		"t*: 3: 300 [0: 0", "t*: -3: -300 [0: 0]", "t*: 3: 0 [0: 0]",
	};
	struct fk_err err;
	struct fk_profile *p;
	char buf[512];

	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		snprintf(buf, sizeof buf, "heap_v2/1\n  t*: 1: 1 [0: 0]\n@ 0x1234\n  %s\n\n"
			 "MAPPED_LIBRARIES:\n", ok[i].line);
		p = parse(buf, &err);
		T_OK(p && p->nstacks == 1 && p->stacks[0].c.objs == ok[i].objs &&
		     p->stacks[0].c.bytes == ok[i].bytes && p->stacks[0].c.acc_objs == ok[i].aobjs &&
		     p->stacks[0].c.acc_bytes == ok[i].abytes, "counts '%s' read (%s)", ok[i].line,
		     p ? "" : err.msg);
		fk_profile_free(p);
	}
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		snprintf(buf, sizeof buf, "heap_v2/524288\n  t*: 1: 1 [0: 0]\n@ 0x1234\n  %s\n\n"
			 "MAPPED_LIBRARIES:\n", bad[i]);
		p = parse(buf, &err);
		T_OK(!p, "counts '%s' refused (%s)", bad[i], err.msg);
		fk_profile_free(p);
	}
}

static void test_symprof_roundtrip(void)
{
	struct fk_err err;
	struct fk_profile *p, *q;
	struct fk_frame *fr;
	char buf[4096], *out = NULL;
	size_t outlen = 0;
	FILE *f;

	snprintf(buf, sizeof buf,
		 "heap_v2/524288\n  t*: 1: 100 [0: 0]\n"
		 "@ 0x55d0c0a01234 0x55d0c0a01300\n  t*: 1: 100 [0: 0]\n\n%s", MAPS);
	p = parse(buf, &err);
	T_OK(p != NULL, "base dump parses");
	if (!p)
		return;
	fr = fk_arena_alloc(p->arena, 2 * sizeof *fr);
	fr[0].name = fk_strtab_intern(p->strs, "inner", 5);
	fr[0].sysname = fk_strtab_intern(p->strs, "_Z5innerv", 9);
	fr[0].file = fk_strtab_intern(p->strs, "/src/a b.c", 10);
	fr[0].line = 42;
	fr[1].name = fr[1].sysname = fk_strtab_intern(p->strs, "operator--", 10);
	fr[1].file = NULL;
	fr[1].line = 0;
	p->syms = calloc(2, sizeof *p->syms);
	p->syms[0].key = 0x55d0c0a01234;
	p->syms[0].nframes = 2;
	p->syms[0].frames = fr;
	p->syms[1].key = 0x55d0c0a012ff;
	p->syms[1].nframes = 1;
	p->syms[1].frames = fr + 1;
	p->syms[1].placeholder = 1;
	p->nsyms = 2;
	f = open_memstream(&out, &outlen);
	T_OK(fk_symprof_write(p, f, &err) == 0, "symbolized profile written");
	fclose(f);
	T_OK(strstr(out, "0x000055d0c0a01234 operator- ---inner\n") != NULL,
	     "jeprof line outer first, '--' inside a name broken up");
	q = parse(out, &err);
	T_OK(q != NULL, "symbolized profile reads back (%s)", err.msg);
	if (q) {
		const struct fk_sym *s = fk_profile_sym(q, 0x55d0c0a01234);

		T_OK(s && s->nframes == 2, "inline chain kept");
		if (s && s->nframes == 2) {
			T_EQ_STR(s->frames[0].name, "inner", "innermost first");
			T_EQ_STR(s->frames[0].sysname, "_Z5innerv", "linkage name");
			T_EQ_STR(s->frames[0].file, "/src/a b.c", "file with a space");
			T_EQ_INT(s->frames[0].line, 42, "line");
			T_EQ_STR(s->frames[1].name, "operator--", "name with '--' intact");
		}
		s = fk_profile_sym(q, 0x55d0c0a012ff);
		T_OK(s && s->placeholder, "placeholder flag kept");
		T_EQ_INT(q->nstacks, 1, "stacks after the symbol section");
		fk_profile_free(q);
	}
	free(out);
	fk_profile_free(p);
}

/* A jeprof symbol line with an empty name between "--" separators is an
 * error, as an empty name in a "=sym" line is: the writer could not write
 * it back (found by fuzz_symprof). */
static void test_symprof_empty_name(void)
{
	static const char *const lines[] = {
		"0x55d0c0a01234 main----inner\n", "0x55d0c0a01234 --main\n",
		"0x55d0c0a01234 main--\n",
	};
	struct fk_err err;
	char buf[4096];

	for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
		struct fk_profile *p;

		snprintf(buf, sizeof buf, "--- symbol\nbinary=/x\n%s---\n--- heap\n"
			 "heap_v2/524288\n  t*: 1: 100 [0: 0]\n@ 0x55d0c0a01234\n"
			 "  t*: 1: 100 [0: 0]\n\n%s", lines[i], MAPS);
		p = parse(buf, &err);
		T_OK(p == NULL && strstr(err.msg, "empty function name") != NULL,
		     "empty name in a jeprof line rejected (%.20s): %s", lines[i], err.msg);
		fk_profile_free(p);
	}
	snprintf(buf, sizeof buf, "--- symbol\nbinary=/x\n0x55d0c0a01234 a---b\n---\n"
		 "--- heap\nheap_v2/524288\n  t*: 1: 100 [0: 0]\n@ 0x55d0c0a01234\n"
		 "  t*: 1: 100 [0: 0]\n\n%s", MAPS);
	struct fk_profile *p = parse(buf, &err);
	const struct fk_sym *s = p ? fk_profile_sym(p, 0x55d0c0a01234) : NULL;
	T_OK(s && s->nframes == 2 && strcmp(s->frames[0].name, "-b") == 0,
	     "an odd run of dashes still splits once ('a', '-b')");
	fk_profile_free(p);
}

static void test_diff(void)
{
	struct fk_err err;
	struct fk_profile *a, *b, *d;
	char ba[2048], bb[2048];
	struct fk_values t;

	snprintf(ba, sizeof ba, "heap_v2/4096\n  t*: 1: 64 [0: 0]\n"
		 "@ 0x55d0c0a01234\n  t*: 1: 64 [0: 0]\n\n%s", MAPS);
	snprintf(bb, sizeof bb, "heap_v2/4096\n  t*: 1: 64 [0: 0]\n"
		 "@ 0x55d0c0a01234\n  t*: 4: 256 [0: 0]\n@ 0x55d0c0a01240\n  t*: 2: 20 [0: 0]\n\n%s", MAPS);
	a = parse(ba, &err);
	b = parse(bb, &err);
	d = fk_profile_new("d");
	T_OK(a && b && fk_profile_diff(d, a, b, FK_DIFF_GROWTH, &err) == 0, "diff computed");
	if (a && b) {
		struct fk_counts c1 = { 4, 256, 0, 0 }, c0 = { 1, 64, 0, 0 }, c2 = { 2, 20, 0, 0 };
		double want = fk_unbias(b, &c1).bytes - fk_unbias(a, &c0).bytes +
			      fk_unbias(b, &c2).bytes;

		t = fk_profile_totals(d);
		T_OK(fabs(t.bytes - want) / want < 1e-4, "growth unbiases back to the difference (%.1f vs %.1f)",
		     t.bytes, want);
		T_EQ_INT(d->period, 1, "growth profile has period 1");
	}
	fk_profile_free(a);
	fk_profile_free(b);
	fk_profile_free(d);
}

static int series(const char *line, struct fk_snapmeta *m)
{
	struct fk_err err;

	fk_err_init(&err, "t");
	return fk_series_parse(line, strlen(line), 1, m, &err);
}

static void test_series(void)
{
	static const char full[] = "# series: 12 time=3.250 allocated=1 active=2 resident=3 "
				   "mapped=4 retained=5 metadata=6 rss=7\n";
	struct fk_snapmeta m;
	char buf[FK_SERIES_LINE_MAX];
	size_t n;

	T_OK(series("# series: 12 time=3.25 rss=7 allocated=1 active=2 resident=3 mapped=4 "
		    "retained=5 metadata=6", &m) == 0, "a full series line parses");
	T_EQ_STR(m.id, "12", "its id");
	T_EQ_INT(m.time_ns, 3250000000LL, "its time in ns");
	T_EQ_INT(m.stat[FK_SER_RSS], 7, "its rss");
	n = fk_series_format(buf, sizeof buf, &m);
	T_OK(n == strlen(full) && memcmp(buf, full, n) == 0, "it writes back in key order: %.*s", (int)n, buf);
	T_OK(series("# series: a.b:c-d_1\r", &m) == 0 && m.time_ns == -1 && m.stat[FK_SER_ALLOCATED] == -1,
	     "an id alone: nothing else known (CR tolerated)");
	T_OK(series("# series: 1 later_figure=12 later_time=1.5", &m) == 0, "unknown numeric figures are skipped");
	T_OK(series("# series: 1 time=0.123456789", &m) == 0 && m.time_ns == 123456789, "9 decimals of time");
	T_OK(series("# series: 1 time=0.1234567891", &m) < 0, "10 decimals refused");
	T_OK(series("# series: 1 time=1.", &m) < 0, "a time ending in a dot refused");
	T_OK(series("# series: 1 rss=-1", &m) < 0, "a negative figure refused");
	T_OK(series("# series: 1 Rss=1", &m) < 0, "an unknown key that is not lowercase refused");
	T_OK(series("# series: 1 rss", &m) < 0, "a field without '=' refused");
	T_OK(series("# series: 1 x=abc", &m) < 0, "an unknown key without a number refused");
	T_OK(series("# series:", &m) < 0, "no id refused");
	T_OK(series("# series: a\"b", &m) < 0, "a quote in an id refused");
	T_OK(series("# series: 1 time=99999999999999999999", &m) < 0, "an overflowing time refused");
	fk_series_meta_init(&m, "7");
	n = fk_series_format(buf, sizeof buf, &m);
	T_OK(n == 12 && memcmp(buf, "# series: 7\n", 12) == 0, "nothing known writes the id alone");
	T_OK(fk_series_format(buf, 8, &m) == 7 && buf[7] == 0, "a short buffer is cut, NUL-terminated");
}

/* A dump parsed through a memo (stackmemo.h): every stack the same as the
 * plain reader's, the ones met before taken back, the ones not met
 * forgotten, a failed parse forgetting nothing. */
static int same_stacks(const struct fk_profile *a, const struct fk_profile *b)
{
	if (a->nstacks != b->nstacks)
		return 0;
	for (size_t i = 0; i < a->nstacks; i++) {
		const struct fk_stack *x = &a->stacks[i], *y = &b->stacks[i];

		if (x->depth != y->depth || x->c.bytes != y->c.bytes || x->nthr != y->nthr ||
		    (x->depth && memcmp(x->addrs, y->addrs, x->depth * sizeof *x->addrs) != 0))
			return 0;
	}
	return 1;
}

static struct fk_profile *parse_memo(const char *text, struct fk_stackmemo *m,
				     struct fk_err *err)
{
	struct fk_profile *p = fk_profile_new("test");
	char *copy = strdup(text);

	fk_err_init(err, "test");
	fk_profile_own(p, copy);
	if (fk_heapdump_parse_memo(p, copy, strlen(copy), m, err) < 0) {
		fk_profile_free(p);
		return NULL;
	}
	return p;
}

static void test_stackmemo(void)
{
	static const char d1[] =
		"heap_v2/1\n  t*: 3: 3 [0: 0]\n"
		"@ 0x1100 0x1200\n  t*: 1: 1 [0: 0]\n  t1: 1: 1 [0: 0]\n"
		"@ 0x1300 0x1200\n  t*: 1: 1 [0: 0]\n"
		"@\n  t*: 1: 1 [0: 0]\n\nMAPPED_LIBRARIES:\n";
	/* The first stack again with other counts, the second gone, one new,
	 * one written with other digits for the same addresses. */
	static const char d2[] =
		"heap_v2/1\n  t*: 9: 9 [0: 0]\n"
		"@ 0x1100 0x1200\n  t*: 7: 7 [0: 0]\n"
		"@ 0x1400\n  t*: 1: 1 [0: 0]\n"
		"@ 0x0001100 0x1200\n  t*: 1: 1 [0: 0]\n\nMAPPED_LIBRARIES:\n";
	static const char bad[] =
		"heap_v2/1\n  t*: 1: 1 [0: 0]\n@ 0x1500\n  t*: 1: 1 [0: 0]\n@ 0x12g\n";
	struct fk_stackmemo *m = fk_stackmemo_new(1 << 20), *tiny = fk_stackmemo_new(1);
	struct fk_stackmemo_stats st;
	struct fk_profile *plain, *p;
	struct fk_err err;

	p = parse_memo(d1, m, &err);
	plain = parse(d1, &err);
	T_OK(p && plain && same_stacks(p, plain), "a first parse through the memo reads as the reader does");
	fk_profile_free(p);
	fk_stackmemo_stats(m, &st);
	T_EQ_INT(st.stacks, 3, "it keeps the three stacks");
	T_EQ_INT(st.hits, 0, "none met before");
	p = parse_memo(d1, m, &err);
	T_OK(p && same_stacks(p, plain), "the same dump again: the same stacks");
	fk_profile_free(p);
	fk_profile_free(plain);
	fk_stackmemo_stats(m, &st);
	T_EQ_INT(st.hits, 3, "all three taken from the memo");
	p = parse_memo(d2, m, &err);
	plain = parse(d2, &err);
	T_OK(p && plain && same_stacks(p, plain), "a changed dump reads as the reader does");
	T_OK(p && p->stacks[0].c.objs == 7 && p->stacks[2].addrs[0] == 0x1100,
	     "with its own counts, and other digits for an address read again");
	fk_profile_free(p);
	fk_profile_free(plain);
	fk_stackmemo_stats(m, &st);
	T_EQ_INT(st.hits, 4, "one more taken back (the stack kept)");
	T_EQ_INT(st.stacks, 3, "the two stacks not met are forgotten, the two new kept");
	p = parse_memo(bad, m, &err);
	T_OK(!p && strstr(err.msg, "bad address"), "a bad dump fails as it does without a memo (%s)",
	     err.msg);
	fk_stackmemo_stats(m, &st);
	T_EQ_INT(st.stacks, 4, "and forgets nothing (the new stack before the error is kept)");
	p = parse_memo(d2, m, &err);
	fk_profile_free(p);
	fk_stackmemo_stats(m, &st);
	T_EQ_INT(st.stacks, 3, "the next good parse forgets what it did not meet");
	p = parse_memo(d1, tiny, &err);
	plain = parse(d1, &err);
	T_OK(p && plain && same_stacks(p, plain), "a memo with no room reads every stack itself");
	fk_stackmemo_stats(tiny, &st);
	T_EQ_INT(st.stacks, 0, "and keeps none");
	fk_profile_free(p);
	fk_profile_free(plain);
	T_OK(fk_hash_long("0x1100 0x1200", 13) != fk_hash_long("0x1100 0x1201", 13) &&
	     fk_hash_long("abcdefghijklmnopq", 17) != fk_hash_long("abcdefghijklmnopr", 17) &&
	     fk_hash_long("", 0) != fk_hash_long("\0", 1), "the long hash sees every byte and the length");
	fk_stackmemo_free(m);
	fk_stackmemo_free(tiny);
}

int main(void)
{
	test_numbers();
	test_doubles();
	test_hostport();
	test_unbias();
	test_maps();
	test_reader();
	test_reader_addrs();
	test_reader_counts();
	test_stackmemo();
	test_symprof_roundtrip();
	test_symprof_empty_name();
	test_diff();
	test_series();
	return T_DONE();
}
