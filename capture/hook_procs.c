/* SPDX-License-Identifier: MIT */
/* The routes over the program's processes (libflamekit-hook(3),
 * PROCESSES): the list, a request for one worker proxied to its private
 * socket, and a settings change sent to every process. The blocking part,
 * talking to the workers, runs off the loop (struct fk_reply's work); the
 * list of workers is read on the loop, where the registry lives. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hook_int.h"
#include "num.h"

/* One request to the workers of pids[0..n), made by the work. */
struct procs_ctx {
	char method[8];
	char target[FK_HOOK_MAX_URL + 8];
	double timeout;            /* seconds each process has to answer */
	double total;              /* seconds all of them have */
	pid_t *pids;
	size_t n;
	struct fk_reply *res;      /* one answer per pid */
	char (*errs)[300];         /* why there is none */
	struct fk_reply self;      /* fk_procs_all: this process's own */
	char self_desc[900];       /* fk_procs_list: this process's entry */
};

static void ctx_free(void *arg)
{
	struct procs_ctx *c = arg;

	if (!c)
		return;
	for (size_t i = 0; i < c->n && c->res; i++)
		fk_hook_buf_release(c->res[i].body, c->res[i].maplen);
	fk_hook_buf_release(c->self.body, c->self.maplen);
	free(c->pids);
	free(c->res);
	free(c->errs);
	free(c);
}

static struct procs_ctx *ctx_new(const char *method, size_t n)
{
	struct procs_ctx *c = calloc(1, sizeof *c);

	if (!c)
		return NULL;
	snprintf(c->method, sizeof c->method, "%s", method);
	c->timeout = FK_HOOK_ASK_SECONDS;
	c->total = FK_HOOK_PROXY_SECONDS - 5;
	c->n = n;
	c->pids = calloc(n ? n : 1, sizeof *c->pids);
	c->res = calloc(n ? n : 1, sizeof *c->res);
	c->errs = calloc(n ? n : 1, sizeof *c->errs);
	if (!c->pids || !c->res || !c->errs) {
		ctx_free(c);
		return NULL;
	}
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

/* Asks each process in turn, each within c->timeout and all within
 * c->total, so that one that does not answer delays the others by its
 * timeout and the request still ends before its deadline. */
static void ask_each(void *arg)
{
	struct procs_ctx *c = arg;
	double end = fk_now() + c->total;

	for (size_t i = 0; i < c->n; i++) {
		double left = end - fk_now();
		struct fk_err err;

		fk_err_init(&err, NULL);
		memset(&c->res[i], 0, sizeof c->res[i]);
		if (left <= 0) {
			snprintf(c->errs[i], sizeof c->errs[i], "not asked: the %g s for every "
				 "process's answer went to those that did not answer", c->total);
			continue;
		}
		if (fk_group_request(c->pids[i], c->method, c->target,
				     c->timeout < left ? c->timeout : left, &c->res[i], &err) < 0) {
			c->res[i].status = 0;
			snprintf(c->errs[i], sizeof c->errs[i], "%s", err.msg);
		}
	}
}

/* ---- one worker ---- */

static void proxy_finish(void *arg, struct fk_reply *r)
{
	struct procs_ctx *c = arg;

	if (c->res[0].status == 0) {
		fk_reply_error(r, 502, "%s", c->errs[0]);
	} else {
		*r = c->res[0];
		r->deadline = 0;
		r->finish = NULL;
		r->drop = NULL;
		r->work = NULL;
		memset(&c->res[0], 0, sizeof c->res[0]);
	}
	ctx_free(c);
}

void fk_procs_proxy(const struct fk_request *rq, pid_t pid, struct fk_reply *r)
{
	struct procs_ctx *c = ctx_new(strcmp(rq->method, "HEAD") == 0 ? "GET" : rq->method, 1);

	if (!c) {
		fk_reply_error(r, 500, "out of memory");
		return;
	}
	c->pids[0] = pid;
	strip_pid(rq->uri, c->target, sizeof c->target);
	c->timeout = c->total;
	/* A window (?seconds=N, already checked against its route's bound)
	 * answers N seconds after it opens: the worker has those on top. */
	const char *s = fk_req_arg(rq, "seconds");
	uint64_t secs;
	if (s && fk_parse_u64(s, strlen(s), &secs) == 0 && secs <= FK_HOOK_MAX_SECONDS) {
		c->timeout = c->total += (double)secs;
		r->deadline = fk_now() + FK_HOOK_PROXY_SECONDS + (double)secs;
	}
	r->work = ask_each;
	r->finish = proxy_finish;
	r->drop = ctx_free;
	r->ctx = c;
}

/* ---- the list ---- */

/* The string value of "key":"..." in a JSON object of ours, into out. */
static int json_field(const char *json, size_t len, const char *key, char *out, size_t size)
{
	char pat[80];
	const char *p, *e;

	snprintf(pat, sizeof pat, "\"%s\":", key);
	p = memmem(json, len, pat, strlen(pat));
	if (!p)
		return -1;
	p += strlen(pat);
	if (*p != '"') {
		e = p + strcspn(p, ",}");
	} else {
		p++;
		for (e = p; e < json + len && *e != '"'; e++)
			if (*e == '\\' && e + 1 < json + len)
				e++;
	}
	snprintf(out, size, "%.*s", (int)(e - p), p);
	return 0;
}

/* One entry of the list: what /proc says of pid, with what its settings
 * (set: JSON of len bytes, or NULL for this process) say, or why it gave
 * none (error, for a worker that is alive but did not answer). */
static void entry(FILE *f, pid_t pid, const char *set, size_t len, int listener,
		  const char *error)
{
	struct fk_proc p;
	char cmd[512], ver[96], sym[64], mod[512], en[8];
	double st = -1;

	memset(&p, 0, sizeof p);
	if (fk_proc_info(pid, &p) == 0)
		st = fk_proc_start_epoch(p.start);
	fk_proc_cmdline(pid, cmd, sizeof cmd);
	if (error) {
		snprintf(en, sizeof en, "null");
		ver[0] = sym[0] = mod[0] = 0;
	} else if (set) {
		if (json_field(set, len, "enabled", en, sizeof en) < 0)
			snprintf(en, sizeof en, "null");
		if (json_field(set, len, "jemalloc_version", ver, sizeof ver) < 0)
			ver[0] = 0;
		if (json_field(set, len, "mallctl", sym, sizeof sym) < 0)
			sym[0] = 0;
		if (json_field(set, len, "mallctl_module", mod, sizeof mod) < 0)
			mod[0] = 0;
	} else {
		struct fk_je_copy cp;
		size_t nc;
		const char *note;
		int active = 0;

		ver[0] = sym[0] = mod[0] = 0;
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
	fprintf(f, ",\"listener\":%s", listener ? "true" : "false");
	if (error) {
		fputs(",\"error\":", f);
		fk_reply_json_str(f, error);
	}
	putc('}', f);
}

static int by_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

static void list_finish(void *arg, struct fk_reply *r)
{
	struct procs_ctx *c = arg;
	int self_done = 0, any = 0;
	FILE *f = fk_reply_open(r, "application/json");

	if (f) {
		fprintf(f, "{\"listener\":%ld,\"processes\":[", (long)getpid());
		for (size_t i = 0; i <= c->n; i++) {
			/* This process in its place by pid. */
			if (!self_done && (i == c->n || c->pids[i] > getpid())) {
				fprintf(f, "%s%s", any++ ? "," : "", c->self_desc);
				self_done = 1;
			}
			/* A worker that exited meanwhile is left out; one alive
			 * that did not answer is listed with why. */
			if (i == c->n || (c->res[i].status != 200 && kill(c->pids[i], 0) < 0 &&
					  errno == ESRCH))
				continue;
			if (any++)
				putc(',', f);
			if (c->res[i].status == 0)
				entry(f, c->pids[i], NULL, 0, 0, c->errs[i]);
			else if (c->res[i].status != 200)
				entry(f, c->pids[i], NULL, 0, 0, "its settings did not answer 200");
			else
				entry(f, c->pids[i], c->res[i].body, c->res[i].len, 0, NULL);
		}
		fputs("]}\n", f);
		fk_reply_close(r, f);
	}
	ctx_free(c);
}

void fk_procs_list(const struct fk_request *rq, struct fk_reply *r)
{
	pid_t tmp[FK_HOOK_MAX_WORKERS];
	size_t n = fk_group_workers(tmp, FK_HOOK_MAX_WORKERS);
	struct procs_ctx *c = ctx_new("GET", n);
	char *buf = NULL;
	size_t blen = 0;
	FILE *f;

	(void)rq;
	if (!c || !(f = open_memstream(&buf, &blen))) {
		ctx_free(c);
		fk_reply_error(r, 500, "out of memory");
		return;
	}
	entry(f, getpid(), NULL, 0, 1, NULL);
	fclose(f);
	snprintf(c->self_desc, sizeof c->self_desc, "%s", buf ? buf : "");
	free(buf);
	memcpy(c->pids, tmp, n * sizeof tmp[0]);
	qsort(c->pids, n, sizeof c->pids[0], by_pid);
	snprintf(c->target, sizeof c->target, "/internal/heap/settings");
	r->work = ask_each;
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
			fprintf(f, ",{\"pid\":%ld,\"status\":%u", (long)c->pids[i], c->res[i].status);
			if (c->res[i].status == 0) {
				fputs(",\"error\":", f);
				fk_reply_json_str(f, c->errs[i]);
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
	pid_t tmp[FK_HOOK_MAX_WORKERS];
	size_t n = fk_group_workers(tmp, FK_HOOK_MAX_WORKERS);
	struct procs_ctx *c = ctx_new("POST", n);

	if (!c) {
		fk_hook_buf_release(self->body, self->maplen);
		fk_reply_error(r, 500, "out of memory");
		return;
	}
	c->self = *self;
	memset(self, 0, sizeof *self);
	memcpy(c->pids, tmp, n * sizeof tmp[0]);
	qsort(c->pids, n, sizeof c->pids[0], by_pid);
	strip_pid(rq->uri, c->target, sizeof c->target);
	r->work = ask_each;
	r->finish = all_finish;
	r->drop = ctx_free;
	r->ctx = c;
}
