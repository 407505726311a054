/* SPDX-License-Identifier: MIT */
/* Workloads for bench/hook.sh (libflamekit-hook's overhead):
 *   hook-bench-prog loop N     N malloc/free pairs of 16..4111 bytes over 256
 *                              live slots; prints the CPU seconds the whole
 *                              process (every thread, the hook's too) spent
 *                              in the loop, which a busy machine skews less
 *                              than wall time
 *   hook-bench-prog stacks B   keeps one 64-byte block on each of 2^B
 *                              distinct stacks, says "ready", then for each
 *                              line "grow K" on its input adds a block on
 *                              K of those stacks (the next K of a fixed
 *                              shuffle, so each line changes the counts of
 *                              K stacks, and only theirs) and says "grown
 *                              K"; ends at EOF
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

		size_t room = (size_t)count * 8;
		unsigned next = 0, k;
		char line[64];

		kept = calloc(room, sizeof *kept);
		if (!kept)
			return 1;
		/* One call site for the first blocks and the later ones, so
		 * that a later block's stack is one of the first's. A line's
		 * stacks are taken by an odd stride through the bits: spread
		 * over the whole tree, and every stack once in 2^B of them. */
		for (k = count;; next += k) {
			for (unsigned i = 0; i < k; i++)
				stack_walk((int)n, next ? ((next + i) * 2654435761u) & (count - 1) : i);
			if (next)
				printf("grown %u\n", k);
			else
				printf("ready %u\n", count);
			fflush(stdout);
			if (!fgets(line, sizeof line, stdin))
				return 0;
			if (sscanf(line, "grow %u", &k) != 1 || k > count || nkept + k > room) {
				fprintf(stderr, "hook-bench-prog: want \"grow K\" within the room left\n");
				return 1;
			}
		}
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
