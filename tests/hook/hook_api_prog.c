/* SPDX-License-Identifier: MIT */
/* Drives libflamekit-hook's C API (flamekit_hook.h) from a program that
 * links it, printing one "key value" line per step for tests/hook/api.t:
 *   hook-api-prog [ADDR]   serve on ADDR meanwhile when given */
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jemalloc/jemalloc.h>

#include "flamekit_hook.h"

static void *blocks[256];

__attribute__((noinline)) void *api_site_alloc(size_t n);
__attribute__((noinline)) void *api_site_alloc(size_t n)
{
	char *p = malloc(n);

	if (p)
		memset(p, 2, n);
	return p;
}

static void status(const char *when)
{
	struct fk_hook_status st;

	if (fk_hook_status(&st) < 0) {
		printf("%s.status failed\n", when);
		return;
	}
	printf("%s.found %d\n%s.compiled %d\n%s.started %d\n%s.active %d\n"
	       "%s.lg_sample %d\n%s.dumps %lu\n%s.serving %d\n%s.since %s\n",
	       when, st.jemalloc_found, when, st.prof_compiled, when, st.prof_started,
	       when, st.active, when, st.lg_sample, when, st.dumps_served,
	       when, st.serving, when, st.active_seconds >= 0 ? "yes" : "no");
}

/* The bytes the calling thread's arena holds (its small and large
 * allocations), its arena and whether its cache is on: what a dump made on
 * this thread must leave as they were (the hook works in its own arena). */
static long long arena_held(unsigned *arena, int *tcache)
{
	uint64_t epoch = 1;
	size_t small = 0, large = 0, sz = sizeof *arena;
	bool tc = false;
	char name[64];

	*arena = 0;
	mallctl("thread.arena", arena, &sz, NULL, 0);
	sz = sizeof tc;
	mallctl("thread.tcache.enabled", &tc, &sz, NULL, 0);
	*tcache = tc;
	mallctl("epoch", NULL, NULL, &epoch, sizeof epoch);
	snprintf(name, sizeof name, "stats.arenas.%u.small.allocated", *arena);
	sz = sizeof small;
	mallctl(name, &small, &sz, NULL, 0);
	snprintf(name, sizeof name, "stats.arenas.%u.large.allocated", *arena);
	sz = sizeof large;
	mallctl(name, &large, &sz, NULL, 0);
	return (long long)(small + large);
}

int main(int argc, char **argv)
{
	char err[256] = "";
	char path[] = "/tmp/fk-api-XXXXXX";
	int fd, rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1) {
		rc = fk_hook_start(argv[1], err, sizeof err);
		printf("start %d %s\n", rc, rc ? err : "");
		rc = fk_hook_start(argv[1], err, sizeof err);
		printf("start_again %d\n", rc);
	}
	status("before");
	rc = fk_hook_dump(1, "raw", err, sizeof err);
	printf("dump_inactive %d %s\n", rc, err);
	rc = fk_hook_set_mallctl(NULL, err, sizeof err);
	printf("set_mallctl_null %d %s\n", rc, err);
	rc = fk_hook_set_mallctl(mallctl, err, sizeof err);
	printf("set_mallctl %d %s\n", rc, rc ? err : "");
	rc = fk_hook_set_active(1, 12, err, sizeof err);
	printf("activate %d %s\n", rc, rc ? err : "");
	for (int i = 0; i < 256; i++)
		blocks[i] = api_site_alloc(16384);
	status("active");
	rc = fk_hook_dump(1, "nonsense", err, sizeof err);
	printf("dump_badformat %d %s\n", rc, err);
	fd = mkstemp(path);
	rc = fk_hook_dump(fd, "raw", err, sizeof err);
	printf("dump_raw %d %s\n", rc, rc ? err : "");
	close(fd);
	printf("dump_file %s\n", path);
	if (argc > 2)
		sleep((unsigned)atoi(argv[2]));
	rc = fk_hook_set_active(0, -1, err, sizeof err);
	printf("deactivate %d\n", rc);
	status("after");
	unsigned a0, a1;
	int tc0, tc1;
	long long held = arena_held(&a0, &tc0);
	fd = open("/dev/null", O_WRONLY);
	rc = fk_hook_dump(fd, "pprof", err, sizeof err);
	printf("dump_after_off %d %s\n", rc, rc ? err : "");
	close(fd);
	held = arena_held(&a1, &tc1) - held;
	printf("dump_host_growth %lld\ndump_thread_kept %d\n", held, a0 == a1 && tc0 == tc1);
	fk_hook_stop();
	status("stopped");
	for (int i = 0; i < 256; i++)
		free(blocks[i]);
	return 0;
}
