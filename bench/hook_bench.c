/* SPDX-License-Identifier: MIT */
/* Workloads for bench/hook.sh (libflamekit-hook's overhead):
 *   hook-bench-prog loop N     N malloc/free pairs of 16..4111 bytes over 256
 *                              live slots; prints the CPU seconds the whole
 *                              process (every thread, the hook's too) spent
 *                              in the loop, which a busy machine skews less
 *                              than wall time
 *   hook-bench-prog stacks B   keeps one 64-byte block on each of 2^B
 *                              distinct stacks, says "ready", waits for EOF
 *   hook-bench-prog churn B    allocates and frees at once one 64-byte block
 *                              on each of 2^B distinct stacks, then prints
 *                              its CPU seconds and VmRSS in kB (what
 *                              jemalloc's prof_accum keeps of freed stacks) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile unsigned sink;
static void **kept;
static size_t nkept;
static int transient;              /* churn: free each block at once */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double loop(long n)
{
	void *slots[256] = { 0 };
	unsigned x = 12345;
	double t0 = now();

	for (long i = 0; i < n; i++) {
		unsigned k;

		x = x * 1103515245u + 12345u;
		k = (x >> 8) & 255;
		free(slots[k]);
		slots[k] = malloc(16 + ((x >> 16) & 4095));
		if (slots[k])
			((char *)slots[k])[0] = 1;
	}
	for (int k = 0; k < 256; k++)
		free(slots[k]);
	return now() - t0;
}

__attribute__((noinline)) void *stack_leaf(void);
__attribute__((noinline)) void *stack_leaf(void)
{
	void *p = malloc(64);

	if (p)
		memset(p, 3, 64);
	if (transient) {
		free(p);
		return NULL;
	}
	kept[nkept++] = p;
	return p;
}

/* Each level goes through one of two functions, so every path through the
 * bits is its own chain of return addresses. */
__attribute__((noinline)) void *stack_walk(int depth, unsigned bits);
__attribute__((noinline)) static void *walk_left(int depth, unsigned bits)
{
	void *r = stack_walk(depth - 1, bits >> 1);

	sink += 1;
	return r;
}

__attribute__((noinline)) static void *walk_right(int depth, unsigned bits)
{
	void *r = stack_walk(depth - 1, bits >> 1);

	sink += 2;
	return r;
}

__attribute__((noinline)) void *stack_walk(int depth, unsigned bits)
{
	if (depth == 0)
		return stack_leaf();
	return (bits & 1) ? walk_left(depth, bits) : walk_right(depth, bits);
}

int main(int argc, char **argv)
{
	long n;

	if (argc != 3 || (n = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: hook-bench-prog loop N | stacks BITS | churn BITS\n");
		return 2;
	}
	if (strcmp(argv[1], "loop") == 0) {
		printf("%.6f\n", loop(n));
		return 0;
	}
	if (strcmp(argv[1], "stacks") == 0 && n <= 20) {
		unsigned count = 1u << n;
		int c;

		kept = calloc(count, sizeof *kept);
		if (!kept)
			return 1;
		for (unsigned b = 0; b < count; b++)
			stack_walk((int)n, b);
		printf("ready %u\n", count);
		fflush(stdout);
		while ((c = getchar()) != EOF)
			;
		return 0;
	}
	if (strcmp(argv[1], "churn") == 0 && n <= 20) {
		char line[256];
		long rss = -1;
		double t0 = now();
		FILE *f;

		transient = 1;
		for (unsigned b = 0; b < 1u << n; b++)
			stack_walk((int)n, b);
		t0 = now() - t0;
		if ((f = fopen("/proc/self/status", "r"))) {
			while (fgets(line, sizeof line, f))
				if (sscanf(line, "VmRSS: %ld", &rss) == 1)
					break;
			fclose(f);
		}
		printf("%.6f %ld\n", t0, rss);
		return 0;
	}
	fprintf(stderr, "usage: hook-bench-prog loop N | stacks BITS | churn BITS\n");
	return 2;
}
