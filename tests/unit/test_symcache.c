/* SPDX-License-Identifier: MIT */
/* Unit tests of symbolize/symcache.c: every fixture dump symbolized twice
 * with one cache gives the very bytes (symbolized profile, pprof and
 * warnings) the uncached path gives; a module replaced on disk between
 * two calls is read again; eviction under a tiny budget; other options
 * empty the cache. Run from the top of the tree. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "t.h"
#include "input.h"
#include "pprof_enc.h"
#include "symbolize.h"
#include "symprof.h"

#define SYSROOT "fixtures/sysroot"

struct out {
	char *text, *warns;
	unsigned char *pb;
	size_t tlen, wlen, pblen;
};

static void warn(void *ctx, const char *module, const char *what)
{
	FILE *f = ctx;
	fprintf(f, "%s: %s\n", module, what);
}

static void out_free(struct out *o)
{
	free(o->text);
	free(o->warns);
	free(o->pb);
	memset(o, 0, sizeof *o);
}

/* Symbolizes the dump at path with sysroot (and cache c, or none) and
 * writes it both ways; 0 or -1. */
static int run(const char *path, const char *sysroot, struct fk_symcache *c,
	       int keep, struct out *o)
{
	struct fk_profile *p = fk_profile_new(path);
	struct fk_err err;
	FILE *wf = open_memstream(&o->warns, &o->wlen);
	struct fk_symbolize_opts so = { .sysroot = sysroot, .warn = warn, .warn_ctx = wf,
					.cache = c, .keep_allocator_frames = keep };
	struct fk_pprof_opts po = { .level = 1 };
	int rc = -1;

	fk_err_init(&err, path);
	if (p && wf && fk_profile_load(p, path, &err) == 0 && fk_symbolize(p, &so, &err) == 0) {
		FILE *tf = open_memstream(&o->text, &o->tlen);
		if (tf && fk_symprof_write(p, tf, &err) == 0 &&
		    fk_pprof_encode(p, &po, &o->pb, &o->pblen, &err) == 0)
			rc = 0;
		if (tf)
			fclose(tf);
	}
	if (wf)
		fclose(wf);
	if (rc != 0)
		printf("# %s: %s\n", path, err.msg);
	fk_profile_free(p);
	return rc;
}

static int same(const struct out *a, const struct out *b)
{
	return a->tlen == b->tlen && memcmp(a->text, b->text, a->tlen) == 0 &&
	       a->pblen == b->pblen && memcmp(a->pb, b->pb, a->pblen) == 0 &&
	       a->wlen == b->wlen && memcmp(a->warns, b->warns, a->wlen) == 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every dump, twice, through one cache shared by all of them. */
static void test_fixtures(void)
{
	DIR *d = opendir("fixtures/dumps");
	char *names[256];
	size_t n = 0;
	struct dirent *de;
	T_OK(d != NULL, "fixtures/dumps opened");
	if (!d)
		return;
	while ((de = readdir(d)) && n < 256) {
		size_t len = strlen(de->d_name);
		if (len > 5 && strcmp(de->d_name + len - 5, ".prof") == 0)
			names[n++] = strdup(de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof *names, cmp_str);
	T_OK(n >= 10, "found %zu fixture dumps", n);
	struct fk_symcache *c = fk_symcache_new((size_t)256 << 20);
	struct fk_symcache_stats st;
	for (size_t i = 0; i < n; i++) {
		char path[512];
		struct out ref = { 0 }, o1 = { 0 }, o2 = { 0 };
		snprintf(path, sizeof path, "fixtures/dumps/%s", names[i]);
		int ok = run(path, SYSROOT, NULL, 0, &ref) == 0;
		T_OK(ok, "%s symbolized without a cache", names[i]);
		uint64_t hits = (fk_symcache_stats(c, &st), st.hits);
		T_OK(ok && run(path, SYSROOT, c, 0, &o1) == 0 && same(&ref, &o1),
		     "%s: first call with the cache is byte-identical", names[i]);
		T_OK(ok && run(path, SYSROOT, c, 0, &o2) == 0 && same(&ref, &o2),
		     "%s: second call with the cache is byte-identical", names[i]);
		fk_symcache_stats(c, &st);
		/* Every dump but the synthetic ones maps a readable module. */
		if (strstr(names[i], "fk-basic") || strstr(names[i], "fk-inline"))
			T_OK(st.hits > hits, "%s: modules reused (%llu hits)", names[i],
			     (unsigned long long)st.hits);
		out_free(&ref);
		out_free(&o1);
		out_free(&o2);
		free(names[i]);
	}
	fk_symcache_stats(c, &st);
	T_OK(st.modules > 0 && st.bytes > 0 && st.names > 0,
	     "the cache holds %zu modules, %zu names, %zu bytes", st.modules, st.names,
	     st.bytes);
	/* Other options: emptied, and still the uncached bytes. */
	struct out ref = { 0 }, o = { 0 };
	run("fixtures/dumps/fk-basic.prof", SYSROOT, NULL, 1, &ref);
	uint64_t ev = st.evictions;
	T_OK(run("fixtures/dumps/fk-basic.prof", SYSROOT, c, 1, &o) == 0 && same(&ref, &o),
	     "keep_allocator_frames with the same cache is byte-identical");
	fk_symcache_stats(c, &st);
	T_OK(st.evictions > ev, "other options emptied the cache (%llu evictions)",
	     (unsigned long long)(st.evictions - ev));
	out_free(&ref);
	out_free(&o);
	fk_symcache_free(c);
}

static int copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
	char buf[65536];
	size_t n;
	int rc = in && out ? 0 : -1;
	while (rc == 0 && (n = fread(buf, 1, sizeof buf, in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			rc = -1;
	if (in)
		fclose(in);
	if (out && fclose(out) != 0)
		rc = -1;
	return rc;
}

/* A module replaced by another build at the same path between two calls
 * (renamed over, as package managers do; then rewritten in place, same
 * inode) is read again, never served from the cache. */
static void test_replaced(void)
{
	char root[] = "/tmp/fk-symcache-XXXXXX", dir[256], bin[300], tmp[300], cmd[800];
	const char *dump = "fixtures/dumps/fk-basic.prof";
	T_OK(mkdtemp(root) != NULL, "scratch folder");
	snprintf(dir, sizeof dir, "%s/opt", root);
	mkdir(dir, 0755);
	snprintf(dir, sizeof dir, "%s/opt/fk", root);
	mkdir(dir, 0755);
	snprintf(dir, sizeof dir, "%s/opt/fk/bin", root);
	mkdir(dir, 0755);
	snprintf(bin, sizeof bin, "%s/fk-basic", dir);
	snprintf(tmp, sizeof tmp, "%s/fk-basic.new", dir);
	T_OK(copy_file(SYSROOT "/opt/fk/bin/fk-basic", bin) == 0, "fixture copied");

	struct fk_symcache *c = fk_symcache_new((size_t)64 << 20);
	struct out first = { 0 }, ref = { 0 }, o = { 0 };
	T_OK(run(dump, root, c, 0, &first) == 0, "symbolized with the original");
	T_OK(strstr(first.text, "fk_") != NULL, "the original gives the program's names");
	/* Another build of the same program: the same segments, no symbols. */
	snprintf(cmd, sizeof cmd, "objcopy --strip-all '%s' '%s'", bin, tmp);
	T_OK(system(cmd) == 0 && rename(tmp, bin) == 0, "replaced by a stripped build");
	T_OK(run(dump, root, NULL, 0, &ref) == 0, "the replacement symbolized uncached");
	T_OK(run(dump, root, c, 0, &o) == 0 && same(&ref, &o),
	     "after the rename the cache reads the new file");
	T_OK(!same(&first, &o), "and the new file's output differs from the old");
	out_free(&o);
	/* Rewritten in place: same inode, other size and time. */
	T_OK(copy_file(SYSROOT "/opt/fk/bin/fk-basic", bin) == 0, "original written back in place");
	T_OK(run(dump, root, c, 0, &o) == 0 && same(&first, &o),
	     "after the rewrite the cache reads the file again");
	out_free(&o);
	/* Gone: the module is not served from the cache either. */
	unlink(bin);
	out_free(&ref);
	T_OK(run(dump, root, NULL, 0, &ref) == 0 && run(dump, root, c, 0, &o) == 0 &&
	     same(&ref, &o), "a removed file is not served from the cache");
	out_free(&o);
	out_free(&ref);
	out_free(&first);
	fk_symcache_free(c);
	rmdir(dir);
	snprintf(dir, sizeof dir, "%s/opt/fk", root);
	rmdir(dir);
	snprintf(dir, sizeof dir, "%s/opt", root);
	rmdir(dir);
	rmdir(root);
}

/* Budgets: a tiny one keeps nothing (and the output does not change); one
 * that holds a dump's modules keeps them all; LRU goes first. */
static void test_eviction(void)
{
	const char *a = "fixtures/dumps/fk-inline.prof", *b = "fixtures/dumps/fk-threads.prof";
	struct fk_symcache_stats st, sa;
	struct out ref = { 0 }, o = { 0 };
	struct fk_symcache *c = fk_symcache_new(1);
	run(a, SYSROOT, NULL, 0, &ref);
	T_OK(run(a, SYSROOT, c, 0, &o) == 0 && same(&ref, &o), "tiny budget: same output");
	out_free(&o);
	T_OK(run(a, SYSROOT, c, 0, &o) == 0 && same(&ref, &o), "tiny budget: same output again");
	out_free(&o);
	fk_symcache_stats(c, &st);
	T_EQ_INT(st.modules, 0, "tiny budget: no module kept");
	T_EQ_INT(st.hits, 0, "tiny budget: no module reused");
	T_OK(st.evictions >= 2, "tiny budget: modules evicted (%llu)",
	     (unsigned long long)st.evictions);
	fk_symcache_free(c);

	/* The budget one dump's modules take: the second call reuses all. */
	c = fk_symcache_new((size_t)1 << 30);
	run(a, SYSROOT, c, 0, &o);
	out_free(&o);
	fk_symcache_stats(c, &sa);
	fk_symcache_free(c);
	c = fk_symcache_new(sa.bytes);
	run(a, SYSROOT, c, 0, &o);
	out_free(&o);
	T_OK(run(a, SYSROOT, c, 0, &o) == 0 && same(&ref, &o), "budget of one dump: same output");
	out_free(&o);
	fk_symcache_stats(c, &st);
	T_EQ_INT(st.evictions, 0, "budget of one dump: nothing evicted");
	T_EQ_INT(st.hits, sa.modules, "budget of one dump: every module reused");
	/* Another program's dump: the least recently used modules go first,
	 * so the ones this call used are kept. */
	struct out rb = { 0 };
	run(b, SYSROOT, NULL, 0, &rb);
	T_OK(run(b, SYSROOT, c, 0, &o) == 0 && same(&rb, &o), "second program: same output");
	out_free(&o);
	fk_symcache_stats(c, &st);
	T_OK(st.bytes <= sa.bytes, "held bytes within the budget (%zu <= %zu)", st.bytes,
	     sa.bytes);
	uint64_t hits = st.hits;
	size_t kept = st.modules;
	T_OK(run(b, SYSROOT, c, 0, &o) == 0 && same(&rb, &o), "second program again: same output");
	out_free(&o);
	fk_symcache_stats(c, &st);
	T_OK(kept > 0 && st.hits - hits == kept,
	     "the modules kept were the last call's (%llu reused of %zu)",
	     (unsigned long long)(st.hits - hits), kept);
	out_free(&rb);
	out_free(&ref);
	fk_symcache_free(c);
	fk_symcache_free(NULL);
}

int main(void)
{
	test_fixtures();
	test_replaced();
	test_eviction();
	return T_DONE();
}
