/* SPDX-License-Identifier: MIT */
/* The sampling state: when sampling was turned on, whether anything can
 * have been sampled since start or the last reset, the dumps served; and
 * the settings carried across exec. A process that execs itself in
 * the same pid (a shell or pyenv shim exec'ing the real program) starts a
 * fresh jemalloc and a fresh hook, which would silently undo what a
 * request had set moments before. The process serving FLAMEKIT_HTTP keeps
 * its settings in a small file named after its pid and start time (what
 * an exec keeps and no other process has), mode 0600, in a folder of its
 * user's alone: "flamekit-hook.UID", mode 0700, in /dev/shm or the
 * temporary folder, made by the hook and checked before each use (its
 * owner, its mode, not a link). No other user can plant a name there, and
 * no open can block (O_NONBLOCK: a FIFO is refused, not waited on). The
 * hook of the next image of the same process reads the file before it
 * serves its first request. The record also carries the name of the
 * program's process group (hook_group.c), written when the listener
 * starts: the next image keeps it, and the workers forked before the
 * exec rejoin it. No descriptor is held: nothing leaks into
 * exec'd children, and a host that closes every descriptor cannot have
 * the hook write into one of its own files. */
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

#define STATE_PREFIX "state."

struct state {
	char magic[8];
	int64_t pid;
	uint64_t start;
	int32_t enabled;           /* -1: never set */
	int32_t lg_sample;         /* -1: never set */
	int64_t first_uid;         /* the group's first user; -1: no group */
	char group[FK_GROUP_NAME_MAX];  /* the group's name, NUL-terminated */
};
#define STATE_MAGIC "fkstate4"

/* The user folder, "" when there is none to trust, and this process's
 * file in it, "" when none (a forked child). */
static struct {
	char dir[320];
	char name[64];
	uint64_t start;
	/* The group the last image left (or this one saved), "" none. */
	char group[FK_GROUP_NAME_MAX];
	uid_t group_uid;
	/* Held only to read or write these, never around a call. */
	pthread_mutex_t mu;
	double active_since;
	int sampled;
	unsigned long dumps;
} st = { .mu = PTHREAD_MUTEX_INITIALIZER, .active_since = -1 };

void fk_state_note_active(int active, int reset)
{
	pthread_mutex_lock(&st.mu);
	if (reset)
		st.sampled = 0;
	if (!active)
		st.active_since = -1;
	else if (st.active_since < 0 || reset)
		st.active_since = fk_now();
	if (active)
		st.sampled = 1;
	pthread_mutex_unlock(&st.mu);
}

double fk_state_active_since(void)
{
	double t;

	pthread_mutex_lock(&st.mu);
	t = st.active_since;
	pthread_mutex_unlock(&st.mu);
	return t;
}

int fk_state_sampled(void)
{
	int s, active = 0;

	pthread_mutex_lock(&st.mu);
	s = st.sampled;
	pthread_mutex_unlock(&st.mu);
	/* Sampling turned on by the program or its MALLOC_CONF counts too. */
	if (!s && fk_je_get_active(&active, NULL) == 0 && active) {
		fk_state_note_active(1, 0);
		s = 1;
	}
	return s;
}

void fk_state_note_dump(void)
{
	pthread_mutex_lock(&st.mu);
	st.dumps++;
	pthread_mutex_unlock(&st.mu);
}

unsigned long fk_state_dumps(void)
{
	unsigned long n;

	pthread_mutex_lock(&st.mu);
	n = st.dumps;
	pthread_mutex_unlock(&st.mu);
	return n;
}

/* The base folder of the user folders: /dev/shm, else TMPDIR, else /tmp. */
static const char *base_dir(void)
{
	const char *t = fk_env_get()->tmpdir;

	if (access("/dev/shm", W_OK | X_OK) == 0)
		return "/dev/shm";
	return *t == '/' ? t : "/tmp";
}

/* fd, when it is open on a file of type (S_IFDIR, S_IFREG) of this
 * user's with exactly mode; else -1 (fd closed). */
static int owned(int fd, mode_t type, mode_t mode)
{
	struct stat sb;

	if (fd < 0)
		return -1;
	if (fstat(fd, &sb) < 0 || (sb.st_mode & S_IFMT) != type || sb.st_uid != geteuid() ||
	    (sb.st_mode & 07777) != mode) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Opens the user folder st.dir: a folder, not a symbolic link, of this
 * user's, mode 0700, so that no other user can have made or changed a
 * name in it. An open of a folder never blocks. Returns the descriptor
 * (the caller closes it), or -1. */
static int open_dir(void)
{
	if (!st.dir[0])
		return -1;
	return owned(open(st.dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC),
		      S_IFDIR, 0700);
}

/* Makes the user folder if it is missing and opens it as open_dir does:
 * its descriptor, or -1 with st.dir "" and one line on stderr when the
 * name is taken by something that is not this user's private folder
 * (another user may have made it first, in a folder every user can
 * write). */
static int make_dir(void)
{
	struct stat sb;
	int fd;

	if (mkdir(st.dir, 0700) == 0) {
		/* A umask may have taken bits away; never adds any. */
		if (chmod(st.dir, 0700) < 0) {
			/* open_dir refuses it below */
		}
	}
	fd = open_dir();
	if (fd >= 0)
		return fd;
	if (lstat(st.dir, &sb) < 0)
		fk_log("cannot make %s (%s): settings set over HTTP will not survive an exec",
		       st.dir, strerror(errno));
	else
		fk_log("%s is not a private folder of this user's (%s of uid %lu, mode %04o): "
		       "settings set over HTTP will not survive an exec", st.dir,
		       S_ISLNK(sb.st_mode) ? "a symbolic link" : S_ISDIR(sb.st_mode) ?
		       "a folder" : "not a folder", (unsigned long)sb.st_uid,
		       (unsigned)(sb.st_mode & 07777));
	st.dir[0] = '\0';
	return -1;
}

/* Removes the files of this user's processes that are gone (killed
 * before their exit could remove them), and temporaries left by a save
 * that was cut short. */
static void sweep(int dfd)
{
	int fd = dup(dfd);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *e;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((e = readdir(d)) != NULL) {
		uint64_t pid, start;
		const char *f = e->d_name + sizeof STATE_PREFIX - 1, *dot;

		if (strncmp(e->d_name, STATE_PREFIX, sizeof STATE_PREFIX - 1) != 0 ||
		    !(dot = strchr(f, '.')) ||
		    fk_parse_u64(f, (size_t)(dot - f), &pid) < 0 || pid > INT32_MAX)
			continue;
		/* "state.PID.START", or "state.PID.START.tmp" */
		if (fk_parse_u64(dot + 1, strcspn(dot + 1, "."), &start) < 0 ||
		    fk_proc_start((pid_t)pid) == start)
			continue;
		unlinkat(dfd, e->d_name, 0);
	}
	closedir(d);
}

/* Opens name in the user folder dfd for reading, without following a
 * link or blocking on a FIFO, and checks that it is a regular file of
 * this user's with mode 0600. Returns the descriptor, or -1. */
static int open_file(int dfd, const char *name)
{
	return owned(openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC),
		     S_IFREG, 0600);
}

/* Reads this process's file in the user folder dfd into s: 0, or -1 when
 * it is missing, not a regular file of this user's with mode 0600, or not
 * this process's. */
static int read_state(int dfd, struct state *s)
{
	int fd = open_file(dfd, st.name), rc = -1;

	if (fd < 0)
		return -1;
	if (pread(fd, s, sizeof *s, 0) == (ssize_t)sizeof *s &&
	    memcmp(s->magic, STATE_MAGIC, 8) == 0 && s->pid == (int64_t)getpid() &&
	    s->start == st.start && memchr(s->group, '\0', sizeof s->group))
		rc = 0;
	close(fd);
	return rc;
}

int fk_state_init(void)
{
	struct state s;
	int dfd, rc = 0;

	st.start = fk_proc_start(getpid());
	if (!st.start)
		return 0;
	snprintf(st.dir, sizeof st.dir, "%s/flamekit-hook.%lu", base_dir(),
		 (unsigned long)geteuid());
	snprintf(st.name, sizeof st.name, STATE_PREFIX "%ld.%llu", (long)getpid(),
		 (unsigned long long)st.start);
	if ((dfd = make_dir()) < 0)
		return 0;
	if (read_state(dfd, &s) == 0) {
		rc = 1;
		if (s.first_uid >= 0 && s.group[0]) {
			snprintf(st.group, sizeof st.group, "%s", s.group);
			st.group_uid = (uid_t)s.first_uid;
		}
	} else {
		sweep(dfd);
	}
	close(dfd);
	return rc;
}

int fk_state_group(char *name, size_t size, uid_t *first_uid)
{
	if (!st.group[0] || !st.name[0])
		return -1;
	snprintf(name, size, "%s", st.group);
	*first_uid = st.group_uid;
	return 0;
}

/* Writes s as this process's file in the user folder dfd. */
static void write_state(int dfd, const struct state *s)
{
	char tmp[sizeof st.name + 8];
	int fd;

	/* Written beside and renamed: a reader sees the old or the new. The
	 * folder is this user's alone, so a fixed temporary name is safe;
	 * one left by a save cut short is replaced. */
	snprintf(tmp, sizeof tmp, "%s.tmp", st.name);
	unlinkat(dfd, tmp, 0);
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
		    0600);
	if (fd >= 0 && (fchmod(fd, 0600) < 0 || write(fd, s, sizeof *s) != (ssize_t)sizeof *s ||
			close(fd) < 0 || renameat(dfd, tmp, dfd, st.name) < 0)) {
		/* A lost save only loses the carry-over. */
		unlinkat(dfd, tmp, 0);
	}
}

/* Opens the user folder and reads this process's record into s, or
 * makes a new one (nothing set, no group): the folder's descriptor, or
 * -1 when there is no file to keep (no folder, a forked child). */
static int open_record(struct state *s)
{
	int dfd = st.name[0] ? open_dir() : -1;

	if (dfd < 0)
		return -1;
	if (read_state(dfd, s) < 0) {
		memset(s, 0, sizeof *s);
		memcpy(s->magic, STATE_MAGIC, 8);
		s->pid = getpid();
		s->start = st.start;
		s->enabled = s->lg_sample = -1;
		s->first_uid = -1;
	}
	return dfd;
}

void fk_state_save(int enabled, int lg_sample)
{
	struct state s;
	int dfd = open_record(&s);

	if (dfd < 0)
		return;
	s.enabled = enabled;
	if (lg_sample >= 0)
		s.lg_sample = lg_sample;
	write_state(dfd, &s);
	close(dfd);
}

void fk_state_save_group(const char *name, uid_t first_uid)
{
	struct state s;
	int dfd = open_record(&s);

	if (dfd < 0)
		return;
	snprintf(s.group, sizeof s.group, "%s", name);
	s.first_uid = first_uid;
	snprintf(st.group, sizeof st.group, "%s", name);
	st.group_uid = first_uid;
	write_state(dfd, &s);
	close(dfd);
}

void fk_state_restore(void)
{
	struct state s;
	struct fk_err err;

	int dfd = st.name[0] ? open_dir() : -1, rc = dfd < 0 ? -1 : read_state(dfd, &s);

	if (dfd >= 0)
		close(dfd);
	if (rc < 0 || s.enabled < 0)
		return;
	if (fk_je_check(NULL) != FK_JE_OK)
		return;
	fk_err_init(&err, NULL);
	if (fk_je_set_active(s.enabled, s.lg_sample, &err) == 0)
		fk_state_note_active(s.enabled, s.lg_sample >= 0);
}

void fk_state_forget(int remove)
{
	int dfd = remove && st.name[0] ? open_dir() : -1;

	if (dfd >= 0) {
		unlinkat(dfd, st.name, 0);
		close(dfd);
	}
	st.name[0] = '\0';
}

void fk_state_atfork(int phase)
{
	if (phase == 0)
		pthread_mutex_lock(&st.mu);
	else
		pthread_mutex_unlock(&st.mu);
}
