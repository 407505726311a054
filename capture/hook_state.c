/* SPDX-License-Identifier: MIT */
/* The sampling state: when sampling was turned on, whether anything can
 * have been sampled since start or the last reset, the dumps served; and
 * the settings carried across exec. A process that execs itself in
 * the same pid (a shell or pyenv shim exec'ing the real program) starts a
 * fresh jemalloc and a fresh hook, which would silently undo what a
 * request had set moments before. The process serving FLAMEKIT_HTTP keeps
 * its settings in a small file named after its user, pid and start time
 * (what an exec keeps and no other process has), mode 0600, in /dev/shm
 * or the temporary directory; the hook of the next image of the same
 * process reads it before it serves its first request. No descriptor is
 * held: nothing leaks into exec'd children, and a host that closes every
 * descriptor cannot have the hook write into one of its own files. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hook_int.h"
#include "num.h"

#define STATE_PREFIX "flamekit-hook-state."

struct state {
	char magic[8];
	int64_t pid;
	uint64_t start;
	int32_t enabled;           /* -1: never set */
	int32_t lg_sample;         /* -1: never set */
};

/* The file of this process, "" when none (a forked child, or no place). */
static char st_path[512];
static uint64_t st_start;

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

/* The folder for state files: /dev/shm, else TMPDIR, else /tmp. */
static const char *state_dir(void)
{
	const char *t = getenv("TMPDIR");

	if (access("/dev/shm", W_OK | X_OK) == 0)
		return "/dev/shm";
	return t && *t == '/' ? t : "/tmp";
}

/* Removes the files of this user's processes that are gone (killed
 * before their exit could remove them). */
static void sweep(const char *dir)
{
	char mine[64];
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n;

	if (!d)
		return;
	n = (size_t)snprintf(mine, sizeof mine, STATE_PREFIX "%lu.", (unsigned long)geteuid());
	while ((e = readdir(d)) != NULL) {
		uint64_t pid, start;
		const char *f = e->d_name + n, *dot;
		char path[600];

		if (strncmp(e->d_name, mine, n) != 0 || !(dot = strchr(f, '.')) ||
		    fk_parse_u64(f, (size_t)(dot - f), &pid) < 0 ||
		    fk_parse_u64(dot + 1, strlen(dot + 1), &start) < 0)
			continue;
		if (fk_proc_start((pid_t)pid) == start)
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		unlink(path);
	}
	closedir(d);
}

/* Reads the file at st_path into s: 0, or -1 when it is missing, not a
 * regular file of this user's with mode 0600, or not this process's. */
static int read_state(struct state *s)
{
	struct stat sb;
	int fd = open(st_path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW), rc = -1;

	if (fd < 0)
		return -1;
	if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_uid == geteuid() &&
	    (sb.st_mode & 0777) == 0600 && pread(fd, s, sizeof *s, 0) == (ssize_t)sizeof *s &&
	    memcmp(s->magic, "fkstate2", 8) == 0 && s->pid == (int64_t)getpid() &&
	    s->start == st_start)
		rc = 0;
	close(fd);
	return rc;
}

int fk_state_init(void)
{
	struct state s;
	const char *dir = state_dir();

	st_start = fk_proc_start(getpid());
	if (!st_start)
		return 0;
	snprintf(st_path, sizeof st_path, "%s/" STATE_PREFIX "%lu.%ld.%llu", dir,
		 (unsigned long)geteuid(), (long)getpid(), (unsigned long long)st_start);
	if (read_state(&s) == 0)
		return 1;
	sweep(dir);
	return 0;
}

void fk_state_save(int enabled, int lg_sample)
{
	struct state s;
	char tmp[600];
	int fd;

	if (!st_path[0])
		return;
	if (read_state(&s) < 0) {
		memset(&s, 0, sizeof s);
		memcpy(s.magic, "fkstate2", 8);
		s.pid = getpid();
		s.start = st_start;
		s.lg_sample = -1;
	}
	s.enabled = enabled;
	if (lg_sample >= 0)
		s.lg_sample = lg_sample;
	/* Written beside and renamed: a reader sees the old or the new. */
	snprintf(tmp, sizeof tmp, "%s.XXXXXX", st_path);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return;
	if (fchmod(fd, 0600) < 0 || write(fd, &s, sizeof s) != (ssize_t)sizeof s ||
	    close(fd) < 0 || rename(tmp, st_path) < 0) {
		/* A lost save only loses the carry-over. */
		unlink(tmp);
	}
}

void fk_state_restore(void)
{
	struct state s;
	struct fk_err err;

	if (!st_path[0] || read_state(&s) < 0 || s.enabled < 0)
		return;
	if (fk_je_check(NULL) != FK_JE_OK)
		return;
	fk_err_init(&err, NULL);
	if (fk_je_set_active(s.enabled, s.lg_sample, &err) == 0)
		fk_state_note_active(s.enabled, s.lg_sample >= 0);
}

void fk_state_forget(int remove)
{
	if (remove && st_path[0])
		unlink(st_path);
	st_path[0] = '\0';
}

void fk_state_atfork(int phase)
{
	if (phase == 0)
		pthread_mutex_lock(&st_mu);
	else
		pthread_mutex_unlock(&st_mu);
}
