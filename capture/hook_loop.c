/* SPDX-License-Identifier: MIT */
/* The hook's one thread: polls the HTTP daemon's epoll fd, the signal
 * self-pipe and a control pipe, and does all the hook's work, so that
 * excluding this thread from sampling (thread.prof.active) keeps the hook
 * out of every profile it serves. */
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hook_int.h"

struct fk_loop {
	pthread_t th;
	int ctl[2];
	struct MHD_Daemon *d;
	int listen_fd;
	int sigfd;
};

/* The running loop; the callers of start/take/forget serialise them. */
static struct fk_loop *cur;

static void *loop_main(void *arg)
{
	struct fk_loop *lp = arg;
	int epfd = lp->d ? fk_http_poll_fd(lp->d) : -1;

	pthread_setname_np(pthread_self(), "flamekit-hook");
	/* Find jemalloc before the first request is served, and stop sampling
	 * this thread before it does any of the hook's work. */
	fk_je_check(NULL);
	fk_je_thread_active(0, NULL);
	fk_arena_enter_thread();
	fk_state_restore();
	for (;;) {
		struct pollfd pf[3];
		int n = 0, isig = -1, ihttp = -1, to = -1;

		pf[n].fd = lp->ctl[0];
		pf[n++].events = POLLIN;
		if (lp->sigfd >= 0) {
			isig = n;
			pf[n].fd = lp->sigfd;
			pf[n++].events = POLLIN;
		}
		if (epfd >= 0) {
			ihttp = n;
			pf[n].fd = epfd;
			pf[n++].events = POLLIN;
			to = fk_http_timeout(lp->d);
			/* Snapshots are taken here, on the one thread. */
			int st = fk_snap_timeout_ms();
			if (st >= 0 && (to < 0 || st < to))
				to = st;
		}
		if (poll(pf, (nfds_t)n, to) < 0) {
			if (errno != EINTR)
				usleep(10000);
			continue;
		}
		if (pf[0].revents)
			break;
		if ((isig >= 0 && (pf[isig].revents & POLLNVAL)) ||
		    (ihttp >= 0 && (pf[ihttp].revents & POLLNVAL))) {
			/* The program closed descriptors it did not open (a
			 * daemon closing everything): stop rather than spin. */
			fprintf(stderr, "flamekit-hook: the program closed the hook's "
				"file descriptors; serving stopped\n");
			break;
		}
		if (isig >= 0 && pf[isig].revents)
			fk_sig_dump(lp->sigfd);
		if (ihttp >= 0) {
			fk_http_run(lp->d);
			fk_snap_tick();
		}
	}
	if (lp->d)
		fk_snap_release();
	return NULL;
}

int fk_loop_start(struct MHD_Daemon *d, int sigfd, struct fk_err *err)
{
	struct fk_loop *lp;
	sigset_t all, old;
	int rc;

	if (cur)
		return fk_err_set(err, FK_EUNSUPP, 0, "the hook's thread already runs");
	lp = calloc(1, sizeof *lp);
	if (!lp)
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	if (pipe2(lp->ctl, O_CLOEXEC | O_NONBLOCK) < 0) {
		free(lp);
		return fk_err_set(err, FK_EIO, 0, "pipe: %s", strerror(errno));
	}
	lp->d = d;
	lp->sigfd = sigfd;
	lp->listen_fd = -1;
	if (d) {
		const union MHD_DaemonInfo *di = MHD_get_daemon_info(d, MHD_DAEMON_INFO_LISTEN_FD);

		lp->listen_fd = di ? di->listen_fd : -1;
	}
	/* The thread inherits a full mask: signals stay with the host's threads. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&lp->th, NULL, loop_main, lp);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		close(lp->ctl[0]);
		close(lp->ctl[1]);
		free(lp);
		return fk_err_set(err, FK_EIO, 0, "cannot start the hook's thread: %s", strerror(rc));
	}
	cur = lp;
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
	char b = 'q';
	int rc;

	if (!lp)
		return 0;
	if (lp->d)
		fk_http_quit();
	if (write(lp->ctl[1], &b, 1) < 0) {
		/* The pipe is empty and ours: cannot fail but for EINTR. */
	}
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
		 * (it reads the byte just written); its memory goes with the
		 * process. */
		pthread_detach(lp->th);
		return -1;
	}
	close(lp->ctl[0]);
	close(lp->ctl[1]);
	fk_http_free(lp->d);
	free(lp);
	return 0;
}


int fk_loop_running(void)
{
	return cur != NULL;
}

int fk_loop_serving(void)
{
	return cur && cur->d != NULL;
}

void fk_loop_forget(void)
{
	if (!cur)
		return;
	/* The daemon's memory and its other fds are leaked on purpose: its
	 * locks may have been held by the thread that did not survive fork. */
	if (cur->listen_fd >= 0)
		close(cur->listen_fd);
	close(cur->ctl[0]);
	close(cur->ctl[1]);
	cur = NULL;
}
