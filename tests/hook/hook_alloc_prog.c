/* SPDX-License-Identifier: MIT */
/* A test host for libflamekit-hook: allocates on command, in functions
 * with distinctive names the tests look for in profiles. Run it preloaded:
 *   LD_PRELOAD="libjemalloc.so.2 libflamekit-hook.so" hook-alloc-prog
 * and write commands to its stdin, one a line; it answers each on stdout:
 *   grow N     keep N more 64 KiB blocks, allocated in hog_grow_cache
 *   small N S  keep N more blocks of S bytes (1 to 4096), allocated in
 *              hog_small_object: what sampling's own cost is measured on
 *   churn S    two threads malloc/free in churn_worker for S seconds
 *   fork       fork a child that lives 6 s more (it must not serve)
 *   termexit   from now on SIGTERM makes a thread of the program call
 *              exit(0), as a service's shutdown handling does
 *   free       release the blocks kept so far, and their list
 *   fill N     open /dev/null until the descriptor limit, then close N
 *              (the host at its limit but for N)
 *   unfill     close what fill opened
 *   nofile N   set the soft RLIMIT_NOFILE to N (the limit applies to the
 *              hook's own descriptor table too)
 *   quit       stop churning and exit 0 (also at end of input) */
#include <fcntl.h>
#include <sys/resource.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "prog_keep.h"

#define BLOCK (64 * 1024)

static int filled[65536];
static size_t nfilled;

/* The allocation site the tests expect on top of the profile. */
__attribute__((noinline)) void *hog_grow_cache(size_t n);
__attribute__((noinline)) void *hog_grow_cache(size_t n)
{
	char *p = malloc(n);

	if (p)
		memset(p, 1, n);
	return p;
}

__attribute__((noinline)) void *hog_small_object(size_t n);
__attribute__((noinline)) void *hog_small_object(size_t n)
{
	char *p = malloc(n);

	if (p)
		memset(p, 2, n);
	return p;
}

__attribute__((noinline)) static int hog_outer(long n)
{
	for (long i = 0; i < n; i++)
		if (keep(hog_grow_cache(BLOCK)) < 0)
			return -1;
	return 0;
}

static double churn_until;
/* Set on quit: the churn threads stop early, so that quitting is prompt. */
static atomic_int churn_stop;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void *churn_worker(void *arg);
__attribute__((noinline)) void *churn_worker(void *arg)
{
	void *slots[64] = { 0 };
	unsigned seed = (unsigned)(size_t)arg;

	while (!atomic_load(&churn_stop) && now() < churn_until) {
		for (int i = 0; i < 10000; i++) {
			unsigned r = (unsigned)rand_r(&seed);
			unsigned k = r % 64;

			free(slots[k]);
			slots[k] = malloc(16 + (r >> 8) % 8192);
		}
	}
	for (int k = 0; k < 64; k++)
		free(slots[k]);
	return NULL;
}

/* Waits for SIGTERM (blocked in every other thread of the program) and
 * exits the way a service does on shutdown: exit() from a normal thread,
 * running every destructor, while the other threads go on. */
static void *term_waiter(void *arg)
{
	sigset_t *set = arg;
	int sig;

	if (sigwait(set, &sig) == 0) {
		printf("terminating\n");
		exit(0);
	}
	return NULL;
}

int main(void)
{
	static sigset_t termset;
	char line[128];
	pthread_t th[2];
	int churning = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("ready %ld\n", (long)getpid());
	while (fgets(line, sizeof line, stdin)) {
		long n = 0, size = 0;

		if (sscanf(line, "small %ld %ld", &n, &size) == 2 && size >= 1 && size <= 4096) {
			int rc = 0;

			for (long i = 0; i < n && rc == 0; i++)
				rc = keep(hog_small_object((size_t)size));
			printf(rc == 0 ? "kept %zu\n" : "failed %zu\n", nkept);
		} else if (sscanf(line, "grow %ld", &n) == 1) {
			int rc = hog_outer(n);

			printf(rc == 0 ? "grown %zu\n" : "failed %zu\n", nkept);
		} else if (sscanf(line, "churn %ld", &n) == 1) {
			if (churning)
				for (int i = 0; i < 2; i++)
					pthread_join(th[i], NULL);
			churn_until = now() + (double)n;
			for (int i = 0; i < 2; i++)
				pthread_create(&th[i], NULL, churn_worker, (void *)(size_t)(i + 1));
			churning = 1;
			printf("churning\n");
		} else if (strcmp(line, "fork\n") == 0) {
			pid_t pid = fork();

			if (pid == 0) {
				/* Outlives the parent; must hold no server socket. */
				sleep(6);
				_exit(0);
			}
			printf("forked %ld\n", (long)pid);
		} else if (strcmp(line, "termexit\n") == 0) {
			pthread_t tw;

			sigemptyset(&termset);
			sigaddset(&termset, SIGTERM);
			pthread_sigmask(SIG_BLOCK, &termset, NULL);
			pthread_create(&tw, NULL, term_waiter, &termset);
			printf("termexit armed\n");
		} else if (sscanf(line, "fill %ld", &n) == 1) {
			int fd;

			while ((fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0) {
				if (nfilled == sizeof filled / sizeof filled[0]) {
					close(fd);
					break;
				}
				filled[nfilled++] = fd;
			}
			for (; n > 0 && nfilled > 0; n--)
				close(filled[--nfilled]);
			printf("filled %zu\n", nfilled);
		} else if (sscanf(line, "nofile %ld", &n) == 1) {
			struct rlimit rl;

			getrlimit(RLIMIT_NOFILE, &rl);
			rl.rlim_cur = (rlim_t)n;
			printf(setrlimit(RLIMIT_NOFILE, &rl) == 0 ? "nofile %ld\n" : "nofile failed %ld\n", n);
		} else if (strcmp(line, "unfill\n") == 0) {
			while (nfilled > 0)
				close(filled[--nfilled]);
			printf("unfilled\n");
		} else if (strcmp(line, "free\n") == 0) {
			keep_free();
			printf("freed\n");
		} else if (strcmp(line, "quit\n") == 0) {
			break;
		} else {
			printf("unknown\n");
		}
	}
	atomic_store(&churn_stop, 1);
	if (churning)
		for (int i = 0; i < 2; i++)
			pthread_join(th[i], NULL);
	printf("bye\n");
	return 0;
}
