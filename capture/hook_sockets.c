/* SPDX-License-Identifier: MIT */
/* The sockets the hook's thread serves (hook_loop.c polls them): the
 * public address of FLAMEKIT_HTTP, or a forked worker's private socket and
 * its registry connection (hook_group.c); their daemons once the serving
 * half is loaded (hook_serve.c); and a worker's takeover of the address
 * when the listener it knew is gone (libflamekit-hook(3), PROCESSES). */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "hook_int.h"
#include "hook_loop.h"

/* Whether this loop serves the public address (now or once loaded). */
int fk_sock_is_public(const struct fk_loop *lp)
{
	return lp->pub || lp->pub_fd >= 0;
}

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
void fk_sock_serve(struct fk_loop *lp)
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
static void close_daemon(struct MHD_Daemon **d, int *fd)
{
	if (*d)
		fk_serve_ops()->http_free(*d);
	if (*fd >= 0)
		close(*fd);
	*d = NULL;
	*fd = -1;
}

void fk_sock_close_own(struct fk_loop *lp)
{
	close_daemon(&lp->own, &lp->own_fd);
}

void fk_sock_close_public(struct fk_loop *lp)
{
	close_daemon(&lp->pub, &lp->pub_fd);
}

/* The public address: listens, in place of a worker's socket (one at a
 * time), and starts its daemon once the serving half is there. 0 or -1
 * with err. */
static int listen_public(struct fk_loop *lp, struct fk_err *err)
{
	int fd = fk_addr_listen(&lp->cfg.addr, 128, err);

	if (fd < 0)
		return -1;
	fk_sock_close_own(lp);
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
void fk_sock_renew(struct fk_loop *lp)
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

/* What the thread serves, made in its own table. */
int fk_sock_setup(struct fk_loop *lp, struct fk_err *err)
{
	if (!lp->cfg.http || lp->cfg.mounted)
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
void fk_sock_take_over(struct fk_loop *lp)
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

