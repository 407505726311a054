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
 * next image under the same name. The serving half's requests to workers
 * are serve_ask.c's. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "hook_int.h"

/* A registered worker, as the listener keeps it. */
struct worker {
	struct fk_member m;
	int fd;                    /* its registry connection */
	char line[FK_ANSWER_MAX_LINE];  /* its next line so far */
	size_t nline;
	int skip;                  /* a line too long: dropped up to its end */
	/* The questions asked and answered (one at a time), and what the
	 * last answer said: st, or that it was malformed. */
	unsigned asked, answered;
	int bad;
	struct fk_status st;
};

/* Everything this file keeps but the workers' table. A fork keeps the
 * group's identity and the listener it knew; what is of this process's
 * hook thread (its sockets, what it learnt through them) the child starts
 * without: fk_group_atfork_child. */
#define GROUP_NONE { \
	.reg_fd = -1, .join_fd = -1, .squat_uid = -1, .squat_pid = -1, \
	.poll_reg = -1, .poll_join = -1, .poll_first = -1, \
}
static struct group {
	/* kept by fork, carried across exec (hook_state.c) */
	char name[FK_GROUP_NAME_MAX];  /* the group's */
	uid_t first_uid;           /* the user the group began as */
	/* The listener this process knows (itself, the one it joined, or its
	 * parent's), with its start time: an exec keeps both. */
	pid_t lst_pid;
	uint64_t lst_start;
	/* the child starts without these */
	int reg_fd;                /* listener: the registry's socket */
	int join_fd;               /* worker: its registry connection */
	pid_t join_pid;            /* worker: the listener's pid */
	struct fk_answer_reg own;  /* worker: its socket's name ("": none) */
	/* A takeover: who holds the registry's name when it is not of the
	 * program (-1: nobody such), and whether the block was said. */
	long long squat_uid, squat_pid;
	int block_said, block_tries;
	size_t nworkers;           /* listener: workers[0..nworkers) */
	/* What fk_group_pollfds put where, for fk_group_events. */
	int poll_reg, poll_join, poll_first;
	size_t poll_nw;
} g = GROUP_NONE;

/* Listener: the registered workers (zero pages until a worker comes). */
static struct worker workers[FK_HOOK_MAX_WORKERS];

void fk_group_init(const char *carried, uid_t uid)
{
	uint64_t nonce = 0, start = fk_proc_start(getpid());

	g.lst_pid = getpid();
	g.lst_start = start;
	g.first_uid = uid;
	if (carried && *carried && strlen(carried) < sizeof g.name &&
	    strspn(carried, "0123456789abcdef-") == strlen(carried)) {
		snprintf(g.name, sizeof g.name, "%s", carried);
		return;
	}
	if (getrandom(&nonce, sizeof nonce, GRND_NONBLOCK) != (ssize_t)sizeof nonce)
		nonce = (uint64_t)(fk_now() * 1e9) ^ ((uint64_t)getpid() << 32);
	snprintf(g.name, sizeof g.name, "%ld-%llu-%016llx", (long)getpid(), (unsigned long long)start,
		 (unsigned long long)nonce);
}

uid_t fk_group_first_uid(void)
{
	return g.first_uid;
}

const char *fk_group_name(void)
{
	return g.name;
}

/* The abstract address "@flamekit-hook/GROUP/NAME". */
static socklen_t group_addr(struct sockaddr_un *un, const char *name)
{
	int n;

	memset(un, 0, sizeof *un);
	un->sun_family = AF_UNIX;
	n = snprintf(un->sun_path + 1, sizeof un->sun_path - 1, "flamekit-hook/%s/%s", g.name, name);
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
			   g.name, name, strerror(e));
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
	return c->uid == geteuid() || c->uid == 0 || c->uid == g.first_uid;
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
	return same_user(&c) || (g.join_fd >= 0 && c.pid == g.join_pid);
}

int fk_group_listen(struct fk_err *err)
{
	if (!g.name[0])
		fk_group_init(NULL, geteuid());
	if (g.reg_fd >= 0)
		return 0;
	g.reg_fd = bind_name("listener", err);
	if (g.reg_fd < 0)
		return -1;
	g.lst_pid = getpid();
	g.lst_start = fk_proc_start(g.lst_pid);
	return 0;
}

int fk_group_connect(const char *name, struct ucred *c)
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

	if (g.join_fd < 0 || !g.own.name[0])
		return;
	if (g.own.uid >= 0)
		snprintf(u, sizeof u, "%lld", g.own.uid);
	if (g.own.pid >= 0)
		snprintf(p, sizeof p, "%lld", g.own.pid);
	k = g.own.taken ? snprintf(line, sizeof line, "%s %s %s\n", g.own.name, u, p)
		      : snprintf(line, sizeof line, "%s\n", g.own.name);
	if (k > 0 && (size_t)k < sizeof line &&
	    send(g.join_fd, line, (size_t)k, MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
		/* The listener is gone: its connection's end says so. */
	}
}

void fk_group_own_status(struct fk_status *st)
{
	struct fk_je_copy cp;
	const char *note;
	size_t ncopies;
	int active = 0;

	memset(st, 0, sizeof *st);
	if (fk_je_check(NULL) == FK_JE_OK && fk_je_get_active(&active, NULL) == 0)
		st->enabled = active != 0;
	if (fk_je_chosen(&cp, &ncopies, &note) == 0) {
		snprintf(st->version, sizeof st->version, "%s", cp.version);
		snprintf(st->symbol, sizeof st->symbol, "%s", cp.symbol);
		snprintf(st->module, sizeof st->module, "%s", cp.module);
	}
}

/* Worker: answers the listener's question with its status line. The
 * listener asks again only once answered, so the connection holds one
 * line at most and the send never waits. */
static void answer(void)
{
	char line[FK_ANSWER_MAX_LINE];
	struct fk_status st;
	size_t k;

	fk_group_own_status(&st);
	k = fk_answer_status_line(&st, line, sizeof line);
	if (k > 0 && send(g.join_fd, line, k, MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
		/* The listener is gone: its connection's end says so. */
	}
}

int fk_group_worker_socket(struct fk_err *err)
{
	struct ucred c;
	uint64_t nonce = 0;
	int fd, hfd;

	memset(&g.own, 0, sizeof g.own);
	snprintf(g.own.name, sizeof g.own.name, "%ld", (long)getpid());
	fd = bind_name(g.own.name, err);
	if (fd >= 0 || errno != EADDRINUSE) {
		if (fd < 0)
			g.own.name[0] = '\0';
		announce();
		return fd;
	}
	/* Another process holds the name: learn whose, and serve under a
	 * name nobody can guess. */
	g.own.taken = 1;
	g.own.uid = g.own.pid = -1;
	hfd = fk_group_connect(g.own.name, &c);
	if (hfd >= 0) {
		g.own.uid = c.uid;
		g.own.pid = c.pid;
		close(hfd);
	}
	if (getrandom(&nonce, sizeof nonce, GRND_NONBLOCK) != (ssize_t)sizeof nonce)
		nonce = (uint64_t)(fk_now() * 1e9) ^ ((uint64_t)getpid() << 40);
	snprintf(g.own.name, sizeof g.own.name, "%ld-%016llx", (long)getpid(), (unsigned long long)nonce);
	fk_err_init(err, NULL);
	fd = bind_name(g.own.name, err);
	if (fd < 0)
		g.own.name[0] = '\0';
	announce();
	return fd;
}

int fk_group_join(void)
{
	struct ucred c;
	int fd;

	if (g.join_fd >= 0)
		return 0;
	fd = fk_group_connect("listener", &c);
	if (fd < 0)
		return -1;
	/* A listener of another user is one of the program when it is an
	 * ancestor of this process, or a descendant (a daemon's worker that
	 * dropped its privileges and took the address over first). */
	if (!(same_user(&c) || ancestor(c.pid) || descends(c.pid)) || c.pid == getpid()) {
		if (c.pid != getpid()) {
			g.squat_uid = c.uid;
			g.squat_pid = c.pid;
		}
		close(fd);
		return -1;
	}
	g.squat_uid = g.squat_pid = -1;
	g.join_fd = fd;
	g.join_pid = c.pid;
	g.lst_pid = c.pid;
	g.lst_start = fk_proc_start(c.pid);
	announce();
	return 0;
}

int fk_group_listener_alive(void)
{
	struct fk_proc p;

	/* A zombie has exited: its parent has not reaped it yet. */
	return g.lst_pid > 0 && g.lst_pid != getpid() && fk_proc_info(g.lst_pid, &p) == 0 &&
	       p.start == g.lst_start && p.state != 'Z' && p.state != 'X';
}

pid_t fk_group_listener(void)
{
	return g.reg_fd >= 0 ? getpid() : g.join_fd >= 0 ? g.join_pid : 0;
}

void fk_group_leave(void)
{
	if (g.join_fd >= 0)
		close(g.join_fd);
	g.join_fd = -1;
}

void fk_group_close(void)
{
	fk_group_leave();
	if (g.reg_fd >= 0)
		close(g.reg_fd);
	g.reg_fd = -1;
	for (size_t i = 0; i < g.nworkers; i++)
		close(workers[i].fd);
	g.nworkers = 0;
}

void fk_group_atfork_child(void)
{
	struct group child = GROUP_NONE;

	/* The group and the listener it knew (its parent's) are the
	 * child's too; the parent's sockets are in its hook thread's table,
	 * not here, and the workers its own. */
	memcpy(child.name, g.name, sizeof child.name);
	child.first_uid = g.first_uid;
	child.lst_pid = g.lst_pid;
	child.lst_start = g.lst_start;
	g = child;
}

int fk_group_pollfds(struct pollfd *pf, int max)
{
	int n = 0;

	g.poll_reg = g.poll_join = g.poll_first = -1;
	g.poll_nw = 0;
	if (g.reg_fd >= 0 && n < max) {
		g.poll_reg = n;
		pf[n].fd = g.reg_fd;
		pf[n++].events = POLLIN;
	}
	if (g.join_fd >= 0 && n < max) {
		g.poll_join = n;
		pf[n].fd = g.join_fd;
		pf[n++].events = POLLIN;
	}
	g.poll_first = n;
	for (size_t i = 0; i < g.nworkers && n < max; i++) {
		pf[n].fd = workers[i].fd;
		pf[n++].events = POLLIN;
		g.poll_nw++;
	}
	return n;
}

/* One whole line of worker w's: its registration (a malformed one is
 * ignored), or its answer to the question asked (ignored when none was). */
static void worker_line(struct worker *w, const char *line, size_t len)
{
	struct fk_answer_reg reg;
	size_t used;

	if (len >= sizeof FK_ANSWER_STATUS - 1 &&
	    memcmp(line, FK_ANSWER_STATUS, sizeof FK_ANSWER_STATUS - 1) == 0) {
		struct fk_status st;

		if (w->answered == w->asked)
			return;
		w->bad = fk_answer_status(line, len, &st, &used) != 1;
		if (!w->bad)
			w->st = st;
		w->answered++;
		return;
	}
	if (fk_answer_reg(line, len, &reg, &used) != 1)
		return;
	snprintf(w->m.name, sizeof w->m.name, "%s", reg.name);
	w->m.taken = reg.taken;
	w->m.taken_uid = reg.uid;
	w->m.taken_pid = reg.pid;
}

/* Reads what worker w said on its registry connection, line by line. A
 * few reads an event, so that a worker that floods its connection cannot
 * hold the loop; a line longer than any of ours is dropped (an answer
 * asked for, malformed). 1 when the connection ended (the worker
 * exited), else 0. */
static int worker_input(struct worker *w)
{
	for (int round = 0; round < 4; round++) {
		ssize_t got = recv(w->fd, w->line + w->nline, sizeof w->line - w->nline, MSG_DONTWAIT);
		char *nl;

		if (got == 0)
			return 1;
		if (got < 0)
			return errno != EAGAIN && errno != EINTR;
		w->nline += (size_t)got;
		while ((nl = memchr(w->line, '\n', w->nline))) {
			size_t len = (size_t)(nl - w->line) + 1;

			if (!w->skip)
				worker_line(w, w->line, len);
			w->skip = 0;
			memmove(w->line, nl + 1, w->nline - len);
			w->nline -= len;
		}
		if (w->nline == sizeof w->line) {
			if (!w->skip && w->answered != w->asked) {
				w->bad = 1;
				w->answered++;
			}
			w->skip = 1;
			w->nline = 0;
		}
	}
	return 0;
}

static void accept_workers(void)
{
	for (;;) {
		struct ucred c;
		struct worker *w;
		int fd = accept4(g.reg_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

		if (fd < 0)
			return;
		/* A worker of another user is one when it descends from this
		 * process (it dropped privileges after its fork). */
		if (peer(fd, &c) < 0 || g.nworkers >= FK_HOOK_MAX_WORKERS || c.pid == getpid() ||
		    !(same_user(&c) || descends(c.pid))) {
			close(fd);
			continue;
		}
		w = &workers[g.nworkers++];
		memset(w, 0, sizeof *w);
		w->fd = fd;
		w->m.pid = c.pid;
		w->m.taken_uid = w->m.taken_pid = -1;
		/* Until it says otherwise, its socket is named by its pid. */
		snprintf(w->m.name, sizeof w->m.name, "%ld", (long)c.pid);
		if (worker_input(w)) {
			close(fd);
			g.nworkers--;
		}
	}
}

int fk_group_events(const struct pollfd *pf, int n)
{
	int lost = 0;

	/* Workers first: removing one shifts the rest. */
	if (g.poll_first >= 0) {
		size_t k = 0;

		for (size_t i = 0; i < g.poll_nw && g.poll_first + (int)i < n; i++) {
			short ev = pf[g.poll_first + (int)i].revents;

			if (ev && (worker_input(&workers[k]) || (ev & (POLLHUP | POLLERR | POLLNVAL)))) {
				/* The worker exited: its connection ended. */
				close(workers[k].fd);
				memmove(&workers[k], &workers[k + 1], (g.nworkers - k - 1) * sizeof workers[0]);
				g.nworkers--;
				continue;
			}
			k++;
		}
	}
	if (g.poll_reg >= 0 && g.poll_reg < n && pf[g.poll_reg].revents)
		accept_workers();
	if (g.poll_join >= 0 && g.poll_join < n && pf[g.poll_join].revents) {
		char b[16];
		ssize_t got = recv(g.join_fd, b, sizeof b, MSG_DONTWAIT);

		if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR)) {
			fk_group_leave();
			lost = 1;
		} else if (got > 0 && memchr(b, FK_GROUP_QUESTION, (size_t)got)) {
			answer();
		}
	}
	return lost ? FK_GROUP_LOST : 0;
}

static struct worker *worker_of(pid_t pid)
{
	for (size_t i = 0; i < g.nworkers; i++)
		if (workers[i].m.pid == pid)
			return &workers[i];
	return NULL;
}

int fk_group_member(pid_t pid, struct fk_member *m)
{
	const struct worker *w = worker_of(pid);

	if (w && m)
		*m = w->m;
	return w != NULL;
}

int fk_group_question(pid_t pid, unsigned *q)
{
	struct worker *w = worker_of(pid);
	char c = FK_GROUP_QUESTION;

	if (!w) {
		errno = ESRCH;
		return -1;
	}
	if (w->answered == w->asked) {
		if (send(w->fd, &c, 1, MSG_NOSIGNAL | MSG_DONTWAIT) != 1)
			return -1;
		w->asked++;
	}
	*q = w->asked;
	return 0;
}

int fk_group_answer(pid_t pid, unsigned q, struct fk_status *st)
{
	const struct worker *w = worker_of(pid);

	if (!w)
		return -1;
	/* Counted modulo 2^32: answered is at most asked. */
	if (w->asked - w->answered > w->asked - q)
		return 0;
	if (w->bad)
		return 2;
	*st = w->st;
	return 1;
}

int fk_group_is_worker(pid_t pid)
{
	return fk_group_member(pid, NULL);
}

size_t fk_group_workers(struct fk_member *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < g.nworkers && n < max; i++)
		out[n++] = workers[i].m;
	return n;
}

/* ---- a takeover that another user blocks ---- */

/* Who holds addr: 0 with *uid, or -1 unknown. */
static int addr_owner(const struct fk_addr *a, uid_t *uid)
{
	struct stat st;
	in_port_t port;

	if (a->family == AF_UNIX) {
		const struct sockaddr_un *un = (const struct sockaddr_un *)&a->ss;

		if (un->sun_path[0] == '\0' || lstat(un->sun_path, &st) < 0)
			return -1;
		*uid = st.st_uid;
		return 0;
	}
	port = a->family == AF_INET ? ((const struct sockaddr_in *)&a->ss)->sin_port
				    : ((const struct sockaddr_in6 *)&a->ss)->sin6_port;
	return fk_proc_port_uid(ntohs(port), uid) == 1 ? 0 : -1;
}

void fk_group_takeover_failed(const struct fk_addr *addr)
{
	char regs[200] = "", held[64] = "";
	uid_t uid;
	int other_addr;

	/* The first tries can meet another worker of the program that has
	 * the address and is about to open the registry. */
	if (g.block_said || ++g.block_tries < 3)
		return;
	other_addr = addr_owner(addr, &uid) == 0 && uid != geteuid() && uid != g.first_uid &&
		     uid != 0;
	if (!other_addr && g.squat_uid < 0)
		return;
	if (other_addr)
		snprintf(held, sizeof held, "it (uid %ld)", (long)uid);
	if (g.squat_uid >= 0)
		snprintf(regs, sizeof regs, "%sthe group's registry @flamekit-hook/%s/listener "
			 "(process %lld, uid %lld)", other_addr ? " and " : "", g.name, g.squat_pid,
			 g.squat_uid);
	fk_log("process %ld cannot take over %s: another user holds %s%s; trying again "
	       "every second", (long)getpid(), addr->text, held, regs);
	g.block_said = 1;
}
