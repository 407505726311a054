/* SPDX-License-Identifier: MIT */
/* The hook's HTTP server on libmicrohttpd: one daemon in external-poll epoll
 * mode, driven by the hook's own thread (hook_loop.c), so that no thread
 * jemalloc samples ever runs server code. Requests pass admission
 * (serve_guard.c), their bodies are bounded and discarded, then answered
 * by the handler the starter gave (the route table): the transport knows
 * no endpoint. Answers that wait (?seconds=N, or work off the loop: a
 * request proxied to a worker) are serve_defer.c's. No client can hold the
 * server: a request must arrive whole within FK_HOOK_REQUEST_SECONDS,
 * answers that wait are bounded and dropped when their client leaves.
 * libmicrohttpd's panic (a failed close, an internal inconsistency) never
 * aborts the host: the daemon is abandoned and the loop makes a new one. */
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "serve_defer.h"
#include "serve_int.h"

/* One open connection, from libmicrohttpd's connection notifications. */
struct fk_conn {
	int fd;
	double since;              /* when it began to owe us a request */
	int busy;                  /* its request arrived whole: being answered */
	int cut;                   /* shut down for being too slow */
	int denied;                /* a worker's socket: the peer may not ask */
	struct fk_peer peer;       /* the listener's: who is asking */
	struct fk_conn *prev, *next;
};

/* Only the loop thread touches these (the daemon's callbacks run on it);
 * one daemon lives at a time (hook_main.c waits for the old one). */
static struct {
	fk_handler_fn *handler;    /* what answers admitted requests */
	struct fk_conn *conns;
	int run_again;             /* a connection closed: see fk_http_timeout */
	int worker_daemon;         /* the daemon is a worker's private socket */
	jmp_buf panic_jmp;         /* where libmicrohttpd's panic returns */
	int in_mhd;                /* panic_jmp is set */
	int broken;                /* the daemon panicked: abandon it */
	/* Set from another thread when the server is being stopped. */
	atomic_int quitting;
} ht;

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

/* Queues resp (destroyed here) with the headers every answer has. */
static int queue_resp(struct MHD_Connection *c, unsigned status, const char *ctype,
		      const char *disp, struct MHD_Response *resp)
{
	enum MHD_Result rc;

	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	if (disp)
		MHD_add_response_header(resp, "Content-Disposition", disp);
	rc = MHD_queue_response(c, status, resp);
	MHD_destroy_response(resp);
	return rc;
}

/* Queues body (malloc'd, or a mapping of maplen bytes), taking it. */
static int queue_buf(struct MHD_Connection *c, unsigned status, const char *ctype,
		     const char *disp, char *body, size_t len, size_t maplen)
{
	struct MHD_Response *resp = NULL;
	struct mapped *m;

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
	return queue_resp(c, status, ctype, disp, resp);
}

/* Queues r (taking its body) on c. Returns MHD_YES/MHD_NO. */
static int queue_reply(struct MHD_Connection *c, struct fk_reply *r)
{
	char *b = r->body;
	size_t maplen = r->maplen;
	const char *ctype = r->ctype ? r->ctype : "text/plain; charset=utf-8";

	if (r->src.read) {
		/* A body streamed as it is read (serve_stream.c). */
		struct MHD_Response *resp = fk_stream_response(c, &r->src);

		return resp ? queue_resp(c, r->status, ctype, r->disposition, resp) : MHD_NO;
	}
	r->body = NULL;
	r->maplen = 0;
	if (!b) {
		b = malloc(1);
		if (!b)
			return MHD_NO;
		r->len = 0;
		maplen = 0;
	}
	return queue_buf(c, r->status, ctype, r->disposition, b, r->len, maplen);
}

static struct fk_conn *conn_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci ? ci->socket_context : NULL;
}

/* conn_each's state: the caller's visitor and what it last returned. */
struct each {
	int (*fn)(void *cls, const char *key, size_t klen, const char *val, size_t vlen);
	void *cls;
	int rc;
};

static enum MHD_Result each_arg(void *cls, enum MHD_ValueKind kind, const char *key,
				size_t klen, const char *val, size_t vlen)
{
	struct each *e = cls;

	(void)kind;
	e->rc = e->fn(e->cls, key, klen, val, vlen);
	return e->rc == 0 ? MHD_YES : MHD_NO;
}

/* The query parameters with their decoded lengths, so that a %00 inside
 * one shows (libmicrohttpd decodes it into the value). */
static int conn_each(void *tctx, int (*fn)(void *cls, const char *key, size_t klen,
					   const char *val, size_t vlen), void *cls)
{
	struct each e = { .fn = fn, .cls = cls };

	MHD_get_connection_values_n(tctx, MHD_GET_ARGUMENT_KIND, each_arg, &e);
	return e.rc;
}

const char *fk_host_for_msg(const char *h)
{
	if (!h || !*h || strlen(h) > 100 ||
	    strspn(h, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.:[]-") != strlen(h))
		return "HOST";
	return h;
}

/* The request's Host header when it is a plain host[:port], for messages. */
static const char *host_for_msg(struct MHD_Connection *c)
{
	return fk_host_for_msg(MHD_lookup_connection_value(c, MHD_HEADER_KIND,
							   MHD_HTTP_HEADER_HOST));
}

/* Answers an admitted request through the handler the starter gave: now,
 * or held until the reply's deadline. */
static int answer(struct fk_http_req *rq, struct MHD_Connection *c, const char *method,
		  const char *url)
{
	struct fk_request req = {
		.method = method, .path = url, .host = host_for_msg(c),
		.uri = rq->uri ? rq->uri : url, .each = conn_each, .tctx = c,
	};
	struct fk_conn *k;
	struct fk_reply r;
	uint64_t client;

	memset(&r, 0, sizeof r);
	ht.handler(&req, &r);
	if (!r.work && r.deadline <= 0)
		return queue_reply(c, &r);
	/* The listener's clients are counted each; a worker's one client is
	 * its listener, which counted them. */
	k = conn_of(c);
	client = k ? k->peer.key : 0;
	return fk_defer_reply(rq, c, &r, ht.worker_daemon ? NULL : &client);
}

static void mark_busy(struct MHD_Connection *c)
{
	struct fk_conn *k = conn_of(c);

	if (k)
		k->busy = 1;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
				  const char *url, const char *method,
				  const char *version, const char *upload_data,
				  size_t *upload_size, void **req_cls)
{
	struct fk_http_req *rq = *req_cls;

	(void)cls;
	(void)version;
	(void)upload_data;
	if (!rq) {
		/* The URI callback failed to allocate. */
		return MHD_NO;
	}
	if (!rq->checked) {
		struct fk_conn *k = conn_of(c);

		rq->checked = 1;
		if (k && k->denied) {
			rq->reject = MHD_HTTP_FORBIDDEN;
			snprintf(rq->why, sizeof rq->why,
				 "this process's socket answers only its own program");
		} else if (rq->too_many) {
			rq->reject = MHD_HTTP_URI_TOO_LONG;
			snprintf(rq->why, sizeof rq->why, "request URL has too many query "
				 "parameters (at most " FK_HOOK_STR(FK_HOOK_MAX_PARAMS) ")");
		} else if (!k && !ht.worker_daemon) {
			/* No record of who is asking (out of memory): a stranger. */
			rq->reject = MHD_HTTP_SERVICE_UNAVAILABLE;
			snprintf(rq->why, sizeof rq->why, "out of memory");
		} else {
			/* A worker's socket admitted its peer already (its
			 * program, fk_group_peer_ok). */
			rq->reject = fk_guard_check(c, ht.worker_daemon ? NULL : &k->peer, method, url,
						    rq->urilen, rq->why, sizeof rq->why);
		}
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
				snprintf(rq->why, sizeof rq->why, "request body too large");
			}
			rq->body = FK_HOOK_MAX_BODY;
		} else {
			rq->body += *upload_size;
		}
		*upload_size = 0;
		return MHD_YES;
	}
	/* The request arrived whole: it no longer owes us anything. */
	mark_busy(c);
	if (!rq->reject && atomic_load(&ht.quitting)) {
		rq->reject = MHD_HTTP_SERVICE_UNAVAILABLE;
		snprintf(rq->why, sizeof rq->why, "the profiling server is stopping");
	}
	if (rq->reject) {
		struct fk_reply r;

		memset(&r, 0, sizeof r);
		fk_reply_error(&r, rq->reject, "%s", rq->why);
		return (enum MHD_Result)queue_reply(c, &r);
	}
	return (enum MHD_Result)answer(rq, c, method, url);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **req_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct fk_http_req *rq = *req_cls;

	struct fk_conn *k = conn_of(c);

	(void)cls;
	(void)toe;
	/* A kept-alive connection owes us its next request from now on. */
	if (k) {
		k->busy = 0;
		k->since = fk_now();
	}
	if (!rq)
		return;
	fk_defer_end(rq);
	fk_hook_buf_release(rq->reply.body, rq->reply.maplen);
	fk_stream_drop(&rq->reply.src);
	free(rq->uri);
	free(rq);
	*req_cls = NULL;
}

/* Called first with the whole request target: where the request's state
 * is born, so admission can bound the query string too. */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *c)
{
	struct fk_http_req *rq = calloc(1, sizeof *rq);
	char *q;
	size_t n = 1;

	(void)cls;
	(void)c;
	if (!rq || !uri)
		return rq;
	rq->urilen = strlen(uri);
	if (rq->urilen <= FK_HOOK_MAX_URL)
		rq->uri = strdup(uri);
	q = strchr(uri, '?');
	if (!q)
		return rq;
	for (const char *p = q + 1; *p; p++)
		n += *p == '&';
	rq->too_many = n > FK_HOOK_MAX_PARAMS;
	/* libmicrohttpd 0.9.75 next splits the query into parameters in the
	 * connection's memory pool and, when the pool runs out, neither answers
	 * nor closes (the client waits for the timeout). A target admission
	 * refuses anyway is therefore left with an empty query: uri is the
	 * request line in the connection's own writable buffer, and the query
	 * is split only after this callback returns. */
	if (rq->too_many || rq->urilen > FK_HOOK_MAX_URL)
		q[1] = '\0';
	return rq;
}

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_ctx,
			  enum MHD_ConnectionNotificationCode toe)
{
	struct fk_conn *k = *socket_ctx;

	(void)cls;
	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *ci =
			MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);

		/* Without memory the connection is only bounded by MHD's
		 * own idle timeout. */
		k = calloc(1, sizeof *k);
		if (!k)
			return;
		k->fd = ci ? ci->connect_fd : -1;
		k->since = fk_now();
		/* A worker's socket is in the abstract namespace, which every
		 * local user can reach: only its program may ask (SO_PEERCRED). */
		if (ht.worker_daemon && (k->fd < 0 || !fk_group_peer_ok(k->fd))) {
			k->denied = 1;
			if (k->fd >= 0)
				shutdown(k->fd, SHUT_RDWR);
		}
		/* The listener's: who is asking, once a connection. */
		if (!ht.worker_daemon)
			fk_peer_get(k->fd, &k->peer);
		k->next = ht.conns;
		if (ht.conns)
			ht.conns->prev = k;
		ht.conns = k;
		*socket_ctx = k;
		return;
	}
	if (!k)
		return;
	if (k->prev)
		k->prev->next = k->next;
	else
		ht.conns = k->next;
	if (k->next)
		k->next->prev = k->prev;
	free(k);
	*socket_ctx = NULL;
	/* At its connection limit libmicrohttpd stops listening and starts
	 * again only in a later run: make sure there is one. */
	ht.run_again = 1;
}

/* MHD's own messages go nowhere: the hook never prints per request. */
static void on_log(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	(void)fmt;
	(void)ap;
}

/* libmicrohttpd's fatal errors: back to fk_http_run, never abort(). */
static void on_panic(void *cls, const char *file, unsigned int line, const char *reason)
{
	(void)cls;
	fk_log("libmicrohttpd failed (%s:%u: %s); the hook's server starts again",
	       file ? file : "?", line, reason ? reason : "");
	if (ht.in_mhd)
		longjmp(ht.panic_jmp, 1);
	/* Outside a run (starting or stopping a daemon): end only this
	 * thread; the host goes on. */
	pthread_exit(NULL);
}

struct MHD_Daemon *fk_http_new(int fd, fk_handler_fn *h, int worker, struct fk_err *err)
{
	struct MHD_Daemon *d;

	MHD_set_panic_func(on_panic, NULL);
	fk_defer_init();
	ht.worker_daemon = worker;
	ht.broken = 0;
	atomic_store(&ht.quitting, 0);
	ht.handler = h;
	ht.conns = NULL;
	ht.run_again = 0;
	/* On loopback every client shares one address: a per-address limit
	 * would only turn a burst away; with remote clients it keeps one
	 * address from taking every slot. */
	d = MHD_start_daemon(MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG,
			     0, NULL, NULL, on_request, NULL,
			     MHD_OPTION_LISTEN_SOCKET, fd,
			     MHD_OPTION_CONNECTION_LIMIT, (unsigned)FK_HOOK_MAX_CONN,
			     MHD_OPTION_PER_IP_CONNECTION_LIMIT,
			     (unsigned)(fk_env_get()->guard.remote ? FK_HOOK_MAX_CONN_PER_IP : 0),
			     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)FK_HOOK_IDLE_SECONDS,
			     MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)32768,
			     MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
			     MHD_OPTION_NOTIFY_CONNECTION, on_connection, NULL,
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

/* Shuts down connections that took too long to send their request; MHD
 * then sees the end of the stream and closes them. */
static void cut_slow(double now)
{
	for (struct fk_conn *k = ht.conns; k; k = k->next) {
		struct pollfd pf = { .fd = k->fd, .events = POLLIN };

		if (k->busy || k->cut || k->fd < 0 || now - k->since < FK_HOOK_REQUEST_SECONDS)
			continue;
		/* Bytes libmicrohttpd has not read yet (the loop was busy): not
		 * the client's fault; they are read on the next run. */
		if (poll(&pf, 1, 0) == 1 && (pf.revents & POLLIN) && !(pf.revents & POLLRDHUP))
			continue;
		shutdown(k->fd, SHUT_RDWR);
		k->cut = 1;
	}
}

int fk_http_broken(void)
{
	return ht.broken;
}

/* MHD_run, returning 0 when libmicrohttpd panicked instead. */
static int run_mhd(struct MHD_Daemon *d)
{
	if (ht.broken)
		return 0;
	if (setjmp(ht.panic_jmp)) {
		ht.in_mhd = 0;
		ht.broken = 1;
		return 0;
	}
	ht.in_mhd = 1;
	MHD_run(d);
	ht.in_mhd = 0;
	return 1;
}

void fk_http_run(struct MHD_Daemon *d)
{
	int resumed = 0;
	double now;

	ht.run_again = 0;
	fk_defer_wake_drain();
	if (!run_mhd(d))
		return;
	now = fk_now();
	cut_slow(now);
	fk_defer_drop_gone();
	resumed = fk_stream_run() > 0;
	resumed |= fk_defer_run(now);
	/* A resumed connection is served by the next MHD_run; in external
	 * polling nothing may wake the loop for it, so run now. */
	if (resumed)
		run_mhd(d);
}

int fk_http_timeout(struct MHD_Daemon *d)
{
	MHD_UNSIGNED_LONG_LONG t;
	long long ms = -1;
	double now = fk_now();

	if (ht.run_again)
		return 0;
	if (MHD_get_timeout(d, &t) == MHD_YES)
		ms = t > 60000 ? 60000 : (long long)t;
	if (fk_stream_timeout() >= 0 && (ms < 0 || fk_stream_timeout() < ms))
		ms = fk_stream_timeout();
	/* While connections are open, slow ones are cut and deferred clients
	 * that left are noticed from the loop, at least this often. */
	if ((ht.conns || fk_defer_pending()) && (ms < 0 || ms > FK_HOOK_POLL_MS))
		ms = FK_HOOK_POLL_MS;
	return (int)fk_defer_timeout(now, ms);
}

void fk_http_quit(void)
{
	atomic_store(&ht.quitting, 1);
}

void fk_http_free(struct MHD_Daemon *d)
{
	if (!d)
		return;
	if (ht.broken) {
		/* Its state cannot be trusted: leave it, close only what
		 * would keep the address taken. */
		const union MHD_DaemonInfo *di = MHD_get_daemon_info(d, MHD_DAEMON_INFO_LISTEN_FD);

		if (di && di->listen_fd >= 0)
			close(di->listen_fd);
		fk_defer_forget();
		ht.conns = NULL;
		fk_stream_forget();
		ht.broken = 0;
		return;
	}
	/* MHD refuses to stop with suspended connections: answer them. */
	fk_defer_stop();
	/* Nor with streams waiting: they are cut. */
	if (fk_stream_stop() > 0 || fk_defer_pending()) {
		fk_http_run(d);
		run_mhd(d);
	}
	if (!ht.broken)
		MHD_stop_daemon(d);
}
