/* SPDX-License-Identifier: MIT */
/* Unit tests of symbolize/: name normalisation, allocator rules, and the
 * whole library against this test program itself (its own DWARF, libc,
 * an anonymous mapping, a module that cannot be read), with a dump built
 * from /proc/self/maps. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "t.h"
#include "grow.h"
#include "symbolize.h"
#include "symbolize_int.h"
#include "symprof.h"

static void test_names(void)
{
	const char *v = "memcpy@@GLIBC_2.14";
	T_EQ_INT(fk_symname_syslen(v, strlen(v)), 6, "version suffix cut");
	v = "foo.part.0.isra.0";
	T_EQ_INT(fk_symname_baselen(v, strlen(v)), 3, "clone suffixes cut");
	v = "bar.cold";
	T_EQ_INT(fk_symname_baselen(v, strlen(v)), 3, ".cold cut");
	v = "baz.localalias@GLIBC_2.2.5";
	T_EQ_INT(fk_symname_baselen(v, strlen(v)), 3, ".localalias and version cut");
	v = "a.b.c";
	T_EQ_INT(fk_symname_baselen(v, strlen(v)), 5, "other dots kept");
	v = ".annobin_init";
	T_EQ_INT(fk_symname_baselen(v, strlen(v)), strlen(v), "leading dot kept");
	char *d = fk_symname_demangle("_ZN2ns3Foo3barEi", 16);
	T_EQ_STR(d, "ns::Foo::bar(int)", "C++ name demangled");
	free(d);
	d = fk_symname_demangle("_Znwm", 5);
	T_EQ_STR(d, "operator new(unsigned long)", "operator new demangled");
	free(d);
	T_OK(fk_symname_demangle("main", 4) == NULL, "C name not demangled");
	T_OK(fk_symname_demangle("_Zjunk", 6) == NULL, "bad mangling gives NULL");
}

/* Appends n's base-62 back-reference form ("_" for 0, else n-1 then "_"),
 * as Rust's v0 mangling writes positions. */
static size_t put_b62(char *out, unsigned n)
{
	static const char digits[] =
		"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
	char rev[16];
	size_t k = 0, len = 0;

	if (n-- > 0)
		do {
			rev[k++] = digits[n % 62];
			n /= 62;
		} while (n);
	while (k)
		out[len++] = rev[--k];
	out[len++] = '_';
	return len;
}

/* A v0 Rust name a::<T0, T1, ...> whose T0 is ((), ()) and each further
 * tuple is two back-references to the one before: its output doubles with
 * each level. */
static char *doubling_name(int levels)
{
	char *s = malloc(32 + (size_t)levels * 16);
	size_t len = 0, prev;

	len += (size_t)sprintf(s, "_RIC1a");
	prev = len - 2; /* positions count from after "_R" */
	len += (size_t)sprintf(s + len, "TuuE");
	for (int i = 0; i < levels; i++) {
		size_t here = len - 2;
		s[len++] = 'T';
		for (int k = 0; k < 2; k++) {
			s[len++] = 'B';
			len += put_b62(s + len, (unsigned)prev);
		}
		s[len++] = 'E';
		prev = here;
	}
	s[len++] = 'E';
	s[len] = '\0';
	return s;
}

/* Rust v0 names that libiberty would loop over without printing (rustv0.c)
 * are refused; every real name still demangles. */
static void test_v0_binders(void)
{
	/* The fuzzer's name: an impl path, printed by nobody, holding a
	 * function type whose binder declares 3.5e12 lifetimes. */
	const char *hang = "_RC1_RYSQQPQQQQQQQQQQQQQQQQPQQQQFFFFFFFFFFFFFFFaFFFFFFFFFFFFFFGFFFFFF3_B43_EE";
	char name[64], line[4096];
	int total = 0, fine = 0;

	T_OK(!fk_symname_v0_bounded(hang), "a binder of 3.5e12 lifetimes is refused");
	T_OK(fk_symname_demangle(hang, strlen(hang)) == NULL, "and the name is left as it is");
	/* A binder "G N _" declares N + 2 lifetimes for base-62 digits N
	 * (0-9a-zA-Z): "gu" is 16 * 62 + 30. */
	snprintf(name, sizeof name, "_RINvC1a1fFG%s_RL0_hEuE", "gu");
	T_OK(fk_symname_v0_bounded(name), "a binder of 1024 lifetimes passes (%s)", name);
	snprintf(name, sizeof name, "_RINvC1a1fFG%s_RL0_hEuE", "gv");
	T_OK(!fk_symname_v0_bounded(name), "one of 1025 does not (%s)", name);
	char *d = fk_symname_demangle("_RINvC1a1fFG_RL0_hEuE", 21);
	T_EQ_STR(d, "a::f::<for<'a> fn(&'a u8)>", "a binder demangles");
	free(d);
	FILE *f = fopen("fixtures/good/rust-v0-names.txt", "r");
	T_OK(f != NULL, "fixtures/good/rust-v0-names.txt opened");
	while (f && fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = '\0';
		total++;
		d = fk_symname_demangle(line, strlen(line));
		fine += fk_symname_v0_bounded(line) && d && strncmp(d, "_R", 2) != 0;
		free(d);
	}
	if (f)
		fclose(f);
	T_OK(total == 60 && fine == total, "every real v0 name demangles (%d of %d)", fine, total);
}

/* Back-references can make a short name stand for an output exponential in
 * its length: demangling stops at FK_MAX_NAME bytes instead of walking all
 * of it (40 levels are 2^40 tuples; this took minutes before). */
static void test_doubling_names(void)
{
	char *raw = doubling_name(3);
	char *d = fk_symname_demangle(raw, strlen(raw));
	T_EQ_STR(d, "a::<((), ()), (((), ()), ((), ())), "
		    "((((), ()), ((), ())), (((), ()), ((), ()))), "
		    "(((((), ()), ((), ())), (((), ()), ((), ()))), "
		    "((((), ()), ((), ())), (((), ()), ((), ()))))>",
		 "three doubling levels demangled in full");
	free(d);
	free(raw);
	raw = doubling_name(40);
	T_OK(strlen(raw) < 400, "the 40-level name is short");
	d = fk_symname_demangle(raw, strlen(raw));
	T_OK(d == NULL, "a name whose output passes FK_MAX_NAME gives NULL");
	free(d);
	free(raw);
}

static void test_alloc_rules(void)
{
	T_OK(fk_alloc_is_frame("libjemalloc.so.2", "whatever", NULL), "by jemalloc module");
	T_OK(fk_alloc_is_frame(NULL, "malloc", "malloc"), "malloc");
	T_OK(fk_alloc_is_frame(NULL, "je_prof_backtrace", NULL), "je_ prefix");
	T_OK(fk_alloc_is_frame(NULL, "_rjem_mallocx", NULL), "_rjem_ prefix");
	T_OK(fk_alloc_is_frame(NULL, "operator new[](unsigned long)", "_Znam"), "operator new[]");
	T_OK(fk_alloc_is_frame(NULL, "x", "_ZnwmSt11align_val_t"), "aligned new by sysname");
	T_OK(fk_alloc_is_frame(NULL, "posix_memalign", NULL), "posix_memalign");
	T_OK(fk_alloc_is_frame(NULL, "__interceptor_malloc", NULL), "ASan's interceptor");
	T_OK(!fk_alloc_is_frame(NULL, "__interceptor_strlen", NULL), "other interceptors kept");
	T_OK(!fk_alloc_is_frame("libc.so.6", "strdup", "strdup"), "strdup is the caller");
	T_OK(!fk_alloc_is_frame(NULL, "xmalloc", NULL), "a user wrapper is kept");
	T_OK(!fk_alloc_is_frame(NULL, "tc_process", NULL), "tc_ needs an entry point");
	T_OK(!fk_alloc_is_frame(NULL, NULL, NULL), "no name");
}

/* Code whose addresses the test resolves. */
static uintptr_t ret_addr;

__attribute__((noinline)) void fk_test_target(void);
__attribute__((noinline)) void fk_test_target(void)
{
	ret_addr = (uintptr_t)__builtin_return_address(0);
	__asm__ volatile("" ::: "memory");
}

static inline __attribute__((always_inline)) void fk_test_inlined(void)
{
	fk_test_target();
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void fk_test_outer(void);
__attribute__((noinline)) void fk_test_outer(void)
{
	fk_test_inlined();
	__asm__ volatile("" ::: "memory");
}

struct warned {
	int n;
	char module[256], what[256];
};

static void on_warn(void *ctx, const char *module, const char *what)
{
	struct warned *w = ctx;
	w->n++;
	snprintf(w->module, sizeof w->module, "%s", module);
	snprintf(w->what, sizeof w->what, "%s", what);
}

static char *read_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	size_t cap = 1 << 16, n = 0;
	char *s = malloc(cap);
	if (!f || !s)
		return NULL;
	for (size_t r; (r = fread(s + n, 1, cap - n - 1, f)) > 0;) {
		n += r;
		if (cap - n < 2 && fk_reserve((void **)&s, &cap, cap + 1, 1, cap) < 0)
			return NULL;
	}
	s[n] = '\0';
	fclose(f);
	return s;
}

static const struct fk_sym *sym(const struct fk_profile *p, uint64_t key)
{
	return fk_profile_sym(p, key);
}

static void test_self(void)
{
	fk_test_outer();
	void *anon = mmap(NULL, 65536, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *maps = read_maps();
	T_OK(maps && anon != MAP_FAILED, "maps read");
	if (!maps || anon == MAP_FAILED)
		return;
	uint64_t target = (uint64_t)(uintptr_t)&fk_test_target + 1;
	uint64_t ret = ret_addr;
	uint64_t outer_ret = (uint64_t)(uintptr_t)&fk_test_outer + 1;
	uint64_t mal = (uint64_t)(uintptr_t)&malloc + 1;
	uint64_t an = (uint64_t)(uintptr_t)anon + 0x20;
	/* A module nobody can read, far from any real mapping. */
	uint64_t ghost = 0x10000001000ULL;
	size_t cap = strlen(maps) + 4096;
	char *dump = malloc(cap);
	snprintf(dump, cap,
		 "heap_v2/1\n  t*: 3: 300 [0: 0]\n"
		 "@ 0x%llx 0x%llx 0x%llx 0x%llx\n  t*: 1: 100 [0: 0]\n"
		 "@ 0x%llx 0x%llx 0x%llx\n  t*: 1: 100 [0: 0]\n"
		 "@ 0x%llx 0x%llx\n  t*: 1: 100 [0: 0]\n"
		 "\nMAPPED_LIBRARIES:\n%s"
		 "10000000000-10000010000 r-xp 00002000 08:01 77 /nonexistent/libghost.so\n",
		 (unsigned long long)mal, (unsigned long long)(ret),
		 (unsigned long long)outer_ret, (unsigned long long)an,
		 (unsigned long long)target, (unsigned long long)ghost,
		 (unsigned long long)(ghost + 0x10),
		 (unsigned long long)mal, (unsigned long long)(mal + 3),
		 maps);
	free(maps);
	struct fk_profile *p = fk_profile_new("self");
	struct fk_err err;
	fk_err_init(&err, "self");
	fk_profile_own(p, dump);
	int rc = fk_profile_parse(p, dump, strlen(dump), &err);
	T_OK(rc == 0, "dump of self parses (%s)", err.msg);
	if (rc != 0) {
		fk_profile_free(p);
		return;
	}
	const struct fk_sym *s;
	struct warned w = { 0 };
	struct fk_symbolize_opts o = { .warn = on_warn, .warn_ctx = &w };
	rc = fk_symbolize(p, &o, &err);
	T_OK(rc == 0 && p->symbolized, "symbolized");

	/* Stack 1: malloc dropped; its caller's return address is the new
	 * leaf, keyed by itself but resolved one byte back. */

	T_EQ_INT(p->stacks[0].depth, 3, "allocator frame dropped");
	s = sym(p, ret);
	T_OK(s && s->nframes == 2, "inline chain of two frames at the call");
	if (s && s->nframes == 2) {
		T_EQ_STR(s->frames[0].name, "fk_test_inlined", "innermost is the inlined function");
		T_EQ_STR(s->frames[1].name, "fk_test_outer", "outermost is the real function");
		T_OK(s->frames[0].file && strstr(s->frames[0].file, "test_symbolize.c"),
		     "file of the inlined frame");
		T_OK(s->frames[1].line > 0 && s->frames[0].line > s->frames[1].line - 10 &&
		     s->frames[1].line > s->frames[0].line,
		     "call site line of the outer frame follows the inlined body");
	}
	s = sym(p, outer_ret - 1);
	T_OK(s && strcmp(s->frames[s->nframes - 1].name, "fk_test_outer") == 0,
	     "caller keyed address-1");
	s = sym(p, an - 1);
	T_OK(s && s->placeholder && strncmp(s->frames[0].name, "[anon]+0x", 9) == 0,
	     "anonymous memory is a placeholder");
	/* Stack 2: a leaf in this program, callers in a missing module. */
	s = sym(p, target);
	T_OK(s && strcmp(s->frames[0].name, "fk_test_target") == 0 && !s->placeholder,
	     "leaf named");
	s = sym(p, ghost - 1);
	T_OK(s && s->placeholder && strcmp(s->frames[0].name, "libghost.so+0x2fff") == 0,
	     "unreadable module gives module+offset (%s)", s ? s->frames[0].name : "-");
	T_EQ_INT(w.n, 1, "one warning for the unreadable module");
	T_EQ_STR(w.module, "/nonexistent/libghost.so", "warning names the module");
	/* Stack 3: only allocator frames: kept whole. */
	T_EQ_INT(p->stacks[2].depth, 2, "all-allocator stack kept");
	T_OK(p->nmodules > 0, "build-ids recorded");

	FILE *devnull = fopen("/dev/null", "w");
	T_OK(devnull && fk_symprof_write(p, devnull, &err) == 0, "written");
	if (devnull)
		fclose(devnull);
	fk_profile_free(p);
	munmap(anon, 65536);
}

int main(void)
{
	test_names();
	test_doubling_names();
	test_v0_binders();
	test_alloc_rules();
	test_self();
	return T_DONE();
}
