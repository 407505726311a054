/* The hook's HTTP server on libmicrohttpd: one daemon in external-poll epoll
 * mode, driven by the hook's own thread (hook_loop.c), so that no thread
 * jemalloc samples ever runs server code. Requests pass admission
 * (hook_guard.c), their bodies are bounded and discarded, then answered
 * by the handler the starter gave (the route table): the transport knows
 * no endpoint. Deferred answers (?seconds=N) are suspended and sent from
 * the loop. */
#include <microhttpd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hook_int.h"

struct fk_req {
	size_t urilen;             /* the whole request target, query included */
	int checked;               /* admission done */
	size_t body;               /* request body bytes seen (discarded) */
	unsigned reject;           /* status decided before the body ended */
	const char *reject_msg;
	/* deferred */
	struct MHD_Connection *conn;
	double deadline;
	void (*fn)(void *ctx, struct fk_reply *r);
	void (*drop)(void *ctx);
	void *ctx;
	int deferred, ready;
	struct fk_reply reply;
	struct fk_req *next;       /* in the pending list while deferred */
};

/* Only the loop thread touches these. */
static struct fk_req *pending;
static fk_handler_fn *handler;

struct mapped {
	char *data;
	size_t maplen;
};

static void release_mapped(void *cls)
{
	struct mapped *m = cls;

	fk_hook_buf_release(m->data, m->maplen);
	free(m);
}

/* Queues body (malloc'd, or a mapping of maplen bytes), taking it. */
static int queue_buf(struct MHD_Connection *c, unsigned status, const char *ctype,
		     const char *disp, char *body, size_t len, size_t maplen)
{
	struct MHD_Response *resp = NULL;
	struct mapped *m;
	enum MHD_Result rc;

	if (maplen == 0) {
		resp = MHD_create_response_from_buffer_with_free_callback(len, body, free);
	} else if ((m = malloc(sizeof *m))) {
		m->data = body;
		m->maplen = maplen;
		resp = MHD_create_response_from_buffer_with_free_callback_cls(len, body,
									      release_mapped, m);
		if (!resp)
			free(m);
	}
	if (!resp) {
		fk_hook_buf_release(body, maplen);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	if (disp)
		MHD_add_response_header(resp, "Content-Disposition", disp);
	rc = MHD_queue_response(c, status, resp);
	MHD_destroy_response(resp);
	return rc;
}

/* Queues r (taking its body) on c. Returns MHD_YES/MHD_NO. */
static int queue_reply(struct MHD_Connection *c, struct fk_reply *r)
{
	char *b = r->body;
	size_t maplen = r->maplen;

	r->body = NULL;
	r->maplen = 0;
	if (!b) {
		b = malloc(1);
		if (!b)
			return MHD_NO;
		r->len = 0;
		maplen = 0;
	}
	return queue_buf(c, r->status, r->ctype ? r->ctype : "text/plain; charset=utf-8",
			 r->disposition, b, r->len, maplen);
}

static const char *conn_arg(void *tctx, const char *name)
{
	return MHD_lookup_connection_value(tctx, MHD_GET_ARGUMENT_KIND, name);
}

/* The request's Host header when it is a plain host[:port], for messages. */
static const char *host_for_msg(struct MHD_Connection *c)
{
	const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);

	if (!h || !*h || strlen(h) > 100 ||
	    strspn(h, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.:[]-") != strlen(h))
		return "HOST";
	return h;
}

/* Answers an admitted request through the handler: now, or suspended
 * until the reply's deadline. */
static int answer(struct fk_req *rq, struct MHD_Connection *c, const char *method,
		  const char *url)
{
	struct fk_request req = {
		.method = method, .path = url, .host = host_for_msg(c),
		.arg = conn_arg, .tctx = c,
	};
	struct fk_reply r;

	memset(&r, 0, sizeof r);
	handler(&req, &r);
	if (r.deadline <= 0)
		return queue_reply(c, &r);
	rq->conn = c;
	rq->deadline = r.deadline;
	rq->fn = r.finish;
	rq->drop = r.drop;
	rq->ctx = r.ctx;
	rq->deferred = 1;
	rq->next = pending;
	pending = rq;
	MHD_suspend_connection(c);
	return MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
				  const char *url, const char *method,
				  const char *version, const char *upload_data,
				  size_t *upload_size, void **req_cls)
{
	struct fk_req *rq = *req_cls;

	(void)cls;
	(void)version;
	(void)upload_data;
	if (!rq) {
		/* The URI callback failed to allocate. */
		return MHD_NO;
	}
	if (!rq->checked) {
		rq->checked = 1;
		rq->reject = fk_guard_check(c, method, url, rq->urilen, &rq->reject_msg);
		return MHD_YES;
	}
	if (rq->ready) {
		rq->ready = 0;
		return (enum MHD_Result)queue_reply(c, &rq->reply);
	}
	if (*upload_size > 0) {
		if (*upload_size > FK_HOOK_MAX_BODY - rq->body) {
			if (!rq->reject) {
				rq->reject = MHD_HTTP_CONTENT_TOO_LARGE;
				rq->reject_msg = "request body too large";
			}
			rq->body = FK_HOOK_MAX_BODY;
		} else {
			rq->body += *upload_size;
		}
		*upload_size = 0;
		return MHD_YES;
	}
	if (rq->reject) {
		struct fk_reply r;

		memset(&r, 0, sizeof r);
		fk_reply_error(&r, rq->reject, "%s", rq->reject_msg);
		return (enum MHD_Result)queue_reply(c, &r);
	}
	return (enum MHD_Result)answer(rq, c, method, url);
}

static void unlink_pending(struct fk_req *rq)
{
	for (struct fk_req **pp = &pending; *pp; pp = &(*pp)->next) {
		if (*pp == rq) {
			*pp = rq->next;
			return;
		}
	}
}

static void on_completed(void *cls, struct MHD_Connection *c, void **req_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct fk_req *rq = *req_cls;

	(void)cls;
	(void)c;
	(void)toe;
	if (!rq)
		return;
	if (rq->deferred && !rq->ready && rq->drop) {
		unlink_pending(rq);
		rq->drop(rq->ctx);
	}
	fk_hook_buf_release(rq->reply.body, rq->reply.maplen);
	free(rq);
	*req_cls = NULL;
}

/* Called first with the whole request target: where the request's state
 * is born, so admission can bound the query string too. */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *c)
{
	struct fk_req *rq = calloc(1, sizeof *rq);

	(void)cls;
	(void)c;
	if (rq)
		rq->urilen = strlen(uri);
	return rq;
}

/* MHD's own messages go nowhere: the hook never prints per request. */
static void on_log(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	(void)fmt;
	(void)ap;
}

struct MHD_Daemon *fk_http_new(int fd, fk_handler_fn *h, struct fk_err *err)
{
	struct MHD_Daemon *d;

	handler = h;
	d = MHD_start_daemon(MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG,
			     0, NULL, NULL, on_request, NULL,
			     MHD_OPTION_LISTEN_SOCKET, fd,
			     MHD_OPTION_CONNECTION_LIMIT, (unsigned)FK_HOOK_MAX_CONN,
			     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)30,
			     MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)32768,
			     MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
			     MHD_OPTION_URI_LOG_CALLBACK, on_uri, NULL,
			     MHD_OPTION_EXTERNAL_LOGGER, on_log, NULL,
			     MHD_OPTION_END);
	if (!d) {
		close(fd);
		fk_err_set(err, FK_EIO, 0, "libmicrohttpd could not start");
	}
	return d;
}

int fk_http_poll_fd(struct MHD_Daemon *d)
{
	const union MHD_DaemonInfo *di = MHD_get_daemon_info(d, MHD_DAEMON_INFO_EPOLL_FD);

	return di ? di->epoll_fd : -1;
}

void fk_http_run(struct MHD_Daemon *d)
{
	int resumed = 0;
	double now;

	MHD_run(d);
	now = fk_now();
	for (struct fk_req **pp = &pending; *pp;) {
		struct fk_req *rq = *pp;

		if (rq->deadline > now) {
			pp = &rq->next;
			continue;
		}
		*pp = rq->next;
		memset(&rq->reply, 0, sizeof rq->reply);
		rq->fn(rq->ctx, &rq->reply);
		rq->drop = NULL;
		rq->ready = 1;
		MHD_resume_connection(rq->conn);
		resumed = 1;
	}
	/* A resumed connection is served by the next MHD_run; in external
	 * polling nothing may wake the loop for it, so run now. */
	if (resumed)
		MHD_run(d);
}

int fk_http_timeout(struct MHD_Daemon *d)
{
	MHD_UNSIGNED_LONG_LONG t;
	long long ms = -1;
	double now = fk_now();

	if (MHD_get_timeout(d, &t) == MHD_YES)
		ms = t > 60000 ? 60000 : (long long)t;
	for (struct fk_req *rq = pending; rq; rq = rq->next) {
		long long left = (long long)((rq->deadline - now) * 1000.0) + 1;

		if (left < 0)
			left = 0;
		if (ms < 0 || left < ms)
			ms = left;
	}
	return (int)ms;
}

static void drop_reply(void *ctx, struct fk_reply *r)
{
	(void)ctx;
	r->status = MHD_HTTP_SERVICE_UNAVAILABLE;
	r->body = strdup("the profiling server is stopping\n");
	r->len = r->body ? strlen(r->body) : 0;
}

void fk_http_free(struct MHD_Daemon *d)
{
	if (!d)
		return;
	/* MHD refuses to stop with suspended connections: answer them. */
	for (struct fk_req *rq = pending; rq; rq = rq->next) {
		if (rq->drop)
			rq->drop(rq->ctx);
		rq->drop = NULL;
		rq->fn = drop_reply;
		rq->deadline = 0;
	}
	if (pending) {
		fk_http_run(d);
		MHD_run(d);
	}
	MHD_stop_daemon(d);
}
