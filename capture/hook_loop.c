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
 * turned on, loads it and hands the sockets to its daemons. */
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

#ifndef CLOSE_RANGE_UNSHARE
#define CLOSE_RANGE_UNSHARE 2
#endif

struct fk_loop {
	pthread_t th;
	struct fk_loop_cfg cfg;
	atomic_int tid;            /* the thread's id once it runs */
	int private_fds;           /* its table is its own */
	int ctl[2];                /* wake pipe, in the thread's table */
	atomic_int quit;
	/* the start: the starter waits until the thread serves or failed */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int state;                 /* 0 starting, 1 running, -1 failed, 2 ended */
	int abandoned;             /* ended before it ran: it frees itself */
	struct fk_err err;
	/* one call from another thread at a time (fk_loop_call) */
	void (*job)(void *);
	void *job_arg;
	int job_done;
	struct MHD_Daemon *pub;    /* the address of FLAMEKIT_HTTP */
	struct MHD_Daemon *own;    /* a worker's private socket */
	int pub_fd, own_fd;        /* their sockets before the serving half
				      is loaded (-1: none) */
	int load_failed;           /* the serving half could not be loaded */
	double retry_at;           /* when to try taking the address over */
	double retry_step;
};

/* The running loop; the callers of start/take/forget serialise them. */
static struct fk_loop *cur;
/* The loop thread's own loop, for code that runs on it. */
static __thread struct fk_loop *self_loop;

/* Whether this loop serves the public address (now or once loaded). */
static int is_public(const struct fk_loop *lp)
{
	return lp->pub || lp->pub_fd >= 0;
}

int fk_loop_member(void)
{
	return cur && cur->cfg.member && !is_public(cur);
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

/* The public address: listens and starts its daemon, in place of a
 * worker's (one daemon at a time). 0 or -1 with err. */
/* Hands the listening sockets to daemons of the serving half, when it
 * is loaded (a no-op before). A socket whose daemon cannot be made is
 * closed: 0, or -1 with err (the last failure). */
static int attach(struct fk_loop *lp, struct fk_err *err)
{
	const struct fk_serve_ops *ops = fk_serve_ops();
	int rc = 0;

	if (!ops)
		return 0;
	if (lp->pub_fd >= 0) {
		lp->pub = ops->http_new(lp->pub_fd, ops->handler, 0, err);
		lp->pub_fd = -1;
		rc = lp->pub ? rc : -1;
	}
	if (lp->own_fd >= 0) {
		lp->own = ops->http_new(lp->own_fd, ops->handler, 1, err);
		lp->own_fd = -1;
		rc = lp->own ? rc : -1;
	}
	return rc;
}

/* Loads the serving half (on this thread: its libraries' start-up
 * allocations are the hook's own) and attaches the sockets to it. A
 * failure is said once; the sockets are then closed, since nothing can
 * answer on them. */
static void serve(struct fk_loop *lp)
{
	struct fk_err err;

	if (lp->load_failed)
		return;
	fk_err_init(&err, NULL);
	if (!fk_serve_load(&err)) {
		lp->load_failed = 1;
		fk_log("serving stopped: %s", err.msg);
		if (lp->pub_fd >= 0)
			close(lp->pub_fd);
		if (lp->own_fd >= 0)
			close(lp->own_fd);
		lp->pub_fd = lp->own_fd = -1;
		return;
	}
	if (attach(lp, &err) < 0)
		fk_log("%s", err.msg);
}

/* Closes a daemon, or the socket waiting for one. */
static void close_own(struct fk_loop *lp)
{
	if (lp->own)
		fk_serve_ops()->http_free(lp->own);
	if (lp->own_fd >= 0)
		close(lp->own_fd);
	lp->own = NULL;
	lp->own_fd = -1;
}

static void close_public(struct fk_loop *lp)
{
	if (lp->pub)
		fk_serve_ops()->http_free(lp->pub);
	if (lp->pub_fd >= 0)
		close(lp->pub_fd);
	lp->pub = NULL;
	lp->pub_fd = -1;
}

/* The public address: listens, in place of a worker's socket (one at a
 * time), and starts its daemon once the serving half is there. 0 or -1
 * with err. */
static int listen_public(struct fk_loop *lp, struct fk_err *err)
{
	int fd = fk_addr_listen(&lp->cfg.addr, 128, err);

	if (fd < 0)
		return -1;
	close_own(lp);
	lp->pub_fd = fd;
	return attach(lp, err);
}

/* A worker's private socket, and its daemon once the serving half is
 * there. 0 or -1 with err. */
static int listen_own(struct fk_loop *lp, struct fk_err *err)
{
	int fd = fk_group_worker_socket(err);

	if (fd < 0)
		return -1;
	lp->own_fd = fd;
	return attach(lp, err);
}

/* libmicrohttpd panicked: its daemon is left, a new one made. */
static void renew(struct fk_loop *lp)
{
	const struct fk_serve_ops *ops = fk_serve_ops();
	struct fk_err err;

	fk_err_init(&err, NULL);
	if (lp->pub) {
		ops->http_free(lp->pub);
		lp->pub = NULL;
		if (listen_public(lp, &err) < 0)
			fk_log("%s: %s", lp->cfg.addr.text, err.msg);
	} else if (lp->own) {
		ops->http_free(lp->own);
		lp->own = NULL;
		if (listen_own(lp, &err) < 0)
			fk_log("worker %ld: %s", (long)getpid(), err.msg);
	}
}

/* Whether sampling is on (the snapshots' timer needs the serving half),
 * as serve_snap.c's timer tells it. */
static int sampling_on(void)
{
	return fk_state_active_since() >= 0 ||
	       (fk_state_sampled() && fk_state_active_since() >= 0);
}

/* What the thread serves, made in its own table. */
static int setup(struct fk_loop *lp, struct fk_err *err)
{
	if (pipe2(lp->ctl, O_CLOEXEC | O_NONBLOCK) < 0)
		return fk_err_set(err, FK_EIO, 0, "pipe: %s", strerror(errno));
	if (!lp->cfg.http)
		return 0;
	if (!lp->cfg.member) {
		if (listen_public(lp, err) < 0)
			return -1;
		if (fk_group_listen(err) < 0)
			fk_log("%s: worker processes will not be reachable", err->msg);
		return 0;
	}
	/* A forked worker: its own private socket, then the listener's. */
	if (listen_own(lp, err) < 0)
		fk_log("worker %ld: %s", (long)getpid(), err->msg);
	if (fk_group_join() < 0) {
		/* No listener answers: it may be gone already (a daemon's parent). */
		lp->retry_at = fk_now();
	}
	return 0;
}

/* Backs off the next try: from first, doubling, at most 1 s. */
static void retry_later(struct fk_loop *lp, double first)
{
	lp->retry_step = lp->retry_step <= 0 ? first : lp->retry_step * 2 > 1 ? 1 : lp->retry_step * 2;
	lp->retry_at = fk_now() + lp->retry_step;
}

/* The worker's registry connection ended, or none could be made: join
 * the listener again (the next image of one that exec'd itself, or a
 * worker that took over), wait while the listener it knew lives, or
 * take its address over, or learn who did and watch that one. */
static void take_over(struct fk_loop *lp)
{
	struct fk_err err;

	fk_err_init(&err, NULL);
	lp->retry_at = 0;
	if (fk_group_join() == 0) {
		lp->retry_step = 0;
		return;
	}
	if (fk_group_listener_alive()) {
		/* Same pid, same start: it exec'd itself and its next image
		 * has not opened the registry yet (or no longer serves). Its
		 * address stays its own; the tries start fast, since an
		 * image's start takes milliseconds. */
		retry_later(lp, 0.01);
		return;
	}
	if (listen_public(lp, &err) == 0) {
		fk_group_leave();
		if (fk_group_listen(&err) < 0)
			fk_log("%s: worker processes will not be reachable", err.msg);
		fk_log("process %ld now serves %s (the process that served it exited)",
		       (long)getpid(), lp->cfg.addr.text);
		lp->retry_step = 0;
		return;
	}
	/* Someone else holds it and has not said so yet, or another program
	 * (another user's is said once): try again, less and less often. */
	fk_group_takeover_failed(&lp->cfg.addr);
	retry_later(lp, 0.1);
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

static int min_timeout(int a, int b)
{
	return a < 0 ? b : b < 0 ? a : a < b ? a : b;
}

#define MAX_POLL (4 + FK_HOOK_MAX_WORKERS)

static void run(struct fk_loop *lp)
{
	static struct pollfd pf[MAX_POLL];
	sigset_t wait_mask;

	sigfillset(&wait_mask);
	if (lp->cfg.sig > 0)
		sigdelset(&wait_mask, lp->cfg.sig);
	while (!atomic_load(&lp->quit)) {
		int n = 0, ipub = -1, iwait, nwait, igrp, to = -1;
		struct timespec ts, *tsp = NULL;
		const struct fk_serve_ops *ops;

		if (lp->cfg.http && !fk_serve_ops() && sampling_on())
			serve(lp);
		ops = fk_serve_ops();
		pf[n].fd = lp->ctl[0];
		pf[n++].events = POLLIN;
		if (lp->pub) {
			ipub = n;
			pf[n].fd = ops->http_poll_fd(lp->pub);
			pf[n++].events = POLLIN;
			to = min_timeout(to, ops->http_timeout(lp->pub));
		}
		if (lp->own) {
			pf[n].fd = ops->http_poll_fd(lp->own);
			pf[n++].events = POLLIN;
			to = min_timeout(to, ops->http_timeout(lp->own));
		}
		/* Sockets waiting for the serving half: a connection loads it. */
		iwait = n;
		if (lp->pub_fd >= 0) {
			pf[n].fd = lp->pub_fd;
			pf[n++].events = POLLIN;
		}
		if (lp->own_fd >= 0) {
			pf[n].fd = lp->own_fd;
			pf[n++].events = POLLIN;
		}
		nwait = n - iwait;
		if (lp->cfg.http && ops)
			to = min_timeout(to, ops->snap_timeout_ms());
		if (ops && ops->http_work_fd() >= 0 && (lp->pub || lp->own)) {
			pf[n].fd = ops->http_work_fd();
			pf[n++].events = POLLIN;
		}
		if (lp->retry_at > 0) {
			double left = (lp->retry_at - fk_now()) * 1000.0;

			to = min_timeout(to, left < 0 ? 0 : (int)left + 1);
		}
		igrp = n;
		n += fk_group_pollfds(pf + n, MAX_POLL - n);
		if (to >= 0) {
			ts.tv_sec = to / 1000;
			ts.tv_nsec = (long)(to % 1000) * 1000000L;
			tsp = &ts;
		}
		if (ppoll(pf, (nfds_t)n, tsp, &wait_mask) < 0 && errno != EINTR) {
			usleep(10000);
			continue;
		}
		if (pf[0].revents)
			drain(lp);
		if (atomic_load(&lp->quit))
			break;
		if (fk_sig_take())
			fk_sig_dump();
		if ((ipub >= 0 && (pf[ipub].revents & POLLNVAL)) ||
		    (nwait > 0 && (pf[iwait].revents & POLLNVAL))) {
			/* Cannot happen with a table of our own; with a shared
			 * one the program closed the hook's descriptors. */
			fk_log("the program closed the hook's file descriptors; serving stopped");
			break;
		}
		for (int i = iwait; i < iwait + nwait; i++)
			if (pf[i].revents)
				serve(lp);
		ops = fk_serve_ops();
		if (lp->pub)
			ops->http_run(lp->pub);
		if (lp->own)
			ops->http_run(lp->own);
		if (ops && ops->http_broken())
			renew(lp);
		if (fk_group_events(pf + igrp, n - igrp) == FK_GROUP_LOST && !is_public(lp))
			take_over(lp);
		if (lp->retry_at > 0 && fk_now() >= lp->retry_at)
			take_over(lp);
		if (lp->cfg.http && ops)
			ops->snap_tick();
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
	if (setup(lp, &err) < 0) {
		lp->err = err;
		close_public(lp);
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
		close_own(lp);
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
	close_public(lp);
	close_own(lp);
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

int fk_loop_serving(void)
{
	return cur && cur->cfg.http;
}

const char *fk_loop_addr(void)
{
	const struct fk_loop *lp = self_loop ? self_loop : cur;

	return lp && lp->cfg.http ? lp->cfg.addr.text : NULL;
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
