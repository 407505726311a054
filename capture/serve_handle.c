/* SPDX-License-Identifier: MIT */
/* A request the host's own HTTP server hands over (fk_hook_handle, for a
 * service that mounts the hook's routes in its own router: the Rust crate
 * rust/flamekit): no connection, only a method, a target and headers. It
 * passes the same admission as a request on the hook's socket
 * (fk_guard_admit, the URL and parameter limits) with the peer the host
 * says, its query is split and decoded as libmicrohttpd decodes the
 * hook's own, and the route table answers it. */
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hostport.h"
#include "serve_int.h"

/* The request as the route table reads it: its decoded path and query
 * parameters, in the order sent. */
struct handed_req {
	const struct fk_handed *h;
	char *buf;                 /* the decoded path, then each key and value */
	char *path;
	size_t n;
	char *key[FK_HOOK_MAX_PARAMS];
	char *val[FK_HOOK_MAX_PARAMS];   /* NULL: the key came without '=' */
	size_t klen[FK_HOOK_MAX_PARAMS], vlen[FK_HOOK_MAX_PARAMS];
};

static const char *hdr_get(void *ctx, const char *name)
{
	const struct fk_handed *h = ctx;

	for (size_t i = 0; i < h->nheaders; i++)
		if (h->headers[2 * i] && strcasecmp(h->headers[2 * i], name) == 0)
			return h->headers[2 * i + 1] ? h->headers[2 * i + 1] : "";
	return NULL;
}

static unsigned hdr_count(void *ctx, const char *name)
{
	const struct fk_handed *h = ctx;
	unsigned n = 0;

	for (size_t i = 0; i < h->nheaders; i++)
		n += h->headers[2 * i] && strcasecmp(h->headers[2 * i], name) == 0;
	return n;
}

static int req_each(void *tctx, int (*fn)(void *cls, const char *key, size_t klen,
					  const char *val, size_t vlen), void *cls)
{
	const struct handed_req *q = tctx;
	int rc;

	for (size_t i = 0; i < q->n; i++)
		if ((rc = fn(cls, q->key[i], q->klen[i], q->val[i], q->vlen[i])) != 0)
			return rc;
	return 0;
}

/* Splits h->target into the decoded path and parameters (libmicrohttpd's
 * own unescaping, so a %00 shows in a length). 0; 414 with too many
 * parameters; 503 out of memory. */
static unsigned split_target(const struct fk_handed *h, struct handed_req *q)
{
	const char *qm = strchr(h->target, '?');
	size_t plen = qm ? (size_t)(qm - h->target) : strlen(h->target);
	char *p, *end;

	q->buf = malloc(strlen(h->target) + 2);
	if (!q->buf)
		return MHD_HTTP_SERVICE_UNAVAILABLE;
	memcpy(q->buf, h->target, plen);
	q->buf[plen] = '\0';
	q->path = q->buf;
	MHD_http_unescape(q->path);
	if (!qm)
		return 0;
	p = q->buf + plen + 1;
	strcpy(p, qm + 1);
	while (*p) {
		char *eq;

		end = p + strcspn(p, "&");
		if (*end)
			*end++ = '\0';
		if (!*p) {
			p = end;
			continue;
		}
		if (q->n == FK_HOOK_MAX_PARAMS)
			return MHD_HTTP_URI_TOO_LONG;
		/* A '+' is a space in a query, as libmicrohttpd reads one for
		 * the hook's own server. */
		for (char *c = p; *c; c++)
			if (*c == '+')
				*c = ' ';
		eq = strchr(p, '=');
		if (eq)
			*eq = '\0';
		q->key[q->n] = p;
		q->klen[q->n] = MHD_http_unescape(p);
		if (eq) {
			q->val[q->n] = eq + 1;
			q->vlen[q->n] = MHD_http_unescape(eq + 1);
		}
		q->n++;
		p = end;
	}
	return 0;
}

/* A numeric "ADDR:PORT" or "[V6ADDR]:PORT" into *ss: 0, or -1. */
static int tcp_addr(const char *s, struct sockaddr_storage *ss)
{
	struct fk_hostport hp;
	char host[INET6_ADDRSTRLEN];
	unsigned port;

	memset(ss, 0, sizeof *ss);
	if (!s || fk_hostport_split(s, strlen(s), 0, &hp) != FK_HOSTPORT_OK ||
	    fk_hostport_port(&hp, &port) < 0 || hp.hostlen == 0 || hp.hostlen >= sizeof host)
		return -1;
	memcpy(host, hp.host, hp.hostlen);
	host[hp.hostlen] = '\0';
	if (!hp.bracketed) {
		struct sockaddr_in *in = (struct sockaddr_in *)ss;

		in->sin_family = AF_INET;
		in->sin_port = htons((uint16_t)port);
		return inet_pton(AF_INET, host, &in->sin_addr) == 1 ? 0 : -1;
	} else {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)port);
		return inet_pton(AF_INET6, host, &in6->sin6_addr) == 1 ? 0 : -1;
	}
}

/* The peer h names, in admission's terms: 0 with *out (NULL: vouched for
 * by the host), or -1 with msg when its addresses cannot be read. */
static int handed_peer(const struct fk_handed *h, struct fk_peer *p, const struct fk_peer **out,
		       char *msg, size_t size)
{
	struct sockaddr_storage remote, local;

	memset(p, 0, sizeof *p);
	p->kind = FK_PEER_UNKNOWN;
	*out = p;
	switch (h->peer) {
	case FK_HANDED_VOUCHED:
		*out = NULL;
		return 0;
	case FK_HANDED_UID:
		p->kind = FK_PEER_LOCAL;
		p->uid = h->uid;
		p->key = (uint64_t)h->uid << 1;
		return 0;
	case FK_HANDED_TCP:
		if (tcp_addr(h->remote, &remote) < 0 || tcp_addr(h->local, &local) < 0) {
			snprintf(msg, size, "fk_hook_handle: the peer's addresses must be numeric "
				 "ADDR:PORT or [V6ADDR]:PORT, not '%.60s' and '%.60s'",
				 h->remote ? h->remote : "(null)", h->local ? h->local : "(null)");
			return -1;
		}
		fk_peer_pair(&remote, &local, p);
		return 0;
	case FK_HANDED_UNKNOWN:
		break;
	}
	return 0;
}

/* What a delta's end needs: the route's finish and its context. */
struct pending {
	void (*finish)(void *ctx, struct fk_reply *r);
	void *ctx;
};

/* r into a, taking its body. */
static void answer(struct fk_reply *r, struct fk_handed_answer *a)
{
	a->status = r->status ? r->status : 200;
	a->ctype = r->ctype ? r->ctype : "text/plain; charset=utf-8";
	a->disposition = r->disposition;
	a->body = r->body;
	a->len = r->len;
	a->maplen = r->maplen;
	r->body = NULL;
	r->maplen = 0;
}

/* h routed into r. */
static void route(const struct fk_handed *h, struct fk_reply *r)
{
	struct fk_headers hd = { .get = hdr_get, .count = hdr_count, .ctx = (void *)h };
	struct handed_req q;
	struct fk_peer peer;
	const struct fk_peer *pp;
	unsigned st;
	char why[256];

	memset(&q, 0, sizeof q);
	q.h = h;
	if (handed_peer(h, &peer, &pp, why, sizeof why) < 0) {
		fk_reply_error(r, 500, "%s", why);
		return;
	}
	st = fk_guard_admit(&hd, pp, h->method, h->target, strlen(h->target), why, sizeof why);
	if (st) {
		fk_reply_error(r, st, "%s", why);
		return;
	}
	st = split_target(h, &q);
	if (st == MHD_HTTP_URI_TOO_LONG)
		fk_reply_error(r, st, "request URL has too many query parameters (at most "
			       FK_HOOK_STR(FK_HOOK_MAX_PARAMS) ")");
	else if (st)
		fk_reply_error(r, st, "out of memory");
	if (!st) {
		struct fk_request rq = {
			.method = h->method, .path = q.path, .uri = h->target,
			.host = fk_host_for_msg(hdr_get((void *)h, MHD_HTTP_HEADER_HOST)),
			.each = req_each, .tctx = &q,
		};

		fk_routes_handle(&rq, r);
	}
	free(q.buf);
}

void fk_serve_handle(const struct fk_handed *h, struct fk_handed_answer *a)
{
	struct fk_reply r;
	struct pending *p;

	memset(&r, 0, sizeof r);
	memset(a, 0, sizeof *a);
	route(h, &r);
	if (r.work || r.src.read) {
		/* A request for another process: its answer comes over a
		 * socket in the hook's own thread's table, which only the
		 * hook's server reads. */
		if (r.work && r.drop)
			r.drop(r.ctx);
		fk_stream_drop(&r.src);
		memset(&r, 0, sizeof r);
		fk_reply_error(&r, 501, "another process of the program (?pid=) is answered by "
			       "the hook's own server (fk_hook_start, FLAMEKIT_HTTP), not through "
			       "the program's");
	} else if (r.deadline > 0 && r.finish) {
		p = malloc(sizeof *p);
		if (!p) {
			if (r.drop)
				r.drop(r.ctx);
			memset(&r, 0, sizeof r);
			fk_reply_error(&r, 503, "out of memory");
		} else {
			p->finish = r.finish;
			p->ctx = r.ctx;
			a->pending = p;
			a->deadline = r.deadline;
		}
	}
	answer(&r, a);
}

void fk_serve_handle_finish(struct fk_handed_answer *a)
{
	struct pending *p = a->pending;
	struct fk_reply r;

	if (!p)
		return;
	fk_hook_buf_release(a->body, a->maplen);
	memset(&r, 0, sizeof r);
	p->finish(p->ctx, &r);
	free(p);
	memset(a, 0, sizeof *a);
	answer(&r, a);
}
