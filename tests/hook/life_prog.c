/* SPDX-License-Identifier: MIT */
/* A test host for allocation lifetimes (tests/hook/lifetimes.t,
 * tests/life/): functions whose memory lives a known time. Run it
 * preloaded with the hook and jemalloc; commands on stdin, one a line,
 * each answered on stdout:
 *   run N      N blocks of 32 KiB kept for good (life_forever), N blocks
 *              freed 2 s later by a thread of their own (life_two_seconds,
 *              freed in life_release_later: "released" when done), and 8N
 *              blocks freed at once (life_temporary)
 *   loop S     malloc/free of 64-byte blocks for S seconds, then prints
 *              "loop OPS CPU": the pairs made and the CPU seconds the
 *              thread took, what recording's cost is measured on (bench/)
 *   quit       exit 0 (also at end of input) */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BLOCK (32 * 1024)

static void *forever[4096], *twosec[4096];
static size_t nforever, ntwosec;

__attribute__((noinline)) void *life_forever(void);
__attribute__((noinline)) void *life_forever(void)
{
	char *p = malloc(BLOCK);

	if (p)
		memset(p, 1, BLOCK);
	return p;
}

__attribute__((noinline)) void *life_two_seconds(void);
__attribute__((noinline)) void *life_two_seconds(void)
{
	char *p = malloc(BLOCK);

	if (p)
		memset(p, 2, BLOCK);
	return p;
}

__attribute__((noinline)) void life_temporary(void);
__attribute__((noinline)) void life_temporary(void)
{
	char *volatile p = malloc(BLOCK);

	if (p)
		p[0] = 3;
	free(p);
}

__attribute__((noinline)) void *life_release_later(void *arg);
__attribute__((noinline)) void *life_release_later(void *arg)
{
	struct timespec d = { 2, 0 };
	size_t n = (size_t)(uintptr_t)arg;
	/* A thread that never allocated frees with jemalloc's minimal
	 * thread state, where it records no free (no time, no stack): this
	 * one allocates first, as a service's threads do. */
	char *volatile warm = malloc(16);

	free(warm);
	while (nanosleep(&d, &d) != 0)
		;
	for (size_t i = 0; i < n; i++)
		free(twosec[i]);
	printf("released %zu\n", n);
	fflush(stdout);
	return NULL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void *life_loop_alloc(size_t n);
__attribute__((noinline)) void *life_loop_alloc(size_t n)
{
	return malloc(n);
}

/* The calling thread's CPU seconds. */
static double cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void loop(double secs)
{
	unsigned long long ops = 0;
	double end = now() + secs, c0 = cpu();

	while (now() < end)
		for (int i = 0; i < 1000; i++, ops++) {
			char *volatile p = life_loop_alloc(64);

			if (p)
				p[0] = 1;
			free(p);
		}
	printf("loop %llu %.6f\n", ops, cpu() - c0);
}

int main(void)
{
	char line[128];
	pthread_t t;
	int started = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("ready\n");
	while (fgets(line, sizeof line, stdin)) {
		unsigned long n;
		double s;

		if (sscanf(line, "run %lu", &n) == 1 && n <= 4096 && !started) {
			started = 1;
			for (size_t i = 0; i < n; i++)
				forever[nforever++] = life_forever();
			for (size_t i = 0; i < n; i++)
				twosec[ntwosec++] = life_two_seconds();
			for (size_t i = 0; i < 8 * n; i++)
				life_temporary();
			if (pthread_create(&t, NULL, life_release_later, (void *)(uintptr_t)ntwosec) != 0)
				return 1;
			pthread_detach(t);
			printf("ran %lu\n", n);
		} else if (sscanf(line, "loop %lf", &s) == 1) {
			loop(s);
		} else if (strncmp(line, "quit", 4) == 0) {
			break;
		} else {
			printf("? %s", line);
		}
	}
	return 0;
}
