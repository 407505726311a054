/* SPDX-License-Identifier: MIT */
/* The processes of one program: the process that serves FLAMEKIT_HTTP (the
 * listener) and every process forked from it without exec (its workers),
 * transitively. Each worker serves the same routes on a private socket of
 * its own; the listener keeps a registry of them and proxies ?pid=N there.
 * All sockets are Linux abstract unix sockets named
 * "@flamekit-hook/GROUP/NAME" (unix(7)): nothing on disk to clean up, gone
 * when their process is. GROUP is the first listener's pid, start time and
 * a random number, inherited by fork and kept across the listener's exec
 * (hook_state.c carries it to the next image of the same pid). Who may connect is checked on every
 * connection with SO_PEERCRED (libflamekit-hook(3), PROCESSES): the same
 * user, root, or the user the group began as; the registry also takes a
 * process of another user that descends from the listener (a worker that
 * dropped its privileges), a worker answers its listener whatever user
 * that runs as, and a proxied request goes only to a socket whose peer is
 * the process it names. Abstract names are public (/proc/net/unix), so
 * a worker whose name another process took serves under another and
 * tells the listener which, in one line on its registry connection
 * (hook_answer.c reads it). A worker watches its registry
 * connection: when it ends and the listener it knew (pid and start time)
 * is gone, the worker takes the address over (hook_loop.c); when that
 * listener is still alive, it exec'd itself, and the worker joins its
 * next image under the same name. Requests to workers are bounded: the
 * list and pid=all ask every worker at once, within one deadline, and
 * keep small answers; a proxied answer's body is streamed. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "grow.h"
#include "hook_int.h"
#include "num.h"

static char gid[FK_GROUP_NAME_MAX]; /* the group's name, inherited by fork */
static uid_t first_uid;            /* the user the group began as */
/* The listener this process knows (itself, the one it joined, or its
 * parent's), with its start time: an exec keeps both. Inherited by fork. */
static pid_t lst_pid;
static uint64_t lst_start;
static int reg_fd = -1;            /* listener: the registry's socket */
static int join_fd = -1;           /* worker: its registry connection */
static pid_t join_pid;             /* worker: the listener's pid */
static struct fk_answer_reg own;   /* worker: its socket's name ("": none) */
/* A takeover: who holds the registry's name when it is not of the
 * program (-1: nobody such), and whether the block was said. */
static long long squat_uid = -1, squat_pid = -1;
static int block_said, block_tries;

struct worker {
	struct fk_member m;
	int fd;
	char line[FK_ANSWER_MAX_REG];  /* its registration line so far */
	size_t nline;
};
static struct worker workers[FK_HOOK_MAX_WORKERS];
static size_t nworkers;
/* What fk_group_pollfds put where, for fk_group_events. */
static int poll_reg = -1, poll_join = -1, poll_first = -1;
static size_t poll_nw;

void fk_group_init(const char *carried, uid_t uid)
{
	uint64_t nonce = 0, start = fk_proc_start(getpid());

	lst_pid = getpid();
	lst_start = start;
	first_uid = uid;
	if (carried && *carried && strlen(carried) < sizeof gid &&
	    strspn(carried, "0123456789abcdef-") == strlen(carried)) {
		snprintf(gid, sizeof gid, "%s", carried);
		return;
	}
	if (getrandom(&nonce, sizeof nonce, GRND_NONBLOCK) != (ssize_t)sizeof nonce)
		nonce = (uint64_t)(fk_now() * 1e9) ^ ((uint64_t)getpid() << 32);
	snprintf(gid, sizeof gid, "%ld-%llu-%016llx", (long)getpid(), (unsigned long long)start,
		 (unsigned long long)nonce);
}

uid_t fk_group_first_uid(void)
{
	return first_uid;
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
		fk_err_set(err, FK_EIO, 0, "cannot listen on @flamekit-hook/%s/%s: %s",
			   gid, name, strerror(e));
		errno = e;
		return -1;
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
		fk_group_init(NULL, geteuid());
	if (reg_fd >= 0)
		return 0;
	reg_fd = bind_name("listener", err);
	if (reg_fd < 0)
		return -1;
	lst_pid = getpid();
	lst_start = fk_proc_start(lst_pid);
	return 0;
}

/* Connects to NAME of the group without blocking (a unix socket
 * connects at once, or fails with EAGAIN when its queue is full); the
 * peer's credentials into *c. The fd (non-blocking), or -1 with errno. */
static int connect_name(const char *name, struct ucred *c)
{
	struct sockaddr_un un;
	socklen_t len = group_addr(&un, name);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&un, len) < 0 || peer(fd, c) < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* Worker: tells the listener its socket's name (one line, which fits in
 * any socket buffer; lost only with the connection). */
static void announce(void)
{
	char line[FK_ANSWER_MAX_REG], u[24] = "-", p[24] = "-";
	int k;

	if (join_fd < 0 || !own.name[0])
		return;
	if (own.uid >= 0)
		snprintf(u, sizeof u, "%lld", own.uid);
	if (own.pid >= 0)
		snprintf(p, sizeof p, "%lld", own.pid);
	k = own.taken ? snprintf(line, sizeof line, "%s %s %s\n", own.name, u, p)
		      : snprintf(line, sizeof line, "%s\n", own.name);
	if (k > 0 && (size_t)k < sizeof line &&
	    send(join_fd, line, (size_t)k, MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
		/* The listener is gone: its connection's end says so. */
	}
}

int fk_group_worker_socket(struct fk_err *err)
{
	struct ucred c;
	uint64_t nonce = 0;
	int fd, hfd;

	memset(&own, 0, sizeof own);
	snprintf(own.name, sizeof own.name, "%ld", (long)getpid());
	fd = bind_name(own.name, err);
	if (fd >= 0 || errno != EADDRINUSE) {
		if (fd < 0)
			own.name[0] = '\0';
		announce();
		return fd;
	}
	/* Another process holds the name: learn whose, and serve under a
	 * name nobody can guess. */
	own.taken = 1;
	own.uid = own.pid = -1;
	hfd = connect_name(own.name, &c);
	if (hfd >= 0) {
		own.uid = c.uid;
		own.pid = c.pid;
		close(hfd);
	}
	if (getrandom(&nonce, sizeof nonce, GRND_NONBLOCK) != (ssize_t)sizeof nonce)
		nonce = (uint64_t)(fk_now() * 1e9) ^ ((uint64_t)getpid() << 40);
	snprintf(own.name, sizeof own.name, "%ld-%016llx", (long)getpid(), (unsigned long long)nonce);
	fk_err_init(err, NULL);
	fd = bind_name(own.name, err);
	if (fd < 0)
		own.name[0] = '\0';
	announce();
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
		if (c.pid != getpid()) {
			squat_uid = c.uid;
			squat_pid = c.pid;
		}
		close(fd);
		return -1;
	}
	squat_uid = squat_pid = -1;
	join_fd = fd;
	join_pid = c.pid;
	lst_pid = c.pid;
	lst_start = fk_proc_start(c.pid);
	announce();
	return 0;
}

int fk_group_listener_alive(void)
{
	struct fk_proc p;

	/* A zombie has exited: its parent has not reaped it yet. */
	return lst_pid > 0 && lst_pid != getpid() && fk_proc_info(lst_pid, &p) == 0 &&
	       p.start == lst_start && p.state != 'Z' && p.state != 'X';
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
	/* The parent's sockets are in its hook thread's table, not here;
	 * the listener it knew is this one's. */
	reg_fd = join_fd = -1;
	nworkers = 0;
	memset(&own, 0, sizeof own);
	squat_uid = squat_pid = -1;
	block_said = block_tries = 0;
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

/* Reads what worker w said on its registry connection: its lines name
 * its socket (a malformed one is ignored). A few reads an event, so that
 * a worker that floods its connection cannot hold the loop. 1 when the
 * connection ended (the worker exited), else 0. */
static int worker_input(struct worker *w)
{
	for (int round = 0; round < 4; round++) {
		struct fk_answer_reg reg;
		size_t used;
		ssize_t got = recv(w->fd, w->line + w->nline, sizeof w->line - w->nline, MSG_DONTWAIT);
		int rc;

		if (got == 0)
			return 1;
		if (got < 0)
			return errno != EAGAIN && errno != EINTR;
		w->nline += (size_t)got;
		while ((rc = fk_answer_reg(w->line, w->nline, &reg, &used)) != 0) {
			if (rc < 0) {
				w->nline = 0;
				break;
			}
			snprintf(w->m.name, sizeof w->m.name, "%s", reg.name);
			w->m.taken = reg.taken;
			w->m.taken_uid = reg.uid;
			w->m.taken_pid = reg.pid;
			memmove(w->line, w->line + used, w->nline - used);
			w->nline -= used;
		}
	}
	return 0;
}

static void accept_workers(void)
{
	for (;;) {
		struct ucred c;
		struct worker *w;
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
		w = &workers[nworkers++];
		memset(w, 0, sizeof *w);
		w->fd = fd;
		w->m.pid = c.pid;
		w->m.taken_uid = w->m.taken_pid = -1;
		/* Until it says otherwise, its socket is named by its pid. */
		snprintf(w->m.name, sizeof w->m.name, "%ld", (long)c.pid);
		if (worker_input(w)) {
			close(fd);
			nworkers--;
		}
	}
}

int fk_group_events(const struct pollfd *pf, int n)
{
	int lost = 0;

	/* Workers first: removing one shifts the rest. */
	if (poll_first >= 0) {
		size_t k = 0;

		for (size_t i = 0; i < poll_nw && poll_first + (int)i < n; i++) {
			short ev = pf[poll_first + (int)i].revents;

			if (ev && (worker_input(&workers[k]) || (ev & (POLLHUP | POLLERR | POLLNVAL)))) {
				/* The worker exited: its connection ended. */
				close(workers[k].fd);
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

int fk_group_member(pid_t pid, struct fk_member *m)
{
	for (size_t i = 0; i < nworkers; i++) {
		if (workers[i].m.pid == pid) {
			if (m)
				*m = workers[i].m;
			return 1;
		}
	}
	return 0;
}

int fk_group_is_worker(pid_t pid)
{
	return fk_group_member(pid, NULL);
}

size_t fk_group_workers(struct fk_member *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < nworkers && n < max; i++)
		out[n++] = workers[i].m;
	return n;
}

/* ---- a takeover that another user blocks ---- */

/* A listening socket (state 0A) on *ctx's port. */
static int listens_on(const struct fk_tcp_line *l, void *ctx)
{
	const char *colon = memrchr(l->f[1], ':', l->len[1]);
	uint64_t port;

	return l->len[3] == 2 && memcmp(l->f[3], "0A", 2) == 0 && colon &&
	       fk_parse_hex(colon + 1, l->len[1] - (size_t)(colon + 1 - l->f[1]), 0, &port) == 0 &&
	       port == *(const unsigned *)ctx;
}

/* The owner of a listening TCP socket on port in /proc/net/tcp or tcp6:
 * 0 with *uid, or -1 when none is listed. */
static int tcp_owner(unsigned port, uid_t *uid)
{
	for (int v6 = 0; v6 < 2; v6++)
		if (fk_proc_tcp(v6, listens_on, &port, uid) == 1)
			return 0;
	return -1;
}

/* Who holds addr: 0 with *uid, or -1 unknown. */
static int addr_owner(const struct fk_addr *a, uid_t *uid)
{
	struct stat st;

	if (a->family == AF_UNIX) {
		const struct sockaddr_un *un = (const struct sockaddr_un *)&a->ss;

		if (un->sun_path[0] == '\0' || lstat(un->sun_path, &st) < 0)
			return -1;
		*uid = st.st_uid;
		return 0;
	}
	if (a->family == AF_INET)
		return tcp_owner(ntohs(((const struct sockaddr_in *)&a->ss)->sin_port), uid);
	return tcp_owner(ntohs(((const struct sockaddr_in6 *)&a->ss)->sin6_port), uid);
}

void fk_group_takeover_failed(const struct fk_addr *addr)
{
	char regs[200] = "", held[64] = "";
	uid_t uid;
	int other_addr;

	/* The first tries can meet another worker of the program that has
	 * the address and is about to open the registry. */
	if (block_said || ++block_tries < 3)
		return;
	other_addr = addr_owner(addr, &uid) == 0 && uid != geteuid() && uid != first_uid &&
		     uid != 0;
	if (!other_addr && squat_uid < 0)
		return;
	if (other_addr)
		snprintf(held, sizeof held, "it (uid %ld)", (long)uid);
	if (squat_uid >= 0)
		snprintf(regs, sizeof regs, "%sthe group's registry @flamekit-hook/%s/listener "
			 "(process %lld, uid %lld)", other_addr ? " and " : "", gid, squat_pid,
			 squat_uid);
	fk_log("process %ld cannot take over %s: another user holds %s%s; trying again "
	       "every second", (long)getpid(), addr->text, held, regs);
	block_said = 1;
}

/* ---- requests to workers ---- */

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

/* Milliseconds to wait in poll until deadline, at least 1 (0: past). */
static int ms_until(double deadline)
{
	double left = deadline - fk_now();

	return left <= 0 ? 0 : left > 3600 ? 3600000 : (int)(left * 1000) + 1;
}

/* Connects to worker m's socket, checks that it is m's, and sends METHOD
 * TARGET (by deadline; 0: at once or not at all). The fd (non-blocking),
 * or -1 with err. */
static int open_worker(const struct fk_member *m, const char *method, const char *target,
		       double deadline, struct fk_err *err)
{
	const char *tok = fk_env_get()->guard.token;
	char head[FK_HOOK_MAX_URL + 512];
	struct ucred c;
	int fd, k;

	fd = connect_name(m->name, &c);
	if (fd < 0)
		return fk_err_set(err, FK_EIO, 0, "process %ld does not answer on its socket%s",
				  (long)m->pid, errno == EAGAIN ? " (its queue is full)" : "");
	if (c.pid != m->pid) {
		close(fd);
		return fk_err_set(err, FK_EIO, 0, "the socket of process %ld belongs to process %ld",
				  (long)m->pid, (long)c.pid);
	}
	k = snprintf(head, sizeof head, "%s %s HTTP/1.0\r\nHost: localhost\r\nX-Flamekit: 1\r\n"
		     "%s%s%sConnection: close\r\n\r\n", method, target,
		     tok[0] ? "Authorization: Bearer " : "", tok, tok[0] ? "\r\n" : "");
	if (k < 0 || (size_t)k >= sizeof head || send_all(fd, head, (size_t)k, deadline) < 0) {
		close(fd);
		return fk_err_set(err, FK_EIO, 0, "cannot send the request to process %ld",
				  (long)m->pid);
	}
	return fd;
}

/* An answer being read for fk_group_ask. */
struct inflight {
	size_t i;                  /* its ask */
	int fd;
	char *buf;
	size_t n, cap;
};

/* Reads what there is of f's answer, at most a head and max bytes of
 * body. 0: more to come; 1: done, the answer (or why there is none) in a. */
static int read_some(struct inflight *f, struct fk_ask *a, size_t max)
{
	size_t limit = FK_ANSWER_MAX_HEAD + max + 1;
	struct fk_answer_head h;
	const char *why;
	ssize_t got;
	int rc;

	if (f->cap - f->n < 2) {
		size_t ncap = fk_grow_cap(f->cap, f->n + 4096, 1, 4096);
		char *nb;

		if (ncap > limit)
			ncap = limit;
		if (ncap <= f->cap + 1) {
			snprintf(a->err, sizeof a->err, "the answer of process %ld is larger than "
				 "%zu KiB", (long)a->m.pid, max >> 10);
			return 1;
		}
		if (!(nb = fk_resize(f->buf, ncap, ncap, 1))) {
			snprintf(a->err, sizeof a->err, "out of memory");
			return 1;
		}
		f->buf = nb;
		f->cap = ncap;
	}
	/* One byte stays free for the NUL after the body. */
	got = recv(f->fd, f->buf + f->n, f->cap - f->n - 1, MSG_DONTWAIT);
	if (got < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (got < 0) {
		snprintf(a->err, sizeof a->err, "reading from process %ld: %s", (long)a->m.pid,
			 strerror(errno));
		return 1;
	}
	f->n += (size_t)got;
	rc = fk_answer_head(f->buf, f->n, &h, &why);
	if (rc < 0 || (rc == 0 && got == 0)) {
		snprintf(a->err, sizeof a->err, "process %ld: %s", (long)a->m.pid,
			 rc < 0 ? why : "its answer ended before its head did");
		return 1;
	}
	if (rc > 0 && h.length != FK_ANSWER_NO_LENGTH && h.length > max) {
		snprintf(a->err, sizeof a->err, "the answer of process %ld is larger than %zu KiB",
			 (long)a->m.pid, max >> 10);
		return 1;
	}
	if (got > 0 && !(rc > 0 && h.length != FK_ANSWER_NO_LENGTH &&
			 f->n - h.head_len >= h.length))
		return 0;
	/* The whole answer: its body, NUL-terminated, moved to the front. */
	a->len = f->n - h.head_len;
	if (a->len > max) {
		snprintf(a->err, sizeof a->err, "the answer of process %ld is larger than %zu KiB",
			 (long)a->m.pid, max >> 10);
		a->len = 0;
		return 1;
	}
	if (h.length != FK_ANSWER_NO_LENGTH && a->len != h.length) {
		snprintf(a->err, sizeof a->err, "process %ld: its answer is not its Content-Length "
			 "long", (long)a->m.pid);
		a->len = 0;
		return 1;
	}
	memmove(f->buf, f->buf + h.head_len, a->len);
	f->buf[a->len] = '\0';
	a->body = f->buf;
	a->status = h.status;
	f->buf = NULL;
	return 1;
}

static void inflight_end(struct inflight *f)
{
	close(f->fd);
	free(f->buf);
}

void fk_group_ask(struct fk_ask *asks, size_t n, const char *method, const char *target,
		  double seconds, size_t max)
{
	struct inflight fl[FK_HOOK_ASK_PARALLEL];
	struct pollfd pf[FK_HOOK_ASK_PARALLEL];
	double deadline = fk_now() + seconds;
	size_t next = 0, nfl = 0;

	for (size_t i = 0; i < n; i++) {
		asks[i].status = 0;
		asks[i].body = NULL;
		asks[i].len = 0;
		asks[i].err[0] = '\0';
	}
	for (;;) {
		while (next < n && nfl < FK_HOOK_ASK_PARALLEL && fk_now() < deadline) {
			struct fk_err err;
			int fd;

			fk_err_init(&err, NULL);
			fd = open_worker(&asks[next].m, method, target, 0, &err);
			if (fd < 0) {
				snprintf(asks[next].err, sizeof asks[next].err, "%s", err.msg);
			} else {
				memset(&fl[nfl], 0, sizeof fl[nfl]);
				fl[nfl].i = next;
				fl[nfl++].fd = fd;
			}
			next++;
		}
		if (nfl == 0 || fk_now() >= deadline)
			break;
		for (size_t k = 0; k < nfl; k++) {
			pf[k].fd = fl[k].fd;
			pf[k].events = POLLIN;
			pf[k].revents = 0;
		}
		if (poll(pf, (nfds_t)nfl, ms_until(deadline)) <= 0)
			continue;
		for (size_t k = 0; k < nfl;) {
			if (pf[k].revents && read_some(&fl[k], &asks[fl[k].i], max)) {
				inflight_end(&fl[k]);
				fl[k] = fl[--nfl];
				pf[k] = pf[nfl];
				continue;
			}
			k++;
		}
	}
	for (size_t k = 0; k < nfl; k++) {
		snprintf(asks[fl[k].i].err, sizeof asks[fl[k].i].err,
			 "process %ld did not answer within %g s", (long)asks[fl[k].i].m.pid, seconds);
		inflight_end(&fl[k]);
	}
	for (; next < n; next++)
		snprintf(asks[next].err, sizeof asks[next].err, "not asked: the %g s for every "
			 "process's answer went to those asked before it", seconds);
}

/* ---- a worker's answer streamed ---- */

/* The body of a worker's answer, read on the loop as the client takes it:
 * first what came with the head, then the socket's bytes. */
struct wstream {
	int fd;
	int known;                 /* the answer said its length */
	uint64_t left;             /* then: bytes still to take from fd */
	uint64_t sent;             /* bytes given so far */
	size_t npre, off;
	char pre[FK_ANSWER_MAX_HEAD];
};

static ssize_t wstream_read(void *cls, char *buf, size_t max)
{
	struct wstream *s = cls;
	ssize_t got;

	if (s->off < s->npre) {
		size_t k = s->npre - s->off < max ? s->npre - s->off : max;

		memcpy(buf, s->pre + s->off, k);
		s->off += k;
		s->sent += k;
		return (ssize_t)k;
	}
	if (s->known && s->left == 0)
		return -1;
	if (s->known && max > s->left)
		max = (size_t)s->left;
	if (s->sent + max > FK_HOOK_MAX_PROXY)
		max = (size_t)(FK_HOOK_MAX_PROXY - s->sent);
	if (max == 0)
		return -2;             /* past FK_HOOK_MAX_PROXY */
	got = recv(s->fd, buf, max, MSG_DONTWAIT);
	if (got < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -2;
	if (got == 0)
		return s->known ? -2 : -1;   /* known: it ended short */
	s->sent += (uint64_t)got;
	if (s->known)
		s->left -= (uint64_t)got;
	return got;
}

static void wstream_free(void *cls)
{
	struct wstream *s = cls;

	close(s->fd);
	free(s);
}

int fk_group_open(const struct fk_member *m, const char *method, const char *target,
		  double seconds, struct fk_answer_head *h, struct fk_body_src *src,
		  struct fk_err *err)
{
	double deadline = fk_now() + seconds;
	struct wstream *s = calloc(1, sizeof *s);
	size_t n = 0;
	const char *why;
	int rc = 0;

	if (!s)
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	s->fd = open_worker(m, method, target, deadline, err);
	if (s->fd < 0) {
		free(s);
		return -1;
	}
	/* The head, into pre: what follows it there is the body's start. */
	while (rc == 0) {
		struct pollfd pf = { .fd = s->fd, .events = POLLIN };
		ssize_t got;

		if (fk_now() >= deadline) {
			fk_err_set(err, FK_EIO, 0, "process %ld did not answer within %g s",
				   (long)m->pid, seconds);
			goto fail;
		}
		if (poll(&pf, 1, ms_until(deadline)) <= 0)
			continue;
		got = recv(s->fd, s->pre + n, sizeof s->pre - n, MSG_DONTWAIT);
		if (got < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (got < 0) {
			fk_err_set(err, FK_EIO, 0, "reading from process %ld: %s", (long)m->pid,
				   strerror(errno));
			goto fail;
		}
		n += (size_t)got;
		rc = fk_answer_head(s->pre, n, h, &why);
		if (rc < 0 || (rc == 0 && got == 0)) {
			fk_err_set(err, FK_EIO, 0, "process %ld: %s", (long)m->pid,
				   rc < 0 ? why : "its answer ended before its head did");
			goto fail;
		}
	}
	if (h->length != FK_ANSWER_NO_LENGTH && h->length > FK_HOOK_MAX_PROXY) {
		fk_err_set(err, FK_ELIMIT, 0, "the answer of process %ld is larger than %llu MiB",
			   (long)m->pid, FK_HOOK_MAX_PROXY >> 20);
		goto fail;
	}
	s->npre = n - h->head_len;
	memmove(s->pre, s->pre + h->head_len, s->npre);
	s->known = h->length != FK_ANSWER_NO_LENGTH;
	if (s->known && s->npre > h->length)
		s->npre = (size_t)h->length;
	s->left = s->known ? h->length - s->npre : 0;
	memset(src, 0, sizeof *src);
	src->read = wstream_read;
	src->free = wstream_free;
	src->cls = s;
	src->fd = s->fd;
	src->size = h->length;
	return 0;
fail:
	close(s->fd);
	free(s);
	return -1;
}
