/* SPDX-License-Identifier: MIT */
/* The sampling state: when sampling was turned on, whether anything can
 * have been sampled since start or the last reset, the dumps served; and
 * the settings carried across exec. A process that execs itself in
 * the same pid (a shell or pyenv shim exec'ing the real program) starts a
 * fresh jemalloc and a fresh hook, which would silently undo what a
 * request had set moments before. The process serving FLAMEKIT_HTTP keeps
 * its settings in a small memfd that survives exec; the hook of the next
 * image finds it by name, checks that the pid is its own, and applies the
 * settings before it serves its first request. */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hook_int.h"
#include "num.h"

#define STATE_NAME "flamekit-hook-state"

struct state {
	char magic[8];
	int64_t pid;
	int32_t enabled;           /* -1: never set */
	int32_t lg_sample;         /* -1: never set */
};

static int st_fd = -1;

/* Held only to read or write these, never around a call. */
static pthread_mutex_t st_mu = PTHREAD_MUTEX_INITIALIZER;
static double active_since = -1;
static int sampled;
static unsigned long dumps;

void fk_state_note_active(int active, int reset)
{
	pthread_mutex_lock(&st_mu);
	if (reset)
		sampled = 0;
	if (!active)
		active_since = -1;
	else if (active_since < 0 || reset)
		active_since = fk_now();
	if (active)
		sampled = 1;
	pthread_mutex_unlock(&st_mu);
}

double fk_state_active_since(void)
{
	double t;

	pthread_mutex_lock(&st_mu);
	t = active_since;
	pthread_mutex_unlock(&st_mu);
	return t;
}

int fk_state_sampled(void)
{
	int s, active = 0;

	pthread_mutex_lock(&st_mu);
	s = sampled;
	pthread_mutex_unlock(&st_mu);
	/* Sampling turned on by the program or its MALLOC_CONF counts too. */
	if (!s && fk_je_get_active(&active, NULL) == 0 && active) {
		fk_state_note_active(1, 0);
		s = 1;
	}
	return s;
}

void fk_state_note_dump(void)
{
	pthread_mutex_lock(&st_mu);
	dumps++;
	pthread_mutex_unlock(&st_mu);
}

unsigned long fk_state_dumps(void)
{
	unsigned long n;

	pthread_mutex_lock(&st_mu);
	n = dumps;
	pthread_mutex_unlock(&st_mu);
	return n;
}

/* The inherited state file, or -1. */
static int find_inherited(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	char path[64], link[128];
	int found = -1;

	if (!d)
		return -1;
	while ((e = readdir(d)) != NULL && found < 0) {
		uint64_t v;
		ssize_t n;
		int fd;

		if (fk_parse_u64(e->d_name, strlen(e->d_name), &v) < 0 || v > INT32_MAX)
			continue;
		fd = (int)v;
		if (fd == dirfd(d))
			continue;
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
		n = readlink(path, link, sizeof link - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		if (strncmp(link, "/memfd:" STATE_NAME, sizeof "/memfd:" STATE_NAME - 1) == 0)
			found = fd;
	}
	closedir(d);
	return found;
}

static int read_state(int fd, struct state *s)
{
	return pread(fd, s, sizeof *s, 0) == (ssize_t)sizeof *s &&
	       memcmp(s->magic, "fkstate1", 8) == 0 ? 0 : -1;
}

int fk_state_init(void)
{
	struct state s;
	int fd = find_inherited();

	if (fd >= 0) {
		if (read_state(fd, &s) == 0 && s.pid == (int64_t)getpid()) {
			st_fd = fd;
			return 1;
		}
		/* Another process's: an exec'd child does not serve. */
		close(fd);
	}
	/* No close-on-exec: surviving exec is the point. */
	fd = memfd_create(STATE_NAME, 0);
	if (fd < 0)
		return 0;
	memset(&s, 0, sizeof s);
	memcpy(s.magic, "fkstate1", 8);
	s.pid = getpid();
	s.enabled = -1;
	s.lg_sample = -1;
	if (pwrite(fd, &s, sizeof s, 0) != (ssize_t)sizeof s) {
		close(fd);
		return 0;
	}
	st_fd = fd;
	return 0;
}

void fk_state_save(int enabled, int lg_sample)
{
	struct state s;

	if (st_fd < 0 || read_state(st_fd, &s) < 0)
		return;
	s.enabled = enabled;
	if (lg_sample >= 0)
		s.lg_sample = lg_sample;
	if (pwrite(st_fd, &s, sizeof s, 0) != (ssize_t)sizeof s) {
		/* A lost save only loses the carry-over. */
	}
}

void fk_state_restore(void)
{
	struct state s;
	struct fk_err err;

	if (st_fd < 0 || read_state(st_fd, &s) < 0 || s.enabled < 0)
		return;
	if (fk_je_check(NULL) != FK_JE_OK)
		return;
	fk_err_init(&err, NULL);
	if (fk_je_set_active(s.enabled, s.lg_sample, &err) == 0)
		fk_state_note_active(s.enabled, s.lg_sample >= 0);
}

void fk_state_forget(void)
{
	if (st_fd >= 0)
		close(st_fd);
	st_fd = -1;
}

void fk_state_atfork(int phase)
{
	if (phase == 0)
		pthread_mutex_lock(&st_mu);
	else
		pthread_mutex_unlock(&st_mu);
}
