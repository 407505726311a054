/* SPDX-License-Identifier: MIT */
/* A fixture for heap over time (heap-series, the hook's timeline): a cache
 * that grows steadily in grow_cache, a short spike from spike_alloc that
 * is freed again. Commands on stdin, one a line, each answered "ok" on
 * stdout once done, so a test waits for events, not for time:
 *   grow N     keep N more 64 KiB blocks, allocated in grow_cache
 *   spike N    allocate N 64 KiB blocks in spike_alloc and keep them
 *   unspike    free the spike's blocks
 *   dump       ask jemalloc for a dump (mallctl "prof.dump", if linked)
 *   quit       exit 0 (also at end of input)
 * Run under jemalloc with, for example,
 *   MALLOC_CONF=prof:true,prof_prefix:DIR/series,lg_prof_interval:20,lg_prof_sample:0
 * so jemalloc writes DIR/series.PID.SEQ.iN.heap every MiB allocated. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK (64 * 1024)

struct blocks {
	void **p;
	size_t n, cap;
};

static struct blocks cache, spike;

static int keep(struct blocks *b, void *p)
{
	if (!p)
		return -1;
	if (b->n == b->cap) {
		size_t nc = b->cap ? b->cap * 2 : 256;
		void **np = realloc(b->p, nc * sizeof *np);
		if (!np)
			return -1;
		b->p = np;
		b->cap = nc;
	}
	b->p[b->n++] = p;
	return 0;
}

/* The steady growth the tests expect on top of the growth profile. */
__attribute__((noinline)) void *grow_cache(size_t n);
__attribute__((noinline)) void *grow_cache(size_t n)
{
	char *p = malloc(n);

	if (p)
		memset(p, 1, n);
	return p;
}

/* The spike the tests expect on top of the peak snapshot. */
__attribute__((noinline)) void *spike_alloc(size_t n);
__attribute__((noinline)) void *spike_alloc(size_t n)
{
	char *p = malloc(n);

	if (p)
		memset(p, 2, n);
	return p;
}

static int dump(void)
{
	int (*ctl)(const char *, void *, size_t *, void *, size_t) =
		(int (*)(const char *, void *, size_t *, void *, size_t))dlsym(RTLD_DEFAULT, "mallctl");

	return ctl && ctl("prof.dump", NULL, NULL, NULL, 0) == 0 ? 0 : -1;
}

int main(void)
{
	char line[256];
	long n, i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while (fgets(line, sizeof line, stdin)) {
		int rc = 0;

		if (sscanf(line, "grow %ld", &n) == 1) {
			for (i = 0; i < n && rc == 0; i++)
				rc = keep(&cache, grow_cache(BLOCK));
		} else if (sscanf(line, "spike %ld", &n) == 1) {
			for (i = 0; i < n && rc == 0; i++)
				rc = keep(&spike, spike_alloc(BLOCK));
		} else if (strncmp(line, "unspike", 7) == 0) {
			for (i = 0; i < (long)spike.n; i++)
				free(spike.p[i]);
			spike.n = 0;
		} else if (strncmp(line, "dump", 4) == 0) {
			rc = dump();
		} else if (strncmp(line, "quit", 4) == 0) {
			break;
		} else {
			rc = -1;
		}
		puts(rc == 0 ? "ok" : "error");
	}
	return 0;
}
