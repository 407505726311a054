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
#include <string.h>
#include <unistd.h>

#include "hook_int.h"

static struct {
	pthread_t th;
	int running;
	int ctl[2];
	struct MHD_Daemon *d;
	int listen_fd;
	int sigfd;
} L = { .ctl = { -1, -1 }, .listen_fd = -1, .sigfd = -1 };

static void *loop_main(void *arg)
{
	int epfd = L.d ? fk_http_poll_fd(L.d) : -1;

	(void)arg;
	pthread_setname_np(pthread_self(), "flamekit-hook");
	/* Find jemalloc before the first request is served, and stop sampling
	 * this thread before it does any of the hook's work. */
	fk_je_check(NULL);
	fk_je_thread_active(0, NULL);
	fk_state_restore();
	for (;;) {
		struct pollfd pf[3];
		int n = 0, isig = -1, ihttp = -1, to = -1;

		pf[n].fd = L.ctl[0];
		pf[n++].events = POLLIN;
		if (L.sigfd >= 0) {
			isig = n;
			pf[n].fd = L.sigfd;
			pf[n++].events = POLLIN;
		}
		if (epfd >= 0) {
			ihttp = n;
			pf[n].fd = epfd;
			pf[n++].events = POLLIN;
			to = fk_http_timeout(L.d);
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
			fk_sig_dump(L.sigfd);
		if (ihttp >= 0)
			fk_http_run(L.d);
	}
	return NULL;
}

int fk_loop_start(struct MHD_Daemon *d, int sigfd, struct fk_err *err)
{
	sigset_t all, old;
	int rc;

	if (L.running)
		return fk_err_set(err, FK_EUNSUPP, 0, "the hook's thread already runs");
	if (pipe2(L.ctl, O_CLOEXEC | O_NONBLOCK) < 0)
		return fk_err_set(err, FK_EIO, 0, "pipe: %s", strerror(errno));
	L.d = d;
	L.sigfd = sigfd;
	L.listen_fd = -1;
	if (d) {
		const union MHD_DaemonInfo *di = MHD_get_daemon_info(d, MHD_DAEMON_INFO_LISTEN_FD);

		L.listen_fd = di ? di->listen_fd : -1;
	}
	/* The thread inherits a full mask: signals stay with the host's threads. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&L.th, NULL, loop_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		close(L.ctl[0]);
		close(L.ctl[1]);
		L.ctl[0] = L.ctl[1] = -1;
		L.d = NULL;
		return fk_err_set(err, FK_EIO, 0, "cannot start the hook's thread: %s", strerror(rc));
	}
	L.running = 1;
	return 0;
}

void fk_loop_stop(void)
{
	char b = 'q';

	if (!L.running)
		return;
	if (write(L.ctl[1], &b, 1) < 0) {
		/* The pipe is empty and ours: cannot fail but for EINTR. */
	}
	pthread_join(L.th, NULL);
	close(L.ctl[0]);
	close(L.ctl[1]);
	L.ctl[0] = L.ctl[1] = -1;
	fk_http_free(L.d);
	L.d = NULL;
	L.listen_fd = -1;
	L.running = 0;
}

int fk_loop_running(void)
{
	return L.running;
}

int fk_loop_serving(void)
{
	return L.running && L.d != NULL;
}

void fk_loop_forget(void)
{
	if (!L.running)
		return;
	/* The daemon's memory and its other fds are leaked on purpose: its
	 * locks may have been held by the thread that did not survive fork. */
	if (L.listen_fd >= 0)
		close(L.listen_fd);
	close(L.ctl[0]);
	close(L.ctl[1]);
	L.ctl[0] = L.ctl[1] = -1;
	L.d = NULL;
	L.listen_fd = -1;
	L.running = 0;
}
