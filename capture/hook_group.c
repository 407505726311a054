/* SPDX-License-Identifier: MIT */
/* The processes of one program: the process that serves FLAMEKIT_HTTP (the
 * listener) and every process forked from it without exec (its workers),
 * transitively. Each worker serves the same routes on a private socket of
 * its own; the listener keeps a registry of them and proxies ?pid=N there.
 * All sockets are Linux abstract unix sockets named
 * "@flamekit-hook/GROUP/NAME" (unix(7)): nothing on disk to clean up, gone
 * when their process is. GROUP is the first listener's pid, start time and
 * a random number, inherited by fork. Who may connect is checked on every
 * connection with SO_PEERCRED (libflamekit-hook(3), PROCESSES): the same
 * user, root, or the user the group began as; the registry also takes a
 * process of another user that descends from the listener (a worker that
 * dropped its privileges), a worker answers its listener whatever user
 * that runs as, and a proxied request goes only to a socket whose peer is
 * the process it names. A worker watches its registry
 * connection: when it ends, the listener is gone, and the worker takes
 * the address over (hook_loop.c). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "grow.h"
#include "hook_int.h"
#include "num.h"

static char gid[96];               /* the group's name, inherited by fork */
static uid_t first_uid;            /* the user the group began as */
static int reg_fd = -1;            /* listener: the registry's socket */
static int join_fd = -1;           /* worker: its registry connection */
static pid_t join_pid;             /* worker: the listener's pid */

struct worker {
	pid_t pid;
	int fd;
};
static struct worker workers[FK_HOOK_MAX_WORKERS];
static size_t nworkers;
/* What fk_group_pollfds put where, for fk_group_events. */
static int poll_reg = -1, poll_join = -1, poll_first = -1;
static size_t poll_nw;

void fk_group_init(void)
{
	uint64_t nonce = 0;

	if (getrandom(&nonce, sizeof nonce, GRND_NONBLOCK) != (ssize_t)sizeof nonce)
		nonce = (uint64_t)(fk_now() * 1e9) ^ ((uint64_t)getpid() << 32);
	snprintf(gid, sizeof gid, "%ld-%llu-%016llx", (long)getpid(),
		 (unsigned long long)fk_proc_start(getpid()), (unsigned long long)nonce);
	first_uid = geteuid();
}

const char *fk_group_name(void)
{
	return gid;
}

/* The abstract address "@flamekit-hook/GROUP/NAME". */
static socklen_t group_addr(struct sockaddr_un *un, const char *name)
{
	int n;

	memset(un, 0, sizeof *un);
	un->sun_family = AF_UNIX;
	n = snprintf(un->sun_path + 1, sizeof un->sun_path - 1, "flamekit-hook/%s/%s", gid, name);
	if (n < 0 || (size_t)n >= sizeof un->sun_path - 1)
		n = (int)sizeof un->sun_path - 2;
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

static int bind_name(const char *name, struct fk_err *err)
{
	struct sockaddr_un un;
	socklen_t len = group_addr(&un, name);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (fd < 0)
		return fk_err_set(err, FK_EIO, 0, "socket: %s", strerror(errno));
	if (bind(fd, (struct sockaddr *)&un, len) < 0 || listen(fd, 64) < 0) {
		int e = errno;

		close(fd);
		return fk_err_set(err, FK_EIO, 0, "cannot listen on @flamekit-hook/%s/%s: %s",
				  gid, name, strerror(e));
	}
	return fd;
}

/* Whether pid descends from this process or one of its workers. */
static int descends(pid_t pid)
{
	for (int i = 0; i < 64 && pid > 1; i++) {
		struct fk_proc p;

		if (fk_proc_info(pid, &p) < 0)
			return 0;
		pid = p.ppid;
		if (pid == getpid() || fk_group_is_worker(pid))
			return 1;
	}
	return 0;
}

static int peer(int fd, struct ucred *c)
{
	socklen_t len = sizeof *c;

	return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, c, &len) == 0 ? 0 : -1;
}

/* The same user, root, or the user the group began as. */
static int same_user(const struct ucred *c)
{
	return c->uid == geteuid() || c->uid == 0 || c->uid == first_uid;
}

/* Whether pid is an ancestor of this process. */
static int ancestor(pid_t pid)
{
	pid_t p = getpid();

	for (int i = 0; i < 64 && p > 1; i++) {
		struct fk_proc pr;

		if (fk_proc_info(p, &pr) < 0)
			return 0;
		p = pr.ppid;
		if (p == pid)
			return 1;
	}
	return 0;
}

int fk_group_peer_ok(int fd)
{
	struct ucred c;

	if (peer(fd, &c) < 0)
		return 0;
	/* The listener itself, whatever user it now runs as (varnishd's
	 * manager switches its effective user, its cache child another). */
	return same_user(&c) || (join_fd >= 0 && c.pid == join_pid);
}

int fk_group_listen(struct fk_err *err)
{
	if (!gid[0])
		fk_group_init();
	if (reg_fd >= 0)
		return 0;
	reg_fd = bind_name("listener", err);
	return reg_fd < 0 ? -1 : 0;
}

int fk_group_worker_socket(struct fk_err *err)
{
	char name[32];

	snprintf(name, sizeof name, "%ld", (long)getpid());
	return bind_name(name, err);
}

/* Connects to NAME of the group; the peer's credentials into *c. */
static int connect_name(const char *name, struct ucred *c)
{
	struct sockaddr_un un;
	socklen_t len = group_addr(&un, name);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&un, len) < 0 || peer(fd, c) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int fk_group_join(void)
{
	struct ucred c;
	int fd;

	if (join_fd >= 0)
		return 0;
	fd = connect_name("listener", &c);
	if (fd < 0)
		return -1;
	/* A listener of another user is one of the program when it is an
	 * ancestor of this process, or a descendant (a daemon's worker that
	 * dropped its privileges and took the address over first). */
	if (!(same_user(&c) || ancestor(c.pid) || descends(c.pid)) || c.pid == getpid()) {
		close(fd);
		return -1;
	}
	join_fd = fd;
	join_pid = c.pid;
	return 0;
}

pid_t fk_group_listener(void)
{
	return reg_fd >= 0 ? getpid() : join_fd >= 0 ? join_pid : 0;
}

void fk_group_leave(void)
{
	if (join_fd >= 0)
		close(join_fd);
	join_fd = -1;
}

void fk_group_close(void)
{
	fk_group_leave();
	if (reg_fd >= 0)
		close(reg_fd);
	reg_fd = -1;
	for (size_t i = 0; i < nworkers; i++)
		close(workers[i].fd);
	nworkers = 0;
}

void fk_group_atfork_child(void)
{
	/* The parent's sockets are in its hook thread's table, not here. */
	reg_fd = join_fd = -1;
	nworkers = 0;
}

int fk_group_pollfds(struct pollfd *pf, int max)
{
	int n = 0;

	poll_reg = poll_join = poll_first = -1;
	poll_nw = 0;
	if (reg_fd >= 0 && n < max) {
		poll_reg = n;
		pf[n].fd = reg_fd;
		pf[n++].events = POLLIN;
	}
	if (join_fd >= 0 && n < max) {
		poll_join = n;
		pf[n].fd = join_fd;
		pf[n++].events = POLLIN;
	}
	poll_first = n;
	for (size_t i = 0; i < nworkers && n < max; i++) {
		pf[n].fd = workers[i].fd;
		pf[n++].events = POLLIN;
		poll_nw++;
	}
	return n;
}

static void accept_workers(void)
{
	for (;;) {
		struct ucred c;
		int fd = accept4(reg_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

		if (fd < 0)
			return;
		/* A worker of another user is one when it descends from this
		 * process (it dropped privileges after its fork). */
		if (peer(fd, &c) < 0 || nworkers >= FK_HOOK_MAX_WORKERS || c.pid == getpid() ||
		    !(same_user(&c) || descends(c.pid))) {
			close(fd);
			continue;
		}
		workers[nworkers].pid = c.pid;
		workers[nworkers].fd = fd;
		nworkers++;
	}
}

int fk_group_events(const struct pollfd *pf, int n)
{
	int lost = 0;

	/* Workers first: removing one shifts the rest. */
	if (poll_first >= 0) {
		size_t k = 0;

		for (size_t i = 0; i < poll_nw && poll_first + (int)i < n; i++) {
			struct worker w = workers[k];
			char b[16];

			if (pf[poll_first + (int)i].revents &&
			    (recv(w.fd, b, sizeof b, MSG_DONTWAIT) == 0 ||
			     (pf[poll_first + (int)i].revents & (POLLHUP | POLLERR | POLLNVAL)))) {
				/* The worker exited: its connection ended. */
				close(w.fd);
				memmove(&workers[k], &workers[k + 1], (nworkers - k - 1) * sizeof workers[0]);
				nworkers--;
				continue;
			}
			k++;
		}
	}
	if (poll_reg >= 0 && poll_reg < n && pf[poll_reg].revents)
		accept_workers();
	if (poll_join >= 0 && poll_join < n && pf[poll_join].revents) {
		char b[16];

		if (recv(join_fd, b, sizeof b, MSG_DONTWAIT) <= 0) {
			fk_group_leave();
			lost = 1;
		}
	}
	return lost ? FK_GROUP_LOST : 0;
}

int fk_group_is_worker(pid_t pid)
{
	for (size_t i = 0; i < nworkers; i++)
		if (workers[i].pid == pid)
			return 1;
	return 0;
}

size_t fk_group_workers(pid_t *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < nworkers && n < max; i++)
		out[n++] = workers[i].pid;
	return n;
}

/* ---- a request to a worker ---- */

static int send_all(int fd, const char *p, size_t n, double deadline)
{
	while (n > 0) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
			struct pollfd pf = { .fd = fd, .events = POLLOUT };
			double left = deadline - fk_now();

			if (left <= 0)
				return -1;
			poll(&pf, 1, (int)(left * 1000) + 1);
			continue;
		}
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The static string of a Content-Type the hook sends. */
static const char *known_ctype(const char *v, size_t n)
{
	static const char *const types[] = {
		"application/octet-stream", "image/svg+xml", "application/json",
		"text/plain; charset=utf-8", "text/html; charset=utf-8",
	};

	for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
		if (strlen(types[i]) == n && strncasecmp(types[i], v, n) == 0)
			return types[i];
	return "application/octet-stream";
}

/* Parses the answer in buf[0..n) into r. */
static int parse_answer(char *buf, size_t n, struct fk_reply *r, struct fk_err *err)
{
	char *hend = memmem(buf, n, "\r\n\r\n", 4), *p, *line;
	uint64_t status = 0;

	if (!hend || n < 12 || memcmp(buf, "HTTP/1.", 7) != 0 ||
	    fk_parse_u64(buf + 9, 3, &status) < 0 || status < 100 || status > 599)
		return fk_err_set(err, FK_ESYNTAX, 0, "the worker's answer is not HTTP");
	r->status = status;
	r->ctype = "text/plain; charset=utf-8";
	for (line = memchr(buf, '\n', (size_t)(hend - buf)); line && line < hend; line = p) {
		char *eol;

		line++;
		eol = memmem(line, (size_t)(hend + 2 - line), "\r\n", 2);
		if (!eol)
			break;
		p = eol + 1;
		if ((size_t)(eol - line) > 13 && strncasecmp(line, "Content-Type:", 13) == 0) {
			char *v = line + 13;

			while (v < eol && *v == ' ')
				v++;
			r->ctype = known_ctype(v, (size_t)(eol - v));
		}
	}
	hend += 4;
	r->len = n - (size_t)(hend - buf);
	r->body = malloc(r->len + 1);
	if (!r->body)
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	memcpy(r->body, hend, r->len);
	r->maplen = 0;
	return 0;
}

int fk_group_request(pid_t pid, const char *method, const char *target, double timeout,
		     struct fk_reply *r, struct fk_err *err)
{
	char name[32], head[FK_HOOK_MAX_URL + 512];
	double deadline = fk_now() + timeout;
	struct ucred c;
	char *buf = NULL;
	size_t n = 0, cap = 0;
	int fd, k, rc;

	snprintf(name, sizeof name, "%ld", (long)pid);
	fd = connect_name(name, &c);
	if (fd < 0)
		return fk_err_set(err, FK_EIO, 0, "process %ld does not answer on its socket", (long)pid);
	if (c.pid != pid) {
		close(fd);
		return fk_err_set(err, FK_EIO, 0, "the socket of process %ld belongs to process %ld",
				  (long)pid, (long)c.pid);
	}
	k = snprintf(head, sizeof head, "%s %s HTTP/1.0\r\nHost: localhost\r\nX-Flamekit: 1\r\n"
		     "%s%s%sConnection: close\r\n\r\n", method, target,
		     fk_guard.token[0] ? "Authorization: Bearer " : "", fk_guard.token,
		     fk_guard.token[0] ? "\r\n" : "");
	if (k < 0 || (size_t)k >= sizeof head || send_all(fd, head, (size_t)k, deadline) < 0) {
		close(fd);
		return fk_err_set(err, FK_EIO, 0, "cannot send the request to process %ld", (long)pid);
	}
	for (;;) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		double left = deadline - fk_now();
		ssize_t got;

		if (left <= 0) {
			rc = fk_err_set(err, FK_EIO, 0, "process %ld did not answer within %g s",
					(long)pid, timeout);
			goto out;
		}
		if (poll(&pf, 1, (int)(left * 1000) + 1) <= 0)
			continue;
		if (cap - n < 65536) {
			size_t ncap = fk_grow_cap(cap, cap + 1, 1, 1 << 16);
			char *nb;

			if (!ncap || ncap > FK_HOOK_MAX_PROXY) {
				rc = fk_err_set(err, FK_ELIMIT, 0, "the answer of process %ld is larger "
						"than %d MiB", (long)pid, FK_HOOK_MAX_PROXY >> 20);
				goto out;
			}
			nb = fk_resize(buf, ncap, ncap, 1);
			if (!nb) {
				rc = fk_err_set(err, FK_ENOMEM, 0, "out of memory");
				goto out;
			}
			buf = nb;
			cap = ncap;
		}
		got = recv(fd, buf + n, cap - n, MSG_DONTWAIT);
		if (got < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (got < 0) {
			rc = fk_err_set(err, FK_EIO, 0, "reading from process %ld: %s", (long)pid,
					strerror(errno));
			goto out;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	rc = parse_answer(buf, n, r, err);
out:
	free(buf);
	close(fd);
	return rc < 0 ? -1 : 0;
}
