/* SPDX-License-Identifier: MIT */
/* Our share of a scrape, without jemalloc's dump: a raw dump read once,
 * then N times parsed, symbolized (with one module cache, as the hook
 * does, or none) and encoded to pprof at the hook's level, each round's
 * CPU (getrusage: every thread, the lookup pool's included) and wall time
 * printed. The pprof options are the hook's (capture/serve_profile.c's
 * pprof_opts: gzip level 1, at most 16000 samples, FK_HOOK_MAX_SAMPLES).
 * Used by bench/scrape.sh.
 *   scrape-bench [--no-cache] DUMP N
 * prints one "round cpu_ms wall_ms vmrss_kb" line per round. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "input.h"
#include "io.h"
#include "pprof_enc.h"
#include "symbolize.h"

static double cpu_ms(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

static double wall_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static long vmrss_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "VmRSS: %ld", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

/* One scrape's conversion; 0 or -1. */
static int round_once(const char *data, size_t len, struct fk_symcache *c)
{
	struct fk_profile *p = fk_profile_new("heap");
	struct fk_symbolize_opts so = { .cache = c };
	struct fk_pprof_opts po = { .level = 1, .source = "flamekit-hook", .max_samples = 16000 };
	struct fk_err err;
	unsigned char *out = NULL;
	size_t outlen = 0;
	int rc = -1;

	fk_err_init(&err, "heap");
	if (p && fk_profile_parse(p, data, len, &err) == 0 && fk_symbolize(p, &so, &err) == 0 &&
	    fk_pprof_encode(p, &po, &out, &outlen, &err) == 0)
		rc = 0;
	if (rc != 0)
		fprintf(stderr, "scrape-bench: %s\n", err.msg);
	free(out);
	fk_profile_free(p);
	return rc;
}

int main(int argc, char **argv)
{
	int nocache = argc > 1 && strcmp(argv[1], "--no-cache") == 0;
	if (argc - nocache != 3) {
		fprintf(stderr, "usage: scrape-bench [--no-cache] DUMP N\n");
		return 2;
	}
	const char *path = argv[1 + nocache];
	long n = strtol(argv[2 + nocache], NULL, 10);
	char *data;
	size_t len;
	int mapped;
	struct fk_err err;
	fk_err_init(&err, path);
	if (fk_map_input(path, &data, &len, &mapped, &err) != 0) {
		fprintf(stderr, "scrape-bench: %s: %s\n", path, err.msg);
		return 1;
	}
	struct fk_symcache *c = nocache ? NULL : fk_symcache_new((size_t)64 << 20);
	for (long i = 0; i < n; i++) {
		double c0 = cpu_ms(), w0 = wall_ms();
		if (round_once(data, len, c) != 0)
			return 1;
		printf("%ld %.2f %.2f %ld\n", i + 1, cpu_ms() - c0, wall_ms() - w0, vmrss_kb());
	}
	fk_symcache_free(c);
	fk_release_input(data, len, mapped);
	return 0;
}
