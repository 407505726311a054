/* SPDX-License-Identifier: MIT */
/* The transport's answers held for later (serve_defer.h): a request whose
 * reply has a deadline (?seconds=N: a delta profile) or work to do off
 * the loop (a request proxied to a worker) is suspended, kept in a list,
 * and answered from the loop when it is due; its work runs on a thread of
 * its own, which wakes the loop through a pipe. Held requests are bounded
 * (FK_HOOK_MAX_DEFERRED, FK_HOOK_MAX_DEFERRED_CLIENT a client), and one
 * whose client left is dropped at once. Only the loop thread calls these. */
#include <fcntl.h>
#include <microhttpd.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "serve_defer.h"

/* Work a handler gave to do off the loop, shared with its thread. */
struct fk_job {
	atomic_int state;          /* JOB_RUNNING, JOB_DONE or JOB_ABANDONED */
	int private_fds;           /* the loop's table is its own */
	void (*work)(void *ctx);
	void (*drop)(void *ctx);
	void *ctx;
};
enum { JOB_RUNNING, JOB_DONE, JOB_ABANDONED };

/* The held requests, newest first, and how many hold a place. */
static struct {
	struct fk_http_req *pending;
	int ndeferred;
	int work_pipe[2];          /* a job's thread wakes the loop */
} df = { .work_pipe = { -1, -1 } };

/* A 503 that also closes the connection, so the client's slot is freed. */
static int refuse_busy(struct MHD_Connection *c, const char *msg)
{
	struct MHD_Response *resp;
	char *b = strdup(msg);
	enum MHD_Result rc;

	if (!b)
		return MHD_NO;
	resp = MHD_create_response_from_buffer_with_free_callback(strlen(b), b, free);
	if (!resp) {
		free(b);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
	MHD_add_response_header(resp, MHD_HTTP_HEADER_RETRY_AFTER, "10");
	rc = MHD_queue_response(c, MHD_HTTP_SERVICE_UNAVAILABLE, resp);
	MHD_destroy_response(resp);
	return rc;
}

/* Holds request rq until deadline (fk_now() seconds), then sends what
 * fn(ctx, reply) makes; drop(ctx) instead when it ends first. */
static int defer(struct fk_http_req *rq, struct MHD_Connection *c, const uint64_t *client,
		 double deadline, void (*fn)(void *ctx, struct fk_reply *r),
		 void (*drop)(void *ctx), void *ctx)
{
	/* Each waiting request holds a connection slot for its whole wait:
	 * bounded, so that most slots stay free for everything else. */
	if (df.ndeferred >= FK_HOOK_MAX_DEFERRED) {
		if (drop)
			drop(ctx);
		return refuse_busy(c, "too many delta profiles (?seconds=N) are in progress "
				   "(at most " FK_HOOK_STR(FK_HOOK_MAX_DEFERRED) "): try again later\n");
	}
	/* Nor may one client hold them all (the listener's clients: a
	 * worker's is its listener, which counted them). */
	if (client) {
		unsigned mine = 0;

		rq->client = *client;
		for (struct fk_http_req *p = df.pending; p; p = p->next)
			mine += p->counted && p->client == rq->client;
		if (mine >= FK_HOOK_MAX_DEFERRED_CLIENT) {
			if (drop)
				drop(ctx);
			return refuse_busy(c, "this client already waits on "
					   FK_HOOK_STR(FK_HOOK_MAX_DEFERRED_CLIENT) " delta profiles "
					   "(?seconds=N), as many as one client may: try again "
					   "when one is answered\n");
		}
	}
	df.ndeferred++;
	rq->counted = 1;
	rq->conn = c;
	rq->deadline = deadline;
	rq->fn = fn;
	rq->drop = drop;
	rq->ctx = ctx;
	rq->deferred = 1;
	rq->next = df.pending;
	df.pending = rq;
	MHD_suspend_connection(c);
	return MHD_YES;
}

static void *job_main(void *arg)
{
	struct fk_job *j = arg;
	int expect = JOB_RUNNING;

	fk_je_thread_active(0, NULL);
	fk_arena_enter_thread();
	fk_self_mark(j->private_fds);
	j->work(j->ctx);
	if (!atomic_compare_exchange_strong(&j->state, &expect, JOB_DONE)) {
		/* Its request ended first: nobody will finish it. */
		if (j->drop)
			j->drop(j->ctx);
		free(j);
		return NULL;
	}
	if (write(df.work_pipe[1], "j", 1) < 0) {
		/* full: the loop wakes anyway */
	}
	return NULL;
}

/* Runs work(rq->ctx) on a thread of its own (it shares the loop's table
 * and blocks every signal, as the loop does). 0, or -1 when no thread. */
static int start_job(struct fk_http_req *rq, void (*work)(void *))
{
	struct fk_job *j = calloc(1, sizeof *j);
	pthread_attr_t at;
	pthread_t th;
	int rc;

	if (!j || df.work_pipe[1] < 0) {
		free(j);
		return -1;
	}
	atomic_init(&j->state, JOB_RUNNING);
	j->private_fds = fk_self_private_fds();
	j->work = work;
	j->drop = rq->drop;
	j->ctx = rq->ctx;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	rc = pthread_create(&th, &at, job_main, j);
	pthread_attr_destroy(&at);
	if (rc != 0) {
		free(j);
		return -1;
	}
	rq->job = j;
	return 0;
}

/* The request of a job is over before the job: the thread drops ctx if it
 * is still running; else it is dropped here. Returns 1 when the caller
 * must not drop ctx itself. */
static int abandon_job(struct fk_http_req *rq)
{
	struct fk_job *j = rq->job;
	int expect = JOB_RUNNING;

	if (!j)
		return 0;
	rq->job = NULL;
	if (atomic_compare_exchange_strong(&j->state, &expect, JOB_ABANDONED))
		return 1;
	free(j);
	return 0;
}

static void unlink_pending(struct fk_http_req *rq)
{
	for (struct fk_http_req **pp = &df.pending; *pp; pp = &(*pp)->next) {
		if (*pp == rq) {
			*pp = rq->next;
			return;
		}
	}
}

/* What a held request is answered when the server stops. */
static void drop_reply(void *ctx, struct fk_reply *r)
{
	(void)ctx;
	r->status = MHD_HTTP_SERVICE_UNAVAILABLE;
	r->body = strdup("the profiling server is stopping\n");
	r->len = r->body ? strlen(r->body) : 0;
}

/* rq's context is dropped (or left to its job's thread) and rq answered
 * drop_reply's 503 at the next run. */
static void answer_stopped(struct fk_http_req *rq)
{
	if (!abandon_job(rq) && rq->drop)
		rq->drop(rq->ctx);
	rq->drop = NULL;
	rq->settled = NULL;
	rq->fn = drop_reply;
	rq->deadline = 0;
}

void fk_defer_drop_gone(void)
{
	for (struct fk_http_req *rq = df.pending; rq; rq = rq->next) {
		const union MHD_ConnectionInfo *ci =
			MHD_get_connection_info(rq->conn, MHD_CONNECTION_INFO_CONNECTION_FD);
		struct pollfd pf;

		if (!ci || rq->fn == drop_reply)
			continue;
		pf.fd = ci->connect_fd;
		pf.events = POLLRDHUP;
		pf.revents = 0;
		if (poll(&pf, 1, 0) != 1 || !(pf.revents & (POLLRDHUP | POLLHUP | POLLERR)))
			continue;
		answer_stopped(rq);
	}
}

void fk_defer_init(void)
{
	if (df.work_pipe[0] < 0 && pipe2(df.work_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		df.work_pipe[0] = df.work_pipe[1] = -1;
	fk_stream_init(df.work_pipe[0]);
	df.pending = NULL;
	df.ndeferred = 0;
}

int fk_defer_reply(struct fk_http_req *rq, struct MHD_Connection *c, const struct fk_reply *r,
		   const uint64_t *client)
{
	int rc;

	if (!r->work) {
		rc = defer(rq, c, client, r->deadline, r->finish, r->drop, r->ctx);
		if (rq->deferred)
			rq->settled = r->settled;
		return rc;
	}
	rc = defer(rq, c, client, r->deadline > 0 ? r->deadline : fk_now() + FK_HOOK_PROXY_SECONDS,
		   r->finish, r->drop, r->ctx);
	if (rq->deferred && start_job(rq, r->work) < 0) {
		/* No thread: answered now, as a deadline reached. */
		rq->deadline = 0;
	}
	return rc;
}

void fk_defer_wake_drain(void)
{
	char b[64];

	if (df.work_pipe[0] >= 0)
		while (read(df.work_pipe[0], b, sizeof b) > 0)
			;
}

int fk_defer_run(double now)
{
	int resumed = 0;

	for (struct fk_http_req **pp = &df.pending; *pp;) {
		struct fk_http_req *rq = *pp;

		int done = rq->job && atomic_load(&rq->job->state) == JOB_DONE;

		if (rq->deadline > now && !done && !(rq->settled && rq->settled(rq->ctx))) {
			pp = &rq->next;
			continue;
		}
		*pp = rq->next;
		memset(&rq->reply, 0, sizeof rq->reply);
		if (rq->job && !done) {
			/* Its time is up and its thread still runs. */
			abandon_job(rq);
			fk_reply_error(&rq->reply, 504, "the process asked did not answer within "
				       "%d seconds", FK_HOOK_PROXY_SECONDS);
		} else {
			if (rq->job) {
				free(rq->job);
				rq->job = NULL;
			}
			rq->fn(rq->ctx, &rq->reply);
		}
		rq->drop = NULL;
		rq->ready = 1;
		if (rq->counted) {
			rq->counted = 0;
			df.ndeferred--;
		}
		MHD_resume_connection(rq->conn);
		resumed = 1;
	}
	return resumed;
}

int fk_defer_pending(void)
{
	return df.pending != NULL;
}

long long fk_defer_timeout(double now, long long ms)
{
	for (struct fk_http_req *rq = df.pending; rq; rq = rq->next) {
		long long left = (long long)((rq->deadline - now) * 1000.0) + 1;

		if (left < 0)
			left = 0;
		if (ms < 0 || left < ms)
			ms = left;
	}
	return ms;
}

void fk_defer_end(struct fk_http_req *rq)
{
	if (rq->deferred && !rq->ready) {
		unlink_pending(rq);
		if (!abandon_job(rq) && rq->drop)
			rq->drop(rq->ctx);
	}
	if (rq->counted)
		df.ndeferred--;
}

void fk_defer_stop(void)
{
	/* MHD refuses to stop with suspended connections: they are answered. */
	for (struct fk_http_req *rq = df.pending; rq; rq = rq->next)
		answer_stopped(rq);
}

void fk_defer_forget(void)
{
	df.pending = NULL;
}

void fk_http_atfork_child(void)
{
	/* The pipe was made in the parent's hook thread's table, which the
	 * child has not: its numbers are another file's there, if any. */
	df.work_pipe[0] = df.work_pipe[1] = -1;
	fk_stream_atfork_child();
}

int fk_http_work_fd(void)
{
	/* The pipe within the streams' set, when there is one. */
	int ep = fk_stream_init(df.work_pipe[0]);

	return ep >= 0 ? ep : df.work_pipe[0];
}

