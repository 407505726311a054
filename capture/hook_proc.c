/* SPDX-License-Identifier: MIT */
/* Facts about a process read from /proc (proc(5): /proc/PID/stat fields 3,
 * 4 and 22, /proc/PID/cmdline): what tells two processes with one pid apart
 * (the start time), and what the process list shows; and the owners of
 * TCP sockets in /proc/net/tcp and tcp6, which every user may read. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hook_int.h"
#include "num.h"

/* /proc/PID/stat into buf; the fields after the command's closing ')'. */
static const char *stat_tail(pid_t pid, char *buf, size_t size)
{
	char path[64];
	ssize_t n;
	int fd;
	char *rp;

	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	/* The command may hold spaces and parentheses: the last ')' ends it. */
	rp = strrchr(buf, ')');
	return rp && rp[1] == ' ' ? rp + 2 : NULL;
}

/* Field k (1-based, counted from the state field, which is field 3) of
 * the tail. */
static int tail_field(const char *t, int k, uint64_t *v)
{
	const char *e;

	for (int i = 3; i < k && t; i++) {
		t = strchr(t, ' ');
		if (t)
			t++;
	}
	if (!t)
		return -1;
	e = strchr(t, ' ');
	return fk_parse_u64(t, e ? (size_t)(e - t) : strlen(t), v);
}

int fk_proc_info(pid_t pid, struct fk_proc *p)
{
	char buf[1024];
	const char *t = stat_tail(pid, buf, sizeof buf);
	uint64_t ppid, start;

	if (!t || tail_field(t, 4, &ppid) < 0 || tail_field(t, 22, &start) < 0)
		return -1;
	p->pid = pid;
	p->state = t[0];
	p->ppid = (pid_t)ppid;
	p->start = start;
	return 0;
}

uint64_t fk_proc_start(pid_t pid)
{
	struct fk_proc p;

	return fk_proc_info(pid, &p) == 0 ? p.start : 0;
}

double fk_proc_start_epoch(uint64_t start)
{
	char buf[256];
	long hz = sysconf(_SC_CLK_TCK);
	double up = -1, now;
	int fd = open("/proc/uptime", O_RDONLY | O_CLOEXEC);
	ssize_t n;
	struct timespec ts;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if (fk_parse_double(buf, strcspn(buf, " \n"), &up) < 0 || hz <= 0)
		return -1;
	clock_gettime(CLOCK_REALTIME, &ts);
	now = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	return now - up + (double)start / (double)hz;
}

size_t fk_proc_cmdline(pid_t pid, char *buf, size_t size)
{
	char path[64];
	ssize_t n;
	int fd;

	if (size == 0)
		return 0;
	buf[0] = '\0';
	snprintf(path, sizeof path, "/proc/%ld/cmdline", (long)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return 0;
	/* Arguments are NUL-separated; shown joined by spaces. */
	while (n > 0 && buf[n - 1] == '\0')
		n--;
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	buf[n] = '\0';
	return (size_t)n;
}

int fk_proc_tcp_scan(const char *buf, size_t len, fk_tcp_match_fn *match, void *ctx,
		     uid_t *uid)
{
	const char *p = buf, *end = buf + len;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		struct fk_tcp_line l;
		size_t nf = 0;
		const char *q;
		uint64_t v;

		if (!eol)
			return 0;
		/* "sl local rem st tx:rx tr:when retrnsmt uid ...". */
		for (q = p; q < eol && nf < FK_TCP_FIELDS;) {
			while (q < eol && *q == ' ')
				q++;
			if (q == eol)
				break;
			l.f[nf] = q;
			while (q < eol && *q != ' ')
				q++;
			l.len[nf] = (size_t)(q - l.f[nf]);
			nf++;
		}
		if (nf == FK_TCP_FIELDS && match(&l, ctx) &&
		    fk_parse_u64(l.f[7], l.len[7], &v) == 0 && v <= UINT32_MAX - 1) {
			*uid = (uid_t)v;
			return 1;
		}
		p = eol + 1;
	}
	return 0;
}

int fk_proc_tcp(int v6, fk_tcp_match_fn *match, void *ctx, uid_t *uid)
{
	char buf[16384];
	size_t have = 0;
	int fd = open(v6 ? "/proc/net/tcp6" : "/proc/net/tcp", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	int rc = 0;

	if (fd < 0)
		return -1;
	/* Whole lines at a time; a line longer than the buffer is none of
	 * the kernel's. */
	for (;;) {
		ssize_t n = read(fd, buf + have, sizeof buf - have);
		char *last;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = n < 0 ? -1 : 0;
			break;
		}
		have += (size_t)n;
		if ((rc = fk_proc_tcp_scan(buf, have, match, ctx, uid)) != 0)
			break;
		last = memrchr(buf, '\n', have);
		if (!last) {
			have = 0;
			continue;
		}
		have -= (size_t)(last + 1 - buf);
		memmove(buf, last + 1, have);
	}
	close(fd);
	return rc;
}

/* The listening socket on a port, for listen_match. */
struct listen_find {
	unsigned port;
	uint64_t inode;
};

/* A line of a socket in state LISTEN (0A) on w->port, any address. */
static int listen_match(const struct fk_tcp_line *l, void *ctx)
{
	struct listen_find *w = ctx;
	const char *colon = memchr(l->f[1], ':', l->len[1]);
	uint64_t port;

	if (l->len[3] != 2 || memcmp(l->f[3], "0A", 2) != 0 || !colon)
		return 0;
	if (fk_parse_hex(colon + 1, l->len[1] - (size_t)(colon + 1 - l->f[1]), 0, &port) < 0 ||
	    port != w->port)
		return 0;
	return fk_parse_u64(l->f[9], l->len[9], &w->inode) == 0;
}

/* Whether a descriptor of a thread of pid is socket inode (link, the
 * text its readlink gives). The hook's own thread keeps its descriptors
 * in a table of its own, so every thread's table is read. */
static int holds(const char *pid, const char *link)
{
	char path[96], buf[64];
	struct dirent *t, *f;
	DIR *td, *fd;
	int found = 0;

	snprintf(path, sizeof path, "/proc/%s/task", pid);
	if (!(td = opendir(path)))
		return 0;
	while (!found && (t = readdir(td))) {
		if (t->d_name[0] < '0' || t->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%s/task/%.20s/fd", pid, t->d_name);
		if (!(fd = opendir(path)))
			continue;
		while (!found && (f = readdir(fd))) {
			ssize_t n;

			snprintf(path, sizeof path, "/proc/%s/task/%.20s/fd/%.20s", pid, t->d_name,
				 f->d_name);
			n = readlink(path, buf, sizeof buf - 1);
			found = n > 0 && (size_t)n == strlen(link) && memcmp(buf, link, (size_t)n) == 0;
		}
		closedir(fd);
	}
	closedir(td);
	return found;
}

/* The socket listening on port in /proc/net/tcp, else tcp6: 1 with its
 * owner into *uid and its inode into *inode, 0 none, -1 unreadable. */
static int port_socket(unsigned port, uint64_t *inode, uid_t *uid)
{
	struct listen_find w = { port, 0 };
	int rc = fk_proc_tcp(0, listen_match, &w, uid);

	if (rc != 1 && fk_proc_tcp(1, listen_match, &w, uid) == 1)
		rc = 1;
	*inode = w.inode;
	return rc;
}

int fk_proc_port_uid(unsigned port, uid_t *uid)
{
	uint64_t inode;

	return port_socket(port, &inode, uid);
}

int fk_proc_port_holder(unsigned port, pid_t *pid, uid_t *uid)
{
	char link[48];
	struct dirent *d;
	uint64_t v, inode;
	DIR *dir;
	int rc;

	*pid = 0;
	rc = port_socket(port, &inode, uid);
	if (rc != 1)
		return rc;
	snprintf(link, sizeof link, "socket:[%llu]", (unsigned long long)inode);
	if (!(dir = opendir("/proc")))
		return 1;
	while ((d = readdir(dir)))
		if (fk_parse_u64(d->d_name, strlen(d->d_name), &v) == 0 && holds(d->d_name, link)) {
			*pid = (pid_t)v;
			break;
		}
	closedir(dir);
	return 1;
}

/* The children /proc/PID/task/TID/children lists, of every thread of
 * parent (kernels built with CONFIG_PROC_CHILDREN); -1 without them. */
static ssize_t children_files(pid_t parent, pid_t *out, size_t max)
{
	char path[96], buf[4096];
	struct dirent *t;
	ssize_t n = -1;
	DIR *td;

	snprintf(path, sizeof path, "/proc/%ld/task", (long)parent);
	if (!(td = opendir(path)))
		return -1;
	while ((t = readdir(td))) {
		ssize_t got;
		int fd;

		if (t->d_name[0] < '0' || t->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%ld/task/%.20s/children", (long)parent,
			 t->d_name);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		got = read(fd, buf, sizeof buf - 1);
		close(fd);
		n = n < 0 ? 0 : n;
		for (char *p = buf, *end = buf + (got > 0 ? got : 0); p < end && (size_t)n < max;) {
			size_t len = strspn(p, "0123456789");
			uint64_t v;

			if (len && fk_parse_u64(p, len, &v) == 0 && v <= INT32_MAX)
				out[n++] = (pid_t)v;
			p += len + 1;
		}
	}
	closedir(td);
	return n;
}

size_t fk_proc_children(pid_t parent, pid_t *out, size_t max)
{
	struct dirent *d;
	struct fk_proc p;
	ssize_t got = children_files(parent, out, max);
	size_t n = 0;
	uint64_t v;
	DIR *dir;

	if (got >= 0)
		return (size_t)got;
	if (!(dir = opendir("/proc")))
		return 0;
	while (n < max && (d = readdir(dir)))
		if (fk_parse_u64(d->d_name, strlen(d->d_name), &v) == 0 && v <= INT32_MAX &&
		    fk_proc_info((pid_t)v, &p) == 0 && p.ppid == parent && p.state != 'Z')
			out[n++] = (pid_t)v;
	closedir(dir);
	return n;
}

int fk_proc_maps_has(pid_t pid, const char *text)
{
	char path[64], buf[8192];
	size_t have = 0, k = strlen(text);
	int fd, found = 0;

	snprintf(path, sizeof path, "/proc/%ld/maps", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	/* Read in pieces, keeping the last k - 1 bytes: a name may span two. */
	for (;;) {
		ssize_t n = read(fd, buf + have, sizeof buf - have);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
		if (memmem(buf, have, text, k)) {
			found = 1;
			break;
		}
		if (have >= k) {
			memmove(buf, buf + have - (k - 1), k - 1);
			have = k - 1;
		}
	}
	close(fd);
	return found;
}
