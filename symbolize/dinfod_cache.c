/* SPDX-License-Identifier: MIT */
/* The cache of debuginfod clients, laid out as elfutils' libdebuginfod
 * keeps it (so gdb, debuginfod-find and flamekit share it):
 * FOLDER/BUILDID/debuginfo, an empty file a miss noted at its mtime,
 * FOLDER/cache_miss_s the seconds a miss is believed. Every name is
 * opened relative to a folder opened and checked before (ours, not
 * writable by others, not a symbolic link): the hook runs in root
 * services, and a cache under /tmp is another user's to plant in. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "num.h"
#include "symbolize_int.h"

/* libdebuginfod's default for a missing cache_miss_s. */
#define MISS_SECONDS 600

/* Where the cache is, libdebuginfod's way: DEBUGINFOD_CACHE_PATH, else
 * ~/.debuginfod_client_cache when it exists, else
 * $XDG_CACHE_HOME/debuginfod_client, else ~/.cache/debuginfod_client
 * (HOME unset is "/"). The folder above the last two is made when
 * missing. 0, or -1 when the name is too long. */
static int locate(char *buf, size_t n)
{
	const char *v = getenv("DEBUGINFOD_CACHE_PATH");
	const char *home = getenv("HOME");
	struct stat st;
	int k;

	if (v && v[0])
		return (size_t)snprintf(buf, n, "%s", v) < n ? 0 : -1;
	if (!home)
		home = "";
	k = snprintf(buf, n, "%s/.debuginfod_client_cache", home);
	if ((size_t)k < n && stat(buf, &st) == 0 && S_ISDIR(st.st_mode))
		return 0;
	v = getenv("XDG_CACHE_HOME");
	if (v && v[0])
		k = snprintf(buf, n, "%s", v);
	else
		k = snprintf(buf, n, "%s/.cache", home);
	if ((size_t)k >= n)
		return -1;
	(void)mkdir(buf, 0700);
	return (size_t)snprintf(buf + k, n - (size_t)k, "/debuginfod_client") < n - (size_t)k ? 0 : -1;
}

/* Whether the folder open at fd is one only we write to: ours, and
 * writable by no one else (a group's write is the owner's own group's).
 * 0, or -1 with why. */
static int ours(int fd, const char *name, char *why, size_t n)
{
	struct stat st;
	if (fstat(fd, &st) != 0) {
		snprintf(why, n, "cache folder %s: %s", name, strerror(errno));
		return -1;
	}
	if (st.st_uid != geteuid()) {
		snprintf(why, n, "cache folder %s: owned by uid %u, not %u (not used)", name,
			 (unsigned)st.st_uid, (unsigned)geteuid());
		return -1;
	}
	if ((st.st_mode & S_IWOTH) || ((st.st_mode & S_IWGRP) && st.st_gid != getegid())) {
		snprintf(why, n, "cache folder %s: writable by others (not used)", name);
		return -1;
	}
	return 0;
}

/* Opens folder name (below at, or AT_FDCWD), never through a symbolic
 * link, and checks it; shown names it in why. The descriptor, or -1. */
static int open_dir(int at, const char *name, const char *shown, char *why, size_t n)
{
	struct stat st;
	int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		/* O_DIRECTORY is looked at first: a link is "not a folder". */
		if (errno == ELOOP || errno == ENOTDIR)
			snprintf(why, n, "cache folder %s: %s (not used)", shown,
				 fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
				 S_ISLNK(st.st_mode) ? "a symbolic link" : "not a folder");
		else
			snprintf(why, n, "cache folder %s: %s", shown, strerror(errno));
		return -1;
	}
	if (ours(fd, shown, why, n) != 0) {
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}

/* cache_miss_s: digits (and white space after), else the default. */
static uint64_t miss_seconds(int dir)
{
	char buf[32];
	struct stat st;
	ssize_t k = -1;
	uint64_t v;
	int fd = openat(dir, "cache_miss_s", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		k = read(fd, buf, sizeof buf);
	if (fd >= 0)
		close(fd);
	while (k > 0 && (buf[k - 1] == '\n' || buf[k - 1] == ' '))
		k--;
	if (k > 0 && fk_parse_u64(buf, (size_t)k, &v) == 0)
		return v;
	return MISS_SECONDS;
}

int fk_dcache_open(struct fk_dcache *c, char *why, size_t n)
{
	c->dir = -1;
	if (locate(c->path, sizeof c->path) != 0) {
		snprintf(why, n, "cache folder name too long");
		return -1;
	}
	if (mkdir(c->path, 0700) != 0 && errno != EEXIST) {
		snprintf(why, n, "cache folder %s: %s", c->path, strerror(errno));
		return -1;
	}
	c->dir = open_dir(AT_FDCWD, c->path, c->path, why, n);
	if (c->dir < 0)
		return -1;
	c->miss_s = miss_seconds(c->dir);
	return 0;
}

void fk_dcache_close(struct fk_dcache *c)
{
	if (c->dir >= 0)
		close(c->dir);
	c->dir = -1;
}

int fk_dcache_path(const struct fk_dentry *e, const char *name, char *buf, size_t n)
{
	return (size_t)snprintf(buf, n, "%s/%s/%s", e->c->path, e->hex, name) < n ? 0 : -1;
}

int fk_dcache_look(const struct fk_dcache *c, const char *hex, struct fk_dentry *e,
		   int *fd, char *why, size_t n)
{
	char shown[FK_MAX_PATH + 2 * 64 + 2];
	struct stat st;

	memset(e, 0, sizeof *e);
	e->c = c;
	e->dir = e->fd = -1;
	*fd = -1;
	why[0] = '\0';
	snprintf(e->hex, sizeof e->hex, "%s", hex);
	snprintf(shown, sizeof shown, "%s/%s", c->path, hex);
	/* Twice: another client may remove the folder, empty, meanwhile. */
	for (int i = 0; i < 2; i++) {
		if (mkdirat(c->dir, hex, 0700) != 0 && errno != EEXIST)
			break;
		e->dir = open_dir(c->dir, hex, shown, why, n);
		if (e->dir >= 0 || errno != ENOENT)
			break;
	}
	if (e->dir < 0) {
		if (!why[0])
			snprintf(why, n, "cache folder %s: %s", shown, strerror(errno));
		return -1;
	}
	int f = openat(e->dir, "debuginfo", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (f < 0 && errno == ENOENT)
		return FK_DCACHE_NONE;
	if (f < 0 || fstat(f, &st) != 0 || !S_ISREG(st.st_mode)) {
		/* In our own folder, but not a file we would have put there. */
		if (f >= 0)
			close(f);
		(void)unlinkat(e->dir, "debuginfo", 0);
		return FK_DCACHE_NONE;
	}
	if (st.st_size > 0) {
		*fd = f;
		return FK_DCACHE_HIT;
	}
	close(f);
	time_t now = time(NULL);
	if (now >= st.st_mtime && (uint64_t)(now - st.st_mtime) <= c->miss_s)
		return FK_DCACHE_MISS;
	(void)unlinkat(e->dir, "debuginfo", 0);
	return FK_DCACHE_NONE;
}

int fk_dcache_create(struct fk_dentry *e, char *why, size_t n)
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	unsigned char r[6];

	/* Sixteen names (libdebuginfod's debuginfo.XXXXXX), each new. */
	for (int i = 0; i < 16 && e->fd < 0; i++) {
		if (getrandom(r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
			struct timespec t;
			clock_gettime(CLOCK_MONOTONIC, &t);
			for (size_t j = 0; j < sizeof r; j++)
				r[j] = (unsigned char)((unsigned long)t.tv_nsec >> (5 * j)) ^
				       (unsigned char)(i * 37 + (int)j);
		}
		memcpy(e->tmp, "debuginfo.", 10);
		for (size_t j = 0; j < sizeof r; j++)
			e->tmp[10 + j] = set[r[j] % (sizeof set - 1)];
		e->tmp[10 + sizeof r] = '\0';
		e->fd = openat(e->dir, e->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			       0600);
		if (e->fd < 0 && errno != EEXIST)
			break;
	}
	if (e->fd < 0) {
		snprintf(why, n, "cache folder %s/%s: %s", e->c->path, e->hex, strerror(errno));
		return -1;
	}
	return 0;
}

int fk_dcache_restart(struct fk_dentry *e)
{
	return ftruncate(e->fd, 0) == 0 && lseek(e->fd, 0, SEEK_SET) == 0 ? 0 : -1;
}

int fk_dcache_commit(struct fk_dentry *e, char *why, size_t n)
{
	/* Read-only, as libdebuginfod leaves its files. */
	(void)fchmod(e->fd, 0400);
	if (renameat(e->dir, e->tmp, e->dir, "debuginfo") != 0) {
		snprintf(why, n, "cache folder %s/%s: %s", e->c->path, e->hex, strerror(errno));
		return -1;
	}
	close(e->fd);
	e->fd = -1;
	return 0;
}

void fk_dcache_forget(struct fk_dentry *e)
{
	(void)unlinkat(e->dir, "debuginfo", 0);
}

void fk_dcache_miss(struct fk_dentry *e)
{
	int fd = openat(e->dir, "debuginfo",
			O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0)
		close(fd);
}

void fk_dcache_end(struct fk_dentry *e)
{
	if (e->fd >= 0) {
		(void)unlinkat(e->dir, e->tmp, 0);
		close(e->fd);
		e->fd = -1;
	}
	if (e->dir >= 0) {
		close(e->dir);
		e->dir = -1;
		/* Nothing is kept for the build-id: its folder goes too. */
		(void)unlinkat(e->c->dir, e->hex, AT_REMOVEDIR);
	}
}
