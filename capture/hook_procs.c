/* SPDX-License-Identifier: MIT */
/* The routes over the program's processes (libflamekit-hook(3),
 * PROCESSES): the list, a request for one worker proxied to its private
 * socket, and a settings change sent to every process. The blocking part,
 * talking to the workers, runs off the loop (struct fk_reply's work); the
 * registry is read on the loop, where it lives. What a worker answers is
 * read as untrusted bytes (hook_answer.c): the list and pid=all keep at
 * most FK_HOOK_MAX_ASK_ANSWER of each answer, a proxied body is streamed. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "serve_int.h"
#include "num.h"

/* One request to every worker of asks[0..n), made by the work. */
struct procs_ctx {
	char method[8];
	char target[FK_HOOK_MAX_URL + 8];
	double seconds;            /* all of them have, together */
	struct fk_ask *asks;       /* one per worker, by pid */
	size_t n;
	struct fk_reply self;      /* fk_procs_all: this process's own */
	char self_desc[900];       /* fk_procs_list: this process's entry */
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

static int by_pid(const void *a, const void *b)
{
	pid_t x = ((const struct fk_ask *)a)->m.pid, y = ((const struct fk_ask *)b)->m.pid;

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

void fk_procs_proxy(const struct fk_request *rq, pid_t pid, struct fk_reply *r)
{
	struct proxy_ctx *c = calloc(1, sizeof *c);
	const char *s = fk_req_arg(rq, "seconds");
	uint64_t secs;

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
	/* A window (?seconds=N, already checked against its route's bound)
	 * answers N seconds after it opens: the worker has those on top. */
	if (s && fk_parse_u64(s, strlen(s), &secs) == 0 && secs <= FK_HOOK_MAX_SECONDS) {
		c->seconds += (double)secs;
		r->deadline = fk_now() + FK_HOOK_PROXY_SECONDS + (double)secs;
	}
	r->work = proxy_work;
	r->finish = proxy_finish;
	r->drop = proxy_free;
	r->ctx = c;
}

/* ---- the list ---- */

/* One entry of the list: what /proc says of pid, with what its settings
 * (set: a JSON object of len bytes, or NULL for this process) say, or why
 * it gave none (error, for a worker that is alive but did not answer);
 * m: the worker's registration, NULL for this process. */
static void entry(FILE *f, pid_t pid, const char *set, size_t len, const struct fk_member *m,
		  const char *error)
{
	struct fk_proc p;
	char cmd[512], ver[96], sym[64], mod[512], en[8];
	double st = -1;

	memset(&p, 0, sizeof p);
	if (fk_proc_info(pid, &p) == 0)
		st = fk_proc_start_epoch(p.start);
	fk_proc_cmdline(pid, cmd, sizeof cmd);
	ver[0] = sym[0] = mod[0] = en[0] = 0;
	if (set) {
		fk_answer_field(set, len, "enabled", en, sizeof en);
		fk_answer_field(set, len, "jemalloc_version", ver, sizeof ver);
		fk_answer_field(set, len, "mallctl", sym, sizeof sym);
		fk_answer_field(set, len, "mallctl_module", mod, sizeof mod);
	} else if (!m) {
		struct fk_je_copy cp;
		size_t nc;
		const char *note;
		int active = 0;

		if (fk_je_chosen(&cp, &nc, &note) == 0) {
			snprintf(ver, sizeof ver, "%s", cp.version);
			snprintf(sym, sizeof sym, "%s", cp.symbol);
			snprintf(mod, sizeof mod, "%s", cp.module);
		}
		if (fk_je_get_active(&active, NULL) < 0)
			active = 0;
		snprintf(en, sizeof en, "%s", active ? "true" : "false");
	}
	fprintf(f, "{\"pid\":%ld,\"ppid\":%ld,\"cmdline\":", (long)pid, (long)p.ppid);
	fk_reply_json_str(f, cmd);
	if (st >= 0)
		fprintf(f, ",\"start_time\":%.2f", st);
	else
		fputs(",\"start_time\":null", f);
	fprintf(f, ",\"enabled\":%s,\"jemalloc\":", strcmp(en, "true") == 0 ? "true" :
		strcmp(en, "false") == 0 ? "false" : "null");
	if (sym[0]) {
		char j[800];

		snprintf(j, sizeof j, "%s%s%s in %s", ver, ver[0] ? ", " : "", sym, mod);
		fk_reply_json_str(f, j);
	} else {
		fputs("null", f);
	}
	fprintf(f, ",\"listener\":%s", m ? "false" : "true");
	if (m) {
		char sock[160];

		snprintf(sock, sizeof sock, "@flamekit-hook/%s/%s", fk_group_name(), m->name);
		fputs(",\"socket\":", f);
		fk_reply_json_str(f, sock);
	}
	if (m && m->taken) {
		char why[300], by[80] = "another process";

		if (m->taken_pid >= 0 && m->taken_uid >= 0)
			snprintf(by, sizeof by, "process %lld of uid %lld", m->taken_pid, m->taken_uid);
		snprintf(why, sizeof why, "its own socket name @flamekit-hook/%s/%ld was taken by "
			 "%s: it serves on %s instead", fk_group_name(), (long)pid, by, m->name);
		fputs(",\"problem\":", f);
		fk_reply_json_str(f, why);
	}
	if (error) {
		char e[400];

		/* A process stopped (SIGSTOP, a debugger) is the usual silent one. */
		snprintf(e, sizeof e, "%s%s", error, p.state == 'T' || p.state == 't' ?
			 " (it is stopped)" : "");
		fputs(",\"error\":", f);
		fk_reply_json_str(f, e);
	}
	putc('}', f);
}

static void list_finish(void *arg, struct fk_reply *r)
{
	struct procs_ctx *c = arg;
	int self_done = 0, any = 0;
	FILE *f = fk_reply_open(r, "application/json");

	if (f) {
		fprintf(f, "{\"listener\":%ld,\"processes\":[", (long)getpid());
		for (size_t i = 0; i <= c->n; i++) {
			const struct fk_ask *a = &c->asks[i];

			/* This process in its place by pid. */
			if (!self_done && (i == c->n || a->m.pid > getpid())) {
				fprintf(f, "%s%s", any++ ? "," : "", c->self_desc);
				self_done = 1;
			}
			/* A worker that exited meanwhile is left out; one alive
			 * that did not answer is listed with why. */
			if (i == c->n || (a->status != 200 && kill(a->m.pid, 0) < 0 && errno == ESRCH))
				continue;
			if (any++)
				putc(',', f);
			if (a->status == 0)
				entry(f, a->m.pid, NULL, 0, &a->m, a->err);
			else if (a->status != 200)
				entry(f, a->m.pid, NULL, 0, &a->m, "its settings did not answer 200");
			else
				entry(f, a->m.pid, a->body, a->len, &a->m, NULL);
		}
		fputs("]}\n", f);
		fk_reply_close(r, f);
	}
	ctx_free(c);
}

void fk_procs_list(const struct fk_request *rq, struct fk_reply *r)
{
	struct procs_ctx *c = ctx_new("GET", FK_HOOK_LIST_SECONDS);
	char *buf = NULL;
	size_t blen = 0;
	FILE *f;

	(void)rq;
	if (!c || !(f = open_memstream(&buf, &blen))) {
		ctx_free(c);
		fk_reply_error(r, 500, "out of memory");
		return;
	}
	entry(f, getpid(), NULL, 0, NULL, NULL);
	fclose(f);
	snprintf(c->self_desc, sizeof c->self_desc, "%s", buf ? buf : "");
	free(buf);
	snprintf(c->target, sizeof c->target, "/internal/heap/settings");
	r->work = ask_all;
	r->finish = list_finish;
	r->drop = ctx_free;
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
				fk_reply_json_str(f, c->asks[i].err);
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
