/* SPDX-License-Identifier: MIT */
/* A test host for the waste view (tests/hook/waste.t, fixtures/waste/):
 * one site fragments the 64-byte class on purpose, another fills its
 * slabs beside it. Run it preloaded with jemalloc (and the hook);
 * commands on stdin, one a line, each answered on stdout:
 *   frag N D   waste_dense keeps D 64-byte objects; waste_sparse then
 *              allocates N and frees nine in ten of them, at random; prints
 *              "frag W": jemalloc's own slab waste of that class over every
 *              arena, (curslabs * nregs - curregs) * size
 *   mixed N    waste_mixed, one stack allocating two sizes, keeps N objects
 *              of 160 bytes and allocates N of 512, nine in ten of those
 *              freed at random; prints "mixed W160 W512": jemalloc's slab
 *              waste of the two classes, as frag's
 *   churn N    N objects of 4 KiB allocated and freed at once ("churn N"):
 *              jemalloc's record of recent allocations fills with freed
 *              ones (bench/waste.sh)
 *   arenas N   N more arenas (arenas.create), each holding one object
 *              ("arenas N"), for the cost of many arenas (bench/waste.sh)
 *   dump PATH  prof.dump to PATH ("dumped")
 *   stats PATH malloc_stats_print's JSON (opts J) to PATH ("stats")
 *   quit       exit 0 (also at end of input) */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIZE 64

typedef int (*mallctl_fn)(const char *, void *, size_t *, void *, size_t);

static mallctl_fn ctl;
static void **dense, **sparse;

__attribute__((noinline)) void *waste_dense(void);
__attribute__((noinline)) void *waste_dense(void)
{
	return malloc(SIZE);
}

__attribute__((noinline)) void *waste_sparse(void);
__attribute__((noinline)) void *waste_sparse(void)
{
	return malloc(SIZE);
}

/* Both sizes from one stack: the caller's loop calls it from one place. */
__attribute__((noinline)) void *waste_mixed(size_t size);
__attribute__((noinline)) void *waste_mixed(size_t size)
{
	return malloc(size);
}

static size_t size_ctl(const char *name)
{
	size_t v = 0, sz = sizeof v;

	if (ctl(name, &v, &sz, NULL, 0) != 0)
		return 0;
	return v;
}

/* jemalloc's slab waste of the class of size bytes, every arena. */
static unsigned long long class_waste(size_t size)
{
	unsigned nbins = 0, nregs = 0;
	uint64_t epoch = 1;
	size_t sz = sizeof nbins;
	char name[96];

	ctl("epoch", NULL, NULL, &epoch, sizeof epoch);
	ctl("arenas.nbins", &nbins, &sz, NULL, 0);
	for (unsigned j = 0; j < nbins; j++) {
		snprintf(name, sizeof name, "arenas.bin.%u.size", j);
		if (size_ctl(name) != size)
			continue;
		snprintf(name, sizeof name, "arenas.bin.%u.nregs", j);
		sz = sizeof nregs;
		ctl(name, &nregs, &sz, NULL, 0);
		snprintf(name, sizeof name, "stats.arenas.4096.bins.%u.curslabs", j);
		size_t slabs = size_ctl(name);
		snprintf(name, sizeof name, "stats.arenas.4096.bins.%u.curregs", j);
		size_t regs = size_ctl(name);
		return (unsigned long long)(slabs * nregs - regs) * size;
	}
	return 0;
}

/* One in ten kept, at random (xorshift, fixed seed): 1 to free. */
static int drop(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x % 10 != 0;
}

static void frag(size_t n, size_t d)
{
	uint64_t x = 88172645463325252ull;

	dense = calloc(d, sizeof *dense);
	sparse = calloc(n, sizeof *sparse);
	for (size_t i = 0; i < d; i++)
		memset(dense[i] = waste_dense(), 1, SIZE);
	for (size_t i = 0; i < n; i++)
		memset(sparse[i] = waste_sparse(), 2, SIZE);
	/* Nine in ten freed, at random. */
	for (size_t i = 0; i < n; i++)
		if (drop(&x)) {
			free(sparse[i]);
			sparse[i] = NULL;
		}
	printf("frag %llu\n", class_waste(SIZE));
}

static void mixed(size_t n)
{
	void **keep = calloc(2 * n, sizeof *keep);
	uint64_t x = 2463534242ull;

	for (size_t i = 0; keep && i < 2 * n; i++) {
		size_t size = i % 2 ? 512 : 160;

		memset(keep[i] = waste_mixed(size), 5, size);
	}
	for (size_t i = 1; keep && i < 2 * n; i += 2)
		if (drop(&x)) {
			free(keep[i]);
			keep[i] = NULL;
		}
	printf("mixed %llu %llu\n", class_waste(160), class_waste(512));
}

__attribute__((noinline)) void *waste_churn(void);
__attribute__((noinline)) void *waste_churn(void)
{
	return malloc(4096);
}

static void churn(size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char *p = waste_churn();

		if (p)
			p[0] = 1;
		free(p);
	}
	printf("churn %zu\n", n);
}

static void arenas(size_t n)
{
	unsigned ind, old = 0;
	size_t sz = sizeof ind, osz = sizeof old, made = 0;

	for (size_t i = 0; i < n; i++) {
		sz = sizeof ind;
		if (ctl("arenas.create", &ind, &sz, NULL, 0) != 0)
			break;
		osz = sizeof old;
		if (ctl("thread.arena", &old, &osz, &ind, sizeof ind) != 0)
			break;
		memset(waste_dense(), 3, SIZE);
		ctl("thread.arena", NULL, NULL, &old, sizeof old);
		made++;
	}
	printf("arenas %zu\n", made);
}

static void write_cb(void *opaque, const char *s)
{
	fputs(s, opaque);
}

int main(void)
{
	void (*stats)(void (*)(void *, const char *), void *, const char *);
	char line[4200], path[4096];
	size_t n, d;

	ctl = (mallctl_fn)dlsym(RTLD_DEFAULT, "mallctl");
	*(void **)&stats = dlsym(RTLD_DEFAULT, "malloc_stats_print");
	if (!ctl || !stats) {
		fprintf(stderr, "waste-prog: no jemalloc (run it with libjemalloc.so.2 preloaded)\n");
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("ready\n");
	while (fgets(line, sizeof line, stdin)) {
		if (sscanf(line, "frag %zu %zu", &n, &d) == 2) {
			frag(n, d);
		} else if (sscanf(line, "mixed %zu", &n) == 1) {
			mixed(n);
		} else if (sscanf(line, "churn %zu", &n) == 1) {
			churn(n);
		} else if (sscanf(line, "arenas %zu", &n) == 1) {
			arenas(n);
		} else if (sscanf(line, "dump %4095s", path) == 1) {
			const char *p = path;

			printf(ctl("prof.dump", NULL, NULL, &p, sizeof p) == 0 ? "dumped\n" : "no dump\n");
		} else if (sscanf(line, "stats %4095s", path) == 1) {
			FILE *f = fopen(path, "w");

			if (f) {
				stats(write_cb, f, "J");
				fclose(f);
			}
			printf("stats\n");
		} else if (strncmp(line, "quit", 4) == 0) {
			break;
		}
	}
	return 0;
}
