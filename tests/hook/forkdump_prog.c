/* SPDX-License-Identifier: MIT */
/* Forks while the hook works (tests/hook/fork-dump.t, issue 33): links
 * libflamekit-hook, serves ADDR and turns sampling on, then for SECONDS
 * runs at once a thread that dumps the heap through fk_hook_dump, a
 * thread that allocates (sampled), and a thread that forks children
 * which allocate, ask the hook's status and exit. A child still there 10
 * s after its fork is stuck (a lock of the hook's copied held into it):
 * it is killed and counted. Prints "ready PID" once serving and, at the
 * end, "done forks=N stuck=N dumps=N failed=N".
 *   forkdump-prog ADDR SECONDS */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "flamekit_hook.h"

static atomic_int stop;
static atomic_long dumps, dump_failed;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void *forkdump_alloc(size_t n);
__attribute__((noinline)) void *forkdump_alloc(size_t n)
{
	char *p = malloc(n);

	if (p)
		memset(p, 1, n);
	return p;
}

static void *dumper(void *arg)
{
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	char err[256];

	(void)arg;
	while (!atomic_load(&stop)) {
		if (fk_hook_dump(fd, "raw", err, sizeof err) == 0)
			atomic_fetch_add(&dumps, 1);
		else
			atomic_fetch_add(&dump_failed, 1);
	}
	close(fd);
	return NULL;
}

static void *allocator(void *arg)
{
	void *keep[512] = { 0 };
	unsigned i = 0;

	(void)arg;
	while (!atomic_load(&stop)) {
		free(keep[i % 512]);
		keep[i % 512] = forkdump_alloc(64 + (i * 37) % 8000);
		i++;
	}
	for (i = 0; i < 512; i++)
		free(keep[i]);
	return NULL;
}

/* Waits up to 10 s for child; kills it and returns 1 when it is stuck. */
static int reap(pid_t child)
{
	double end = now() + 10;
	int st;

	while (now() < end) {
		pid_t r = waitpid(child, &st, WNOHANG);

		if (r == child || r < 0)
			return 0;
		usleep(2000);
	}
	kill(child, SIGKILL);
	waitpid(child, &st, 0);
	return 1;
}

int main(int argc, char **argv)
{
	pthread_t t1, t2;
	char err[256];
	double end;
	long forks = 0, stuck = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: forkdump-prog ADDR SECONDS\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (fk_hook_start(argv[1], err, sizeof err) < 0 ||
	    fk_hook_set_active(1, 10, err, sizeof err) < 0) {
		fprintf(stderr, "forkdump-prog: %s\n", err);
		return 1;
	}
	free(forkdump_alloc(100000));
	printf("ready %ld\n", (long)getpid());
	end = now() + atof(argv[2]);
	pthread_create(&t1, NULL, dumper, NULL);
	pthread_create(&t2, NULL, allocator, NULL);
	while (now() < end) {
		pid_t c = fork();

		if (c == 0) {
			struct fk_hook_status st;

			free(forkdump_alloc(4096));
			fk_hook_status(&st);
			usleep(20000);
			free(forkdump_alloc(4096));
			_exit(0);
		}
		if (c < 0)
			break;
		forks++;
		stuck += reap(c);
	}
	atomic_store(&stop, 1);
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	printf("done forks=%ld stuck=%ld dumps=%ld failed=%ld\n", forks, stuck,
	       atomic_load(&dumps), atomic_load(&dump_failed));
	fk_hook_stop();
	return 0;
}
