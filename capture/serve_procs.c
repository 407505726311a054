/* SPDX-License-Identifier: MIT */
/* The routes over the program's processes (libflamekit-hook(3),
 * PROCESSES): the list, a request for one worker proxied to its private
 * socket, and a settings change sent to every process. The list asks each
 * worker one byte on its registry connection, which the worker's resident
 * half answers with one line, all on the loop (hook_group.c); the
 * requests over HTTP block, so they run off the loop (struct fk_reply's
 * work, serve_ask.c). What a worker answers is read as untrusted bytes
 * (hook_answer.c): pid=all keeps at most FK_HOOK_MAX_ASK_ANSWER of each
 * answer, a proxied body is streamed. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "serve_int.h"
#include "json_enc.h"
#include "serve_req.h"

/* One request to every worker of asks[0..n), made by the work. */
struct procs_ctx {
	char method[8];
	char target[FK_HOOK_MAX_URL + 8];
	double seconds;            /* all of them have, together */
	struct fk_ask *asks;       /* one per worker, by pid */
	size_t n;
	struct fk_reply self;      /* fk_procs_all: this process's own */
};

static void ctx_free(void *arg)
{
	struct procs_ctx *c = arg;

	if (!c)
		return;
	for (size_t i = 0; i < c->n && c->asks; i++)
		free(c->asks[i].body);
	fk_hook_buf_release(c->self.body, c->self.maplen);
	free(c->asks);
	free(c);
}

/* For qsort of asks or list entries: each begins with its worker's
 * fk_member, whose first member is the pid. */
static int by_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* A request to every registered worker (read here, on the loop, where
 * the registry lives), sorted by pid. */
static struct procs_ctx *ctx_new(const char *method, double seconds)
{
	struct procs_ctx *c = calloc(1, sizeof *c);
	struct fk_member *m = calloc(FK_HOOK_MAX_WORKERS, sizeof *m);

	if (!c || !m || !(c->asks = calloc(FK_HOOK_MAX_WORKERS, sizeof *c->asks))) {
		free(m);
		ctx_free(c);
		return NULL;
	}
	snprintf(c->method, sizeof c->method, "%s", method);
	c->seconds = seconds;
	c->n = fk_group_workers(m, FK_HOOK_MAX_WORKERS);
	for (size_t i = 0; i < c->n; i++)
		c->asks[i].m = m[i];
	free(m);
	qsort(c->asks, c->n, sizeof c->asks[0], by_pid);
	return c;
}

/* The request target without its pid parameter (the worker answers for
 * itself) into out. */
static void strip_pid(const char *uri, char *out, size_t size)
{
	const char *q = strchr(uri, '?');
	size_t k, plen = q ? (size_t)(q - uri) : strlen(uri);
	int first = 1;

	k = (size_t)snprintf(out, size, "%.*s", (int)plen, uri);
	for (const char *p = q ? q + 1 : NULL; p && *p && k < size;) {
		const char *e = strchr(p, '&');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		if (!(n >= 3 && strncmp(p, "pid", 3) == 0 && (n == 3 || p[3] == '='))) {
			k += (size_t)snprintf(out + k, size - k, "%c%.*s", first ? '?' : '&', (int)n, p);
			first = 0;
		}
		p = e ? e + 1 : NULL;
	}
}

/* Asks every worker at once: one that does not answer delays nobody,
 * and the request ends within c->seconds whatever they do. */
static void ask_all(void *arg)
{
	struct procs_ctx *c = arg;

	fk_group_ask(c->asks, c->n, c->method, c->target, c->seconds, FK_HOOK_MAX_ASK_ANSWER);
}

/* ---- one worker ---- */

/* A request proxied to one worker: the head of its answer is read off
 * the loop, its body streamed to the client as it comes. */
struct proxy_ctx {
	struct fk_member m;
	char method[8];
	char target[FK_HOOK_MAX_URL + 8];
	double seconds;
	int ok;
	struct fk_answer_head h;
	struct fk_body_src src;
	struct fk_err err;
};

static void proxy_work(void *arg)
{
	struct proxy_ctx *c = arg;

	c->ok = fk_group_open(&c->m, c->method, c->target, c->seconds, &c->h, &c->src,
			      &c->err) == 0;
}

static void proxy_free(void *arg)
{
	struct proxy_ctx *c = arg;

	if (!c)
		return;
	fk_stream_drop(&c->src);
	free(c);
}

static void proxy_finish(void *arg, struct fk_reply *r)
{
	struct proxy_ctx *c = arg;

	if (!c->ok) {
		fk_reply_error(r, 502, "%s", c->err.msg);
	} else {
		r->status = c->h.status;
		r->ctype = c->h.ctype;
		r->disposition = c->h.disposition;
		r->src = c->src;
		memset(&c->src, 0, sizeof c->src);
	}
	proxy_free(c);
}

void fk_procs_proxy(const struct fk_request *rq, const struct fk_req *q, struct fk_reply *r)
{
	struct proxy_ctx *c = calloc(1, sizeof *c);
	pid_t pid = q->pid;

	if (!c) {
		fk_reply_error(r, 500, "out of memory");
		return;
	}
	if (!fk_group_member(pid, &c->m)) {
		free(c);
		fk_reply_error(r, 404, "no process %ld in this program: GET "
			       "/internal/heap/processes lists them", (long)pid);
		return;
	}
	snprintf(c->method, sizeof c->method, "%s",
		 strcmp(rq->method, "HEAD") == 0 ? "GET" : rq->method);
	strip_pid(rq->uri, c->target, sizeof c->target);
	fk_err_init(&c->err, NULL);
	c->seconds = FK_HOOK_PROXY_SECONDS - 5;
	/* A window (?seconds=N) answers N seconds after it opens: the worker
	 * has those on top. */
	if (q->seconds) {
		c->seconds += (double)q->seconds;
		r->deadline = fk_now() + FK_HOOK_PROXY_SECONDS + (double)q->seconds;
	}
	r->work = proxy_work;
	r->finish = proxy_finish;
	r->drop = proxy_free;
	r->ctx = c;
}

/* ---- the list ---- */

/* A worker of the list: asked its status on its registry connection
 * (hook_group.c), on the loop; answered there too. */
struct list_one {
	struct fk_member m;        /* first: by_pid */
	unsigned q;                /* the answer that says it */
	int asked;
	char err[128];             /* not asked: why */
};

struct list_ctx {
	struct list_one *w;        /* by pid */
	size_t n;
	char self[900];            /* this process's entry */
};

static void list_free(void *arg)
{
	struct list_ctx *c = arg;

	if (c)
		free(c->w);
	free(c);
}

/* One entry of the list: what /proc says of pid, with what its status
 * says (st: NULL when it gave none), or why it gave none (error, for a
 * worker that is alive); m: the worker's registration, NULL for this
 * process. */
static void entry(FILE *f, pid_t pid, const struct fk_status *st, const struct fk_member *m,
		  const char *error)
{
	struct fk_proc p;
	char cmd[512];
	double start = -1;

	memset(&p, 0, sizeof p);
	if (fk_proc_info(pid, &p) == 0)
		start = fk_proc_start_epoch(p.start);
	fk_proc_cmdline(pid, cmd, sizeof cmd);
	fprintf(f, "{\"pid\":%ld,\"ppid\":%ld,\"cmdline\":", (long)pid, (long)p.ppid);
	fk_enc_json_str(f, cmd);
	if (start >= 0)
		fprintf(f, ",\"start_time\":%.2f", start);
	else
		fputs(",\"start_time\":null", f);
	fprintf(f, ",\"enabled\":%s,\"jemalloc\":", !st ? "null" : st->enabled ? "true" : "false");
	if (st && st->symbol[0]) {
		char j[sizeof st->version + sizeof st->symbol + sizeof st->module + 8];

		snprintf(j, sizeof j, "%s%s%s in %s", st->version, st->version[0] ? ", " : "",
			 st->symbol, st->module);
		fk_enc_json_str(f, j);
	} else {
		fputs("null", f);
	}
	fprintf(f, ",\"listener\":%s", m ? "false" : "true");
	if (m) {
		char sock[160];

		snprintf(sock, sizeof sock, "@flamekit-hook/%s/%s", fk_group_name(), m->name);
		fputs(",\"socket\":", f);
		fk_enc_json_str(f, sock);
	}
	if (m && m->taken) {
		char why[300], by[80] = "another process";

		if (m->taken_pid >= 0 && m->taken_uid >= 0)
			snprintf(by, sizeof by, "process %lld of uid %lld", m->taken_pid, m->taken_uid);
		snprintf(why, sizeof why, "its own socket name @flamekit-hook/%s/%ld was taken by "
			 "%s: it serves on %s instead", fk_group_name(), (long)pid, by, m->name);
		fputs(",\"problem\":", f);
		fk_enc_json_str(f, why);
	}
	if (error) {
		char e[400];

		/* A process stopped (SIGSTOP, a debugger) is the usual silent one. */
		snprintf(e, sizeof e, "%s%s", error, p.state == 'T' || p.state == 't' ?
			 " (it is stopped)" : "");
		fputs(",\"error\":", f);
		fk_enc_json_str(f, e);
	}
	putc('}', f);
}

/* Whether every worker asked has answered or left (on the loop). */
static int list_settled(void *arg)
{
	const struct list_ctx *c = arg;
	struct fk_status st;

	for (size_t i = 0; i < c->n; i++)
		if (c->w[i].asked && fk_group_answer(c->w[i].m.pid, c->w[i].q, &st) == 0)
			return 0;
	return 1;
}

static void list_finish(void *arg, struct fk_reply *r)
{
	struct list_ctx *c = arg;
	int self_done = 0, any = 0;
	FILE *f = fk_reply_open(r, "application/json");

	if (f) {
		fprintf(f, "{\"listener\":%ld,\"processes\":[", (long)getpid());
		for (size_t i = 0; i <= c->n; i++) {
			const struct list_one *w = &c->w[i];
			struct fk_status st;
			char why[128];
			int rc = -1;

			/* This process in its place by pid. */
			if (!self_done && (i == c->n || w->m.pid > getpid())) {
				fprintf(f, "%s%s", any++ ? "," : "", c->self);
				self_done = 1;
			}
			if (i == c->n)
				continue;
			if (w->asked)
				rc = fk_group_answer(w->m.pid, w->q, &st);
			/* A worker that exited meanwhile is left out; one alive
			 * that did not answer is listed with why. */
			if (rc != 1 && kill(w->m.pid, 0) < 0 && errno == ESRCH)
				continue;
			if (any++)
				putc(',', f);
			if (!w->asked)
				snprintf(why, sizeof why, "%s", w->err);
			else if (rc == 0)
				snprintf(why, sizeof why, "process %ld did not answer within %g s",
					 (long)w->m.pid, FK_HOOK_LIST_SECONDS);
			else if (rc == 2)
				snprintf(why, sizeof why, "process %ld answered a malformed status line",
					 (long)w->m.pid);
			else
				snprintf(why, sizeof why, "process %ld left the registry", (long)w->m.pid);
			entry(f, w->m.pid, rc == 1 ? &st : NULL, &w->m, rc == 1 ? NULL : why);
		}
		fputs("]}\n", f);
		fk_reply_close(r, f);
	}
	list_free(c);
}

void fk_procs_list(const struct fk_request *rq, const struct fk_req *q, struct fk_reply *r)
{
	struct list_ctx *c = calloc(1, sizeof *c);
	struct fk_member *m = calloc(FK_HOOK_MAX_WORKERS, sizeof *m);
	struct fk_status self;
	char *buf = NULL;
	size_t blen = 0;
	FILE *f = NULL;

	(void)rq;
	(void)q;
	if (!c || !m || !(f = open_memstream(&buf, &blen))) {
		free(m);
		list_free(c);
		fk_reply_error(r, 500, "out of memory");
		return;
	}
	fk_group_own_status(&self);
	entry(f, getpid(), &self, NULL, NULL);
	fclose(f);
	snprintf(c->self, sizeof c->self, "%s", buf ? buf : "");
	free(buf);
	/* Every registered worker (read here, on the loop, where the
	 * registry lives) asked at once: one that does not answer delays
	 * nobody, and the list ends within FK_HOOK_LIST_SECONDS. */
	c->n = fk_group_workers(m, FK_HOOK_MAX_WORKERS);
	if (c->n && !(c->w = calloc(c->n, sizeof *c->w))) {
		free(m);
		list_free(c);
		fk_reply_error(r, 500, "out of memory");
		return;
	}
	for (size_t i = 0; i < c->n; i++) {
		struct list_one *w = &c->w[i];

		w->m = m[i];
		w->asked = fk_group_question(w->m.pid, &w->q) == 0;
		if (!w->asked)
			snprintf(w->err, sizeof w->err, "process %ld cannot be asked: %s",
				 (long)w->m.pid, errno == EAGAIN ? "its registry connection is full" :
				 strerror(errno));
	}
	free(m);
	qsort(c->w, c->n, sizeof c->w[0], by_pid);
	if (list_settled(c)) {
		list_finish(c, r);
		return;
	}
	r->deadline = fk_now() + FK_HOOK_LIST_SECONDS;
	r->settled = list_settled;
	r->finish = list_finish;
	r->drop = list_free;
	r->ctx = c;
}

/* ---- every process ---- */

static void all_finish(void *arg, struct fk_reply *r)
{
	struct procs_ctx *c = arg;
	FILE *f = fk_reply_open(r, "application/json");

	if (f) {
		fprintf(f, "{\"processes\":[{\"pid\":%ld,\"status\":%u}", (long)getpid(),
			c->self.status ? c->self.status : 200);
		for (size_t i = 0; i < c->n; i++) {
			fprintf(f, ",{\"pid\":%ld,\"status\":%u", (long)c->asks[i].m.pid,
				c->asks[i].status);
			if (c->asks[i].status == 0) {
				fputs(",\"error\":", f);
				fk_enc_json_str(f, c->asks[i].err);
			}
			putc('}', f);
		}
		fputs("]}\n", f);
		fk_reply_close(r, f);
	}
	ctx_free(c);
}

void fk_procs_all(const struct fk_request *rq, struct fk_reply *self, struct fk_reply *r)
{
	struct procs_ctx *c = ctx_new("POST", FK_HOOK_ASK_SECONDS);

	if (!c) {
		fk_hook_buf_release(self->body, self->maplen);
		fk_reply_error(r, 500, "out of memory");
		return;
	}
	c->self = *self;
	memset(self, 0, sizeof *self);
	strip_pid(rq->uri, c->target, sizeof c->target);
	r->work = ask_all;
	r->finish = all_finish;
	r->drop = ctx_free;
	r->ctx = c;
}
