/* SPDX-License-Identifier: MIT */
/* Between the transport's two files: a request's state, which serve_http.c
 * makes and ends, and the answers held for later, which serve_defer.c
 * keeps (a deadline: ?seconds=N; work off the loop: a proxied request). */
#ifndef FK_SERVE_DEFER_H
#define FK_SERVE_DEFER_H

#include <stddef.h>
#include <stdint.h>

#include "serve_int.h"

struct MHD_Connection;
struct fk_job;

/* One request, from its target's arrival to its end. */
struct fk_http_req {
	size_t urilen;             /* the whole request target, query included */
	char *uri;                 /* that target, as received */
	int too_many;              /* more than FK_HOOK_MAX_PARAMS parameters */
	int checked;               /* admission done */
	size_t body;               /* request body bytes seen (discarded) */
	unsigned reject;           /* status decided before the body ended */
	char why[256];             /* its sentence */
	/* deferred */
	struct MHD_Connection *conn;
	double deadline;
	void (*fn)(void *ctx, struct fk_reply *r);
	void (*drop)(void *ctx);
	void *ctx;
	int deferred, ready;       /* held; its answer is in reply, to send */
	struct fk_job *job;        /* work running off the loop, or NULL */
	int (*settled)(void *ctx); /* answered before the deadline once 1 */
	int counted;               /* holds one of the FK_HOOK_MAX_DEFERRED places */
	uint64_t client;           /* its client's fk_peer key, 0 unknown */
	struct fk_reply reply;
	struct fk_http_req *next;  /* in the pending list while deferred */
};

/* A new daemon's start: no request is held; makes the pipe a job's
 * thread wakes the loop with, once. */
void fk_defer_init(void);

/* Holds rq on connection c (suspended) for r's answer: r->finish at
 * r->deadline, or once r->work, run on a thread of its own, is done
 * (by FK_HOOK_PROXY_SECONDS when r gives no deadline; 504 past it).
 * client: the asking client's fk_peer key, whose held requests are
 * bounded (FK_HOOK_MAX_DEFERRED_CLIENT), or NULL where they are not (a
 * worker's socket: its listener counted them). A request past the bounds
 * is refused with a 503 that closes the connection, r->drop called.
 * Returns MHD_YES or MHD_NO. */
int fk_defer_reply(struct fk_http_req *rq, struct MHD_Connection *c, const struct fk_reply *r,
		   const uint64_t *client);

/* Drains the wake-up pipe (before a run of the daemon). */
void fk_defer_wake_drain(void);

/* A held request whose client closed its end is answered (nobody reads
 * it) at the next fk_defer_run rather than at its deadline, so its place
 * comes back; its context is dropped now. */
void fk_defer_drop_gone(void);

/* After a run of the daemon at now: the held requests that are due
 * (deadline reached, work done, or out of time: 504) are answered and
 * resumed. 1 when any was resumed (the daemon must run again), else 0. */
int fk_defer_run(double now);

/* Whether any request is held. */
int fk_defer_pending(void);

/* ms (-1: none) lowered to the first held request's deadline from now. */
long long fk_defer_timeout(double now, long long ms);

/* A held request ended before its answer (its client left): its context
 * is dropped, its place given back. */
void fk_defer_end(struct fk_http_req *rq);

/* The daemon stops: every held request is answered 503 at the next run. */
void fk_defer_stop(void);

/* The daemon is abandoned (it panicked): the held requests are forgotten. */
void fk_defer_forget(void);

#endif
