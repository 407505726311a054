/* SPDX-License-Identifier: MIT */
/* Our share of a scrape, without jemalloc's dump: a raw dump read once,
 * then N times parsed, symbolized (with one module cache, as the hook
 * does, or none) and encoded to pprof at the hook's level, each round's
 * CPU (getrusage: every thread, the lookup pool's included) and wall time
 * printed. The pprof options are the hook's (capture/serve_profile.c's
 * pprof_opts: gzip level 1, at most 16000 samples, FK_HOOK_MAX_SAMPLES).
 * --memo parses through a stack memo and encodes with a pprof memo kept
 * between rounds, as the hook does (core/stackmemo.h, fk_pprof_memo); with a second dump the rounds take the two in
 * turns, so that each round's dump differs from the last (a heap whose
 * counts change between scrapes: bench/scrape.sh's CHANGE).
 * Used by bench/scrape.sh.
 * --out PREFIX writes round i's pprof to PREFIXi.pb.gz (to compare).
 *   scrape-bench [--no-cache] [--memo] [--out PREFIX] DUMP [DUMP2] N
 * prints one "round cpu_ms wall_ms vmrss_kb" line per round. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "heapdump.h"
#include "input.h"
#include "io.h"
#include "pprof_enc.h"
#include "stackmemo.h"
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
static const char *out_prefix;

static int round_once(const char *data, size_t len, struct fk_symcache *c,
		      struct fk_stackmemo *m, struct fk_pprof_memo *pm, long round)
{
	struct fk_profile *p = fk_profile_new("heap");
	struct fk_symbolize_opts so = { .cache = c };
	struct fk_pprof_opts po = { .level = 1, .source = "flamekit-hook", .max_samples = 16000,
				    .memo = pm };
	struct fk_err err;
	unsigned char *out = NULL;
	size_t outlen = 0;
	int rc = -1;

	fk_err_init(&err, "heap");
	if (p && (m ? fk_heapdump_parse_memo(p, data, len, m, &err) : fk_profile_parse(p, data, len, &err)) == 0 &&
	    fk_symbolize(p, &so, &err) == 0 &&
	    fk_pprof_encode(p, &po, &out, &outlen, &err) == 0)
		rc = 0;
	if (rc != 0)
		fprintf(stderr, "scrape-bench: %s\n", err.msg);
	if (rc == 0 && out_prefix) {
		char path[4096];
		FILE *f;

		snprintf(path, sizeof path, "%s%ld.pb.gz", out_prefix, round);
		if (!(f = fopen(path, "wb")) || fwrite(out, 1, outlen, f) != outlen || fclose(f) != 0)
			rc = -1;
	}
	free(out);
	fk_profile_free(p);
	return rc;
}

int main(int argc, char **argv)
{
	int nocache = 0, memo = 0, a = 1;
	for (; a < argc && argv[a][0] == '-'; a++) {
		if (strcmp(argv[a], "--no-cache") == 0)
			nocache = 1;
		else if (strcmp(argv[a], "--memo") == 0)
			memo = 1;
		else if (strcmp(argv[a], "--out") == 0 && a + 1 < argc)
			out_prefix = argv[++a];
		else
			break;
	}
	if (argc - a != 2 && argc - a != 3) {
		fprintf(stderr, "usage: scrape-bench [--no-cache] [--memo] [--out PREFIX] DUMP [DUMP2] N\n");
		return 2;
	}
	int nd = argc - a - 1;
	long n = strtol(argv[argc - 1], NULL, 10);
	char *data[2];
	size_t len[2];
	int mapped[2];
	struct fk_err err;
	for (int d = 0; d < nd; d++) {
		fk_err_init(&err, argv[a + d]);
		if (fk_map_input(argv[a + d], &data[d], &len[d], &mapped[d], &err) != 0) {
			fprintf(stderr, "scrape-bench: %s: %s\n", argv[a + d], err.msg);
			return 1;
		}
	}
	struct fk_symcache *c = nocache ? NULL : fk_symcache_new((size_t)64 << 20);
	struct fk_stackmemo *m = memo ? fk_stackmemo_new((size_t)64 << 20) : NULL;
	struct fk_pprof_memo *pm = memo ? fk_pprof_memo_new((size_t)16 << 20) : NULL;
	for (long i = 0; i < n; i++) {
		double c0 = cpu_ms(), w0 = wall_ms();
		int d = (int)(i % nd);
		if (round_once(data[d], len[d], c, m, pm, i + 1) != 0)
			return 1;
		printf("%ld %.2f %.2f %ld\n", i + 1, cpu_ms() - c0, wall_ms() - w0, vmrss_kb());
	}
	fk_stackmemo_free(m);
	fk_pprof_memo_free(pm);
	fk_symcache_free(c);
	for (int d = 0; d < nd; d++)
		fk_release_input(data[d], len[d], mapped[d]);
	return 0;
}
