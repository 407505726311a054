/* SPDX-License-Identifier: MIT */
/* Workloads for bench/unwind.sh (the sampling backtrace's cost), run with
 * jemalloc and the hook preloaded:
 *   unwind-bench-prog loop N DEPTH  N malloc/free pairs of 16..1039 bytes,
 *                                   DEPTH frames below main; prints the
 *                                   process CPU seconds of the loop
 *   unwind-bench-prog bt N DEPTH    calls the backtrace jemalloc samples with
 *                                   (experimental.hooks.prof_backtrace, the
 *                                   hook's when it is preloaded) N times,
 *                                   DEPTH frames below main; prints
 *                                   nanoseconds per call and the frames it
 *                                   gave
 *   unwind-bench-prog libgcc N DEPTH  the same with libgcc's _Unwind_Backtrace
 *                                   and jemalloc 5.3's callback (what
 *                                   jemalloc's prof_backtrace_impl does)
 *   unwind-bench-prog libunwind N DEPTH  the same with libunwind's
 *                                   unw_backtrace (libunwind.so.8) */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unwind.h>

typedef void (*bt_fn)(void **, unsigned *, unsigned);
typedef int (*ctl_fn)(const char *, void *, size_t *, void *, size_t);

static volatile unsigned sink;

static double cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double loop(long n)
{
	unsigned x = 12345;
	double t0 = cpu();

	for (long i = 0; i < n; i++) {
		char *p;

		x = x * 1103515245u + 12345u;
		p = malloc(16 + ((x >> 16) & 1023));
		if (p)
			p[0] = 1;
		/* Keeps the compiler from pairing the malloc with the free away. */
		__asm__ volatile("" : : "r"(p) : "memory");
		free(p);
	}
	return cpu() - t0;
}

static double bt(long n, unsigned *frames)
{
	void *vec[128];
	bt_fn f = NULL;
	size_t sz = sizeof f;
	ctl_fn ctl = (ctl_fn)dlsym(RTLD_DEFAULT, "mallctl");
	double t0;

	if (!ctl || ctl("experimental.hooks.prof_backtrace", &f, &sz, NULL, 0) != 0 || !f)
		return -1;
	t0 = cpu();
	for (long i = 0; i < n; i++)
		f(vec, frames, 128);
	return (cpu() - t0) / (double)n * 1e9;
}

/* jemalloc 5.3.0's prof_unwind_callback (src/prof_sys.c), restated. */
struct unw_data {
	void **vec;
	unsigned *len, max;
};

static _Unwind_Reason_Code gcc_cb(struct _Unwind_Context *ctx, void *arg)
{
	struct unw_data *d = arg;
	void *ip = (void *)_Unwind_GetIP(ctx);

	if (!ip)
		return _URC_END_OF_STACK;
	d->vec[(*d->len)++] = ip;
	return *d->len == d->max ? _URC_END_OF_STACK : _URC_NO_REASON;
}

typedef _Unwind_Reason_Code (*ub_fn)(_Unwind_Trace_Fn, void *);
typedef int (*unw_fn)(void **, int);

static double other(long n, unsigned *frames, int lib)
{
	void *vec[128], *h = dlopen(lib ? "libunwind.so.8" : "libgcc_s.so.1", RTLD_NOW);
	ub_fn ub = h && !lib ? (ub_fn)dlsym(h, "_Unwind_Backtrace") : NULL;
	unw_fn uw = h && lib ? (unw_fn)dlsym(h, "unw_backtrace") : NULL;
	struct unw_data d = { vec, frames, 128 };
	double t0;

	if (!ub && !uw)
		return -1;
	t0 = cpu();
	for (long i = 0; i < n; i++) {
		if (ub) {
			*frames = 0;
			ub(gcc_cb, &d);
		} else {
			*frames = (unsigned)uw(vec, 128);
		}
	}
	return (cpu() - t0) / (double)n * 1e9;
}

__attribute__((noinline)) static void down(int depth, int mode, long n);
__attribute__((noinline)) static void down(int depth, int mode, long n)
{
	unsigned frames = 0;
	double r;

	if (depth > 0) {
		down(depth - 1, mode, n);
		sink++;
		return;
	}
	if (mode == 0) {
		printf("%.6f\n", loop(n));
		return;
	}
	if ((r = mode == 1 ? bt(n, &frames) : other(n, &frames, mode == 3)) < 0) {
		fprintf(stderr, "unwind-bench-prog: that backtrace is not available\n");
		exit(1);
	}
	printf("%.1f %u\n", r, frames);
}

int main(int argc, char **argv)
{
	long n, depth;

	static const char *const modes[] = { "loop", "bt", "libgcc", "libunwind" };
	int mode = -1;

	for (int i = 0; argc == 4 && i < 4; i++)
		if (strcmp(argv[1], modes[i]) == 0)
			mode = i;
	if (mode < 0 || (n = atol(argv[2])) <= 0 || (depth = atol(argv[3])) < 0 || depth > 100) {
		fprintf(stderr, "usage: unwind-bench-prog loop|bt|libgcc|libunwind N DEPTH\n");
		return 2;
	}
	down((int)depth, mode, n);
	return 0;
}
