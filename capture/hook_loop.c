/* SPDX-License-Identifier: MIT */
/* The hook's one thread: it does all the hook's work, so that excluding it
 * from sampling (thread.prof.active) keeps the hook out of every profile it
 * serves. It keeps its descriptors in a file table of its own
 * (unshare(CLONE_FILES), made before it opens anything): a host that
 * closes every descriptor (close_range, closefrom) and reuses the numbers
 * never reaches the hook's sockets, and the hook never reaches the host's.
 * It polls its wake pipe, the HTTP daemons' epoll fds (the address of
 * FLAMEKIT_HTTP when it listens; its private socket when it is a forked
 * worker) and the process group's sockets (hook_group.c), with the dump
 * signal unblocked only while it waits. Other threads reach it by opening
 * its pipe through /proc/self/task/TID/fd, since the pipe exists in its
 * table only. Until the serving half is loaded (hook_serve.c) it polls
 * the listening sockets themselves: the first connection, or sampling
 * turned on, loads it and hands the sockets to its daemons. What it polls
 * is a table of event sources (below, "the poll loop"); the sockets
 * themselves and the takeover are hook_sockets.c's. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "hook_int.h"
#include "hook_loop.h"

#ifndef CLOSE_RANGE_UNSHARE
#define CLOSE_RANGE_UNSHARE 2
#endif

/* The running loop; the callers of start/take/forget serialise them. */
static struct fk_loop *cur;
/* The loop thread's own loop, for code that runs on it. */
static __thread struct fk_loop *self_loop;

int fk_loop_member(void)
{
	return cur && cur->cfg.member && !fk_sock_is_public(cur);
}

static void set_state(struct fk_loop *lp, int st)
{
	pthread_mutex_lock(&lp->mu);
	lp->state = st;
	pthread_cond_broadcast(&lp->cv);
	pthread_mutex_unlock(&lp->mu);
}

/* A table of the thread's own, holding nothing of the host's: the copy
 * unshare makes is closed at once, and 0-2 become /dev/null so that no
 * library writing to them reaches a socket of ours. */
static void own_table(struct fk_loop *lp)
{
	int fd;

	if (unshare(CLONE_FILES) < 0) {
		fk_log("cannot give the hook's thread a descriptor table of its own (%s): "
		       "a program that closes every descriptor will stop the server", strerror(errno));
		return;
	}
	lp->private_fds = 1;
	if (syscall(SYS_close_range, 0U, ~0U, 0U) < 0)
		for (fd = 0; fd < 1024; fd++)
			close(fd);
	fd = open("/dev/null", O_RDWR);
	if (fd == 0) {
		dup2(0, 1);
		dup2(0, 2);
	}
}

/* Whether sampling is on (the snapshots' timer needs the serving half),
 * as serve_snap.c's timer tells it. */
static int sampling_on(void)
{
	/* fk_state_sampled notes sampling the program or its MALLOC_CONF
	 * turned on, which moves the start asked again. */
	return fk_state_active_since() >= 0 ||
	       (fk_state_sampled() && fk_state_active_since() >= 0);
}

static void drain(struct fk_loop *lp)
{
	char b[64];

	while (read(lp->ctl[0], b, sizeof b) > 0)
		;
	pthread_mutex_lock(&lp->mu);
	if (lp->job && !lp->job_done) {
		void (*fn)(void *) = lp->job;
		void *arg = lp->job_arg;

		pthread_mutex_unlock(&lp->mu);
		fn(arg);
		pthread_mutex_lock(&lp->mu);
		lp->job_done = 1;
		pthread_cond_broadcast(&lp->cv);
	}
	pthread_mutex_unlock(&lp->mu);
}

/* ---- the poll loop: a table of event sources ----
 * Each source puts its descriptors in the poll set and may shorten the
 * wait (want); after the wait, each handles what happened, in the
 * table's order (ready, given its own descriptors' results). */


static void want_fd(struct poll_set *ps, int fd)
{
	if (ps->n < MAX_POLL) {
		ps->pf[ps->n].fd = fd;
		ps->pf[ps->n].events = POLLIN;
		ps->pf[ps->n++].revents = 0;
	}
}

static void want_ms(struct poll_set *ps, int ms)
{
	if (ms >= 0 && (ps->timeout < 0 || ms < ps->timeout))
		ps->timeout = ms;
}

/* A descriptor of ours closed under us: cannot happen with a table of
 * our own; with a shared one the program closed the hook's descriptors. */
static int closed_under_us(const struct pollfd *pf, int n)
{
	for (int i = 0; i < n; i++)
		if (pf[i].revents & POLLNVAL) {
			fk_log("the program closed the hook's file descriptors; serving stopped");
			return 1;
		}
	return 0;
}

/* The wake pipe: a call from another thread (fk_loop_call), or quit. */
static void ctl_want(struct fk_loop *lp, struct poll_set *ps)
{
	want_fd(ps, lp->ctl[0]);
}

static int ctl_ready(struct fk_loop *lp, const struct pollfd *pf, int n)
{
	if (n > 0 && pf[0].revents)
		drain(lp);
	return atomic_load(&lp->quit) ? -1 : 0;
}

/* The dump signal, unblocked only while the loop waits. */
static void sig_want(struct fk_loop *lp, struct poll_set *ps)
{
	(void)lp;
	(void)ps;
}

static int sig_ready(struct fk_loop *lp, const struct pollfd *pf, int n)
{
	(void)lp;
	(void)pf;
	(void)n;
	if (fk_sig_take())
		fk_sig_dump();
	return 0;
}

/* Listening sockets waiting for the serving half: a connection loads it. */
static void wait_want(struct fk_loop *lp, struct poll_set *ps)
{
	if (lp->pub_fd >= 0)
		want_fd(ps, lp->pub_fd);
	if (lp->own_fd >= 0)
		want_fd(ps, lp->own_fd);
}

static int wait_ready(struct fk_loop *lp, const struct pollfd *pf, int n)
{
	if (closed_under_us(pf, n))
		return -1;
	for (int i = 0; i < n; i++)
		if (pf[i].revents)
			fk_sock_serve(lp);
	return 0;
}

/* The HTTP daemons (the public address, a worker's private socket) and
 * the serving half's work-done descriptor. */
static void http_want(struct fk_loop *lp, struct poll_set *ps)
{
	const struct fk_serve_ops *ops = fk_serve_ops();

	if (lp->pub) {
		want_fd(ps, ops->http_poll_fd(lp->pub));
		want_ms(ps, ops->http_timeout(lp->pub));
	}
	if (lp->own) {
		want_fd(ps, ops->http_poll_fd(lp->own));
		want_ms(ps, ops->http_timeout(lp->own));
	}
	if (ops && ops->http_work_fd() >= 0 && (lp->pub || lp->own))
		want_fd(ps, ops->http_work_fd());
}

static int http_ready(struct fk_loop *lp, const struct pollfd *pf, int n)
{
	const struct fk_serve_ops *ops = fk_serve_ops();

	if (lp->pub && n > 0 && pf[0].fd == ops->http_poll_fd(lp->pub) && closed_under_us(pf, 1))
		return -1;
	/* Run whatever daemons there are now: wait_ready may have just
	 * made them. */
	if (lp->pub)
		ops->http_run(lp->pub);
	if (lp->own)
		ops->http_run(lp->own);
	if (ops && ops->http_broken())
		fk_sock_renew(lp);
	return 0;
}

/* The process group's sockets (hook_group.c): the registry, a worker's
 * registry connection; its end may call for a takeover. */
static void group_want(struct fk_loop *lp, struct poll_set *ps)
{
	(void)lp;
	ps->n += fk_group_pollfds(ps->pf + ps->n, MAX_POLL - ps->n);
}

static int group_ready(struct fk_loop *lp, const struct pollfd *pf, int n)
{
	/* The takeover is the retry's, after the daemons ran. */
	if (fk_group_events(pf, n) == FK_GROUP_LOST && !fk_sock_is_public(lp))
		lp->retry_at = fk_now();
	return 0;
}

/* The next try at taking the address over. */
static void retry_want(struct fk_loop *lp, struct poll_set *ps)
{
	if (lp->retry_at > 0) {
		double left = (lp->retry_at - fk_now()) * 1000.0;

		want_ms(ps, left < 0 ? 0 : (int)left + 1);
	}
}

static int retry_ready(struct fk_loop *lp, const struct pollfd *pf, int n)
{
	(void)pf;
	(void)n;
	if (lp->retry_at > 0 && fk_now() >= lp->retry_at)
		fk_sock_take_over(lp);
	return 0;
}

/* The snapshots' timer (serve_snap.c), once the serving half is there. */
static void snap_want(struct fk_loop *lp, struct poll_set *ps)
{
	if (lp->cfg.http && fk_serve_ops())
		want_ms(ps, fk_serve_ops()->snap_timeout_ms());
}

static int snap_ready(struct fk_loop *lp, const struct pollfd *pf, int n)
{
	(void)pf;
	(void)n;
	if (lp->cfg.http && fk_serve_ops())
		fk_serve_ops()->snap_tick();
	return 0;
}

static const struct source {
	const char *what;
	void (*want)(struct fk_loop *lp, struct poll_set *ps);
	int (*ready)(struct fk_loop *lp, const struct pollfd *pf, int n); /* -1: stop */
} sources[] = {
	{ "wake pipe", ctl_want, ctl_ready },
	{ "dump signal", sig_want, sig_ready },
	{ "sockets waiting for the serving half", wait_want, wait_ready },
	/* Before the daemons: a request waiting on workers' answers (the
	 * processes list) sees those that came. */
	{ "process group", group_want, group_ready },
	{ "HTTP daemons", http_want, http_ready },
	{ "takeover retry", retry_want, retry_ready },
	{ "snapshots", snap_want, snap_ready },
};
#define NSOURCES (sizeof sources / sizeof sources[0])

static void run(struct fk_loop *lp)
{
	struct poll_set *ps = &lp->ps;
	int first[NSOURCES], count[NSOURCES];
	sigset_t wait_mask;

	sigfillset(&wait_mask);
	if (lp->cfg.sig > 0)
		sigdelset(&wait_mask, lp->cfg.sig);
	while (!atomic_load(&lp->quit)) {
		struct timespec ts, *tsp = NULL;
		size_t i;

		if (lp->cfg.http && !fk_serve_ops() && sampling_on())
			fk_sock_serve(lp);
		ps->n = 0;
		ps->timeout = -1;
		for (i = 0; i < NSOURCES; i++) {
			first[i] = ps->n;
			sources[i].want(lp, ps);
			count[i] = ps->n - first[i];
		}
		if (ps->timeout >= 0) {
			ts.tv_sec = ps->timeout / 1000;
			ts.tv_nsec = (long)(ps->timeout % 1000) * 1000000L;
			tsp = &ts;
		}
		if (ppoll(ps->pf, (nfds_t)ps->n, tsp, &wait_mask) < 0 && errno != EINTR) {
			usleep(10000);
			continue;
		}
		for (i = 0; i < NSOURCES; i++)
			if (sources[i].ready(lp, ps->pf + first[i], count[i]) < 0)
				return;
	}
}

static void loop_free(struct fk_loop *lp)
{
	if (lp->ctl[0] >= 0 && !lp->private_fds) {
		close(lp->ctl[0]);
		close(lp->ctl[1]);
	}
	pthread_mutex_destroy(&lp->mu);
	pthread_cond_destroy(&lp->cv);
	free(lp);
}

static void *loop_main(void *arg)
{
	struct fk_loop *lp = arg;
	struct fk_err err;

	self_loop = lp;
	atomic_store(&lp->tid, (int)gettid());
	pthread_setname_np(pthread_self(), "flamekit-hook");
	/* Find jemalloc before the first request is served, and stop sampling
	 * this thread before it does any of the hook's work. */
	fk_je_check(NULL);
	fk_je_thread_active(0, NULL);
	fk_unwind_install();
	if (lp->cfg.http)
		fk_recent_install();
	fk_arena_enter_thread();
	if (lp->cfg.member) {
		/* A forked child that execs or exits at once (a shell-out) is
		 * not worth a socket: start a moment later. */
		struct timespec d = { 0, FK_HOOK_WORKER_DELAY_MS * 1000000L };

		while (nanosleep(&d, &d) < 0 && errno == EINTR)
			;
	}
	own_table(lp);
	fk_self_mark(lp->private_fds);
	fk_err_init(&err, NULL);
	if ((pipe2(lp->ctl, O_CLOEXEC | O_NONBLOCK) < 0 ?
	     fk_err_set(&err, FK_EIO, 0, "pipe: %s", strerror(errno)) :
	     fk_sock_setup(lp, &err)) < 0) {
		lp->err = err;
		fk_sock_close_public(lp);
		if (lp->cfg.member)
			fk_log("worker %ld: %s", (long)getpid(), err.msg);
		set_state(lp, -1);
		return NULL;
	}
	pthread_mutex_lock(&lp->mu);
	if (lp->abandoned) {
		/* A worker's process that is exiting already (fk_loop_end did
		 * not wait for a thread that had not started). */
		pthread_mutex_unlock(&lp->mu);
		fk_group_close();
		fk_sock_close_own(lp);
		loop_free(lp);
		return NULL;
	}
	pthread_mutex_unlock(&lp->mu);
	fk_sig_attach();
	if (!lp->cfg.member)
		fk_state_restore();
	set_state(lp, 1);
	run(lp);
	fk_sig_detach();
	if (lp->cfg.http && fk_serve_ops()) {
		fk_serve_ops()->snap_release();
		/* The cache's files are open in this table: closed here. */
		fk_serve_ops()->cache_drop();
	}
	fk_group_close();
	fk_sock_close_public(lp);
	fk_sock_close_own(lp);
	pthread_mutex_lock(&lp->mu);
	lp->state = 2;
	pthread_cond_broadcast(&lp->cv);
	pthread_mutex_unlock(&lp->mu);
	return NULL;
}

/* Waits until lp has made its descriptors (a worker's thread starts
 * later than its fork) or ended. */
static int wait_running(struct fk_loop *lp)
{
	int st;

	pthread_mutex_lock(&lp->mu);
	while (lp->state == 0)
		pthread_cond_wait(&lp->cv, &lp->mu);
	st = lp->state;
	pthread_mutex_unlock(&lp->mu);
	return st;
}

int fk_loop_start(const struct fk_loop_cfg *cfg, struct fk_err *err)
{
	struct fk_loop *lp;
	sigset_t all, old;
	int rc;

	if (cur)
		return fk_err_set(err, FK_EUNSUPP, 0, "the hook's thread already runs");
	lp = calloc(1, sizeof *lp);
	if (!lp)
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	lp->cfg = *cfg;
	lp->ctl[0] = lp->ctl[1] = -1;
	lp->pub_fd = lp->own_fd = -1;
	pthread_mutex_init(&lp->mu, NULL);
	pthread_cond_init(&lp->cv, NULL);
	/* The thread inherits a full mask: signals stay with the host's threads. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&lp->th, NULL, loop_main, lp);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		loop_free(lp);
		return fk_err_set(err, FK_EIO, 0, "cannot start the hook's thread: %s", strerror(rc));
	}
	if (cfg->member) {
		/* A forked child does not wait: fork() must return. */
		cur = lp;
		return 0;
	}
	if (wait_running(lp) < 0) {
		*err = lp->err;
		pthread_join(lp->th, NULL);
		loop_free(lp);
		return -1;
	}
	cur = lp;
	return 0;
}

/* Writes a byte to lp's pipe from any thread. */
static void wake(struct fk_loop *lp)
{
	char path[64];
	int tid = atomic_load(&lp->tid), fd;

	/* Its own thread, or a table shared with the host: the pipe is here. */
	if (self_loop == lp || !lp->private_fds) {
		if (lp->ctl[1] >= 0 && write(lp->ctl[1], "w", 1) < 0) {
			/* full: a wake is pending anyway */
		}
		return;
	}
	snprintf(path, sizeof path, "/proc/self/task/%d/fd/%d", tid, lp->ctl[0]);
	fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return;
	if (write(fd, "w", 1) < 0) {
		/* full */
	}
	close(fd);
}

int fk_loop_call(void (*fn)(void *), void *arg)
{
	struct fk_loop *lp = cur;

	if (!lp || self_loop == lp || wait_running(lp) != 1) {
		fn(arg);
		return 0;
	}
	pthread_mutex_lock(&lp->mu);
	while (lp->job && lp->state == 1)
		pthread_cond_wait(&lp->cv, &lp->mu);
	if (lp->state != 1) {
		pthread_mutex_unlock(&lp->mu);
		fn(arg);
		return 0;
	}
	lp->job = fn;
	lp->job_arg = arg;
	lp->job_done = 0;
	pthread_mutex_unlock(&lp->mu);
	wake(lp);
	pthread_mutex_lock(&lp->mu);
	while (!lp->job_done && lp->state == 1)
		pthread_cond_wait(&lp->cv, &lp->mu);
	if (!lp->job_done) {
		/* The loop ended before running it. */
		lp->job = NULL;
		pthread_mutex_unlock(&lp->mu);
		fn(arg);
		return 0;
	}
	lp->job = NULL;
	pthread_cond_broadcast(&lp->cv);
	pthread_mutex_unlock(&lp->mu);
	return 0;
}

struct fk_loop *fk_loop_take(void)
{
	struct fk_loop *lp = cur;

	cur = NULL;
	return lp;
}

int fk_loop_end(struct fk_loop *lp, double wait)
{
	int rc;

	if (!lp)
		return 0;
	atomic_store(&lp->quit, 1);
	pthread_mutex_lock(&lp->mu);
	if (lp->state == 0) {
		/* A worker's thread that has not started yet (it waits a moment
		 * after the fork): a process exiting at once is not held up. */
		lp->abandoned = 1;
		pthread_mutex_unlock(&lp->mu);
		pthread_detach(lp->th);
		return 0;
	}
	pthread_mutex_unlock(&lp->mu);
	if ((lp->pub || lp->own || lp->cfg.http) && fk_serve_ops())
		fk_serve_ops()->http_quit();
	if (wait_running(lp) == 1)
		wake(lp);
	if (wait < 0) {
		rc = pthread_join(lp->th, NULL);
	} else {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_sec += (time_t)wait;
		ts.tv_nsec += (long)((wait - (double)(time_t)wait) * 1e9);
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		rc = pthread_clockjoin_np(lp->th, NULL, CLOCK_MONOTONIC, &ts);
	}
	if (rc != 0) {
		/* Still converting a dump: it ends by itself once that is done
		 * (it sees quit); its memory goes with the process. */
		pthread_detach(lp->th);
		return -1;
	}
	/* The thread's table, and every descriptor in it, went with it. */
	loop_free(lp);
	return 0;
}

int fk_loop_running(void)
{
	return cur != NULL;
}

int fk_loop_mounted(void)
{
	return cur && cur->cfg.mounted;
}

int fk_loop_serving(void)
{
	return cur && cur->cfg.http && !cur->cfg.mounted;
}

const char *fk_loop_addr(void)
{
	const struct fk_loop *lp = self_loop ? self_loop : cur;

	return lp && lp->cfg.http && !lp->cfg.mounted ? lp->cfg.addr.text : NULL;
}

int fk_loop_forget(struct fk_loop_cfg *cfg)
{
	struct fk_loop *lp = cur;

	if (!lp)
		return 0;
	/* The thread does not exist in the child, nor does its table: nothing
	 * of it is closed here (the numbers are the host's). Its memory is
	 * left, since its locks may have been held when the fork came. */
	*cfg = lp->cfg;
	if (!lp->private_fds && lp->ctl[0] >= 0) {
		close(lp->ctl[0]);
		close(lp->ctl[1]);
	}
	cur = NULL;
	return 1;
}
