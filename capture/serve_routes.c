/* SPDX-License-Identifier: MIT */
/* The hook's endpoints (libflamekit-hook(3), ENDPOINTS), as a table: a
 * method, a path, a handler and the line GET / shows. Handlers fill a
 * reply; the transport (serve_http.c) knows nothing of them, and they know
 * nothing of HTTP's plumbing. GET and HEAD never change state. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "serve_int.h"
#include "life.h"
#include "serve_req.h"
#include "symbolize.h"

/* 409 when the jemalloc FLAMEKIT_MALLCTL chose is idle and another holds
 * the program's memory (fk_je_idle): its profiles would be empty 200s.
 * Said once on stderr as well. 1 when answered. */
static int idle_copy(struct fk_reply *r)
{
	static int told;
	char why[1024];

	if (!fk_je_idle(why, sizeof why))
		return 0;
	if (!told) {
		told = 1;
		fk_log("%s", why);
	}
	fk_reply_error(r, 409, "%s", why);
	return 1;
}

/* 409 with FK_HOOK_NOTHING_SAMPLED and how to turn sampling on, as a
 * command that works when pasted: a worker's request came through its
 * listener with the Host "localhost", so a worker names the program's
 * address (its loop's, the listener's) and itself (pid=). */
static void nothing_sampled(const struct fk_request *rq, struct fk_reply *r)
{
	const char *addr = fk_loop_addr(), *host = rq->host, *sock = NULL;
	long self = (long)getpid();
	int worker = fk_group_listener() != (pid_t)self;
	char pid[32] = "";

	if (addr && strncmp(addr, "unix:", 5) == 0 && strlen(addr) < 200 &&
	    !strpbrk(addr, "'\\")) {
		sock = addr + 5;
		host = "localhost";
	} else if (worker && addr && strlen(addr) < 100 && !strpbrk(addr, "'\"\\ ")) {
		host = addr;
	}
	if (worker)
		snprintf(pid, sizeof pid, "&pid=%ld", self);
	fk_reply_error(r, 409, "%s: curl -X POST %s%s%s'http://%s/internal/heap/settings"
		       "?enabled=true%s'", FK_HOOK_NOTHING_SAMPLED, sock ? "--unix-socket '" : "",
		       sock ? sock : "", sock ? "' " : "", host, pid);
}

/* 409 in place of folded text without a line: nothing this process
 * sampled is in use now (a server that frees each request's memory when
 * it ends, as nginx's workers and named do, or a listener whose workers
 * do the program's work, as nginx's master), and an empty 200 would read
 * as a profile. Says why and where the allocations are: sampling off
 * here, the alloc counts, the other processes. */
static void nothing_in_use(struct fk_reply *r)
{
	char more[300] = "";
	struct fk_err err;
	long self = (long)getpid();
	struct fk_member w[1];
	int on = 1;

	if (fk_group_workers(w, 1) > 0)
		snprintf(more, sizeof more, "; the program's other processes are profiled "
			 "apart (/internal/heap/processes): ask one with ?pid=%ld; POST "
			 "/internal/heap/settings?enabled=true&pid=all turns sampling on in "
			 "every one", (long)w[0].pid);
	fk_err_init(&err, NULL);
	if (fk_je_get_active(&on, &err) == 0 && !on)
		fk_reply_error(r, 409, "no sampled allocation is in use in process %ld, and "
			       "sampling is off in it: turn it on with POST "
			       "/internal/heap/settings?enabled=true&pid=%ld%s", self, self, more);
	else if (!fk_je_prof_accum())
		fk_reply_error(r, 409, "no sampled allocation is in use in process %ld: either "
			       "nothing has been sampled yet or all of it has been freed (jemalloc "
			       "runs without prof_accum, which would tell)%s", self, more);
	else if (fk_je_holds_stacks() == 0)
		fk_reply_error(r, 409, "nothing has been sampled yet in process %ld since sampling "
			       "was turned on or the profile reset: let the program allocate, then "
			       "fetch again%s", self, more);
	else
		fk_reply_error(r, 409, "no sampled allocation is in use in process %ld: "
			       "folded stacks are the bytes in use, and all that was sampled has "
			       "been freed (/debug/pprof/allocs?pid=%ld counts what was allocated)%s",
			       self, self, more);
}

static void send_profile(const struct fk_request *rq, struct fk_reply *r, int fmt,
			 const struct fk_serve_opts *o)
{
	struct fk_err err;
	int rc;

	fk_err_init(&err, NULL);
	r->status = 200;
	r->ctype = fk_fmt_ctype(fmt);
	rc = fk_serve_produce(fmt, o, &r->body, &r->len, &r->maplen, &err);
	if (rc > 0)
		nothing_sampled(rq, r);
	else if (rc < 0)
		fk_reply_error(r, err.code == FK_EUNSUPP ? 503 : 500, "%s", err.msg);
	else if (fmt == FK_OUT_FOLDED && r->len == 0)
		nothing_in_use(r);
	else if (fmt == FK_OUT_PPROF)
		r->disposition = "attachment; filename=\"heap.pb.gz\"";
}

/* ?snapshot=ID, ?base=ID, or both: a snapshot, or the growth from base
 * to the snapshot or to now, in fmt. */
static void send_snapshot(const struct fk_req *q, struct fk_reply *r, int fmt,
			  const struct fk_serve_opts *o)
{
	struct fk_err err;
	uint32_t id = q->snapshot, base = q->base;

	if (fmt == FK_OUT_RAW) {
		fk_reply_error(r, 400, "format raw is the live heap only: a snapshot is "
			       "served as pprof, flame, folded or symbolized");
		return;
	}
	fk_err_init(&err, NULL);
	r->status = 200;
	r->ctype = fk_fmt_ctype(fmt);
	if (fk_snap_serve(id, base, fmt, o, &r->body, &r->len, &r->maplen, &err) < 0) {
		r->body = NULL;
		r->len = r->maplen = 0;
		fk_reply_error(r, err.code == FK_EUNSUPP ? 404 : 500, "%s", err.msg);
		return;
	}
	/* Folded text without a line, as for the live heap: said, never an
	 * empty 200. */
	if (fmt == FK_OUT_FOLDED && r->len == 0 && base && id)
		fk_reply_error(r, 409, "no stack grew from snapshot %u to snapshot %u: their "
			       "growth has no line", base, id);
	else if (fmt == FK_OUT_FOLDED && r->len == 0 && base)
		fk_reply_error(r, 409, "no stack grew from snapshot %u to now: the growth has "
			       "no line", base);
	else if (fmt == FK_OUT_FOLDED && r->len == 0)
		fk_reply_error(r, 409, "no sampled allocation was in use at snapshot %u: its "
			       "folded stacks, the bytes in use, have no line", id);
	else if (fmt == FK_OUT_PPROF)
		r->disposition = "attachment; filename=\"heap.pb.gz\"";
}

static void post_snapshot(const struct fk_request *rq, const struct fk_req *q,
			  struct fk_reply *r)
{
	struct fk_err err;
	uint32_t id = 0;
	FILE *f;

	(void)q;
	if (fk_settings_unavailable(r))
		return;
	if (!fk_state_sampled()) {
		nothing_sampled(rq, r);
		return;
	}
	fk_err_init(&err, NULL);
	if (fk_snap_take("request", &id, &err) < 0) {
		fk_reply_error(r, 500, "%s", err.msg);
		return;
	}
	if (!(f = fk_reply_open(r, "application/json")))
		return;
	size_t n, bytes;
	fk_snap_stats(&n, &bytes);
	fprintf(f, "{\"id\":%u,\"snapshots\":%zu,\"snapshot_bytes\":%zu}\n", id, n, bytes);
	fk_reply_close(r, f);
}

static int flame_opts(const struct fk_req *q, struct fk_reply *r, struct fk_serve_opts *o);

/* The timeline's formats, for its format parameter: the page (the
 * default), the series as folded text, or JSON. */
enum { TIMELINE_FLAME, TIMELINE_FOLDED, TIMELINE_JSON };
static const char *timeline_word(int i)
{
	static const char *const w[] = { "flame", "folded", "json" };

	return i >= 0 && i < 3 ? w[i] : NULL;
}

/* The timeline: the page (default), the series as folded text, or JSON;
 * the page takes the flame graph's options, which the others refuse. */
static void get_timeline(const struct fk_request *rq, const struct fk_req *q,
			 struct fk_reply *r)
{
	static const enum fk_arg page_only[] = {
		FK_ARG_TITLE, FK_ARG_COLORS, FK_ARG_MINWIDTH, FK_ARG_INVERTED };
	struct fk_serve_opts o = { .minwidth = -1, .inverted = -1 };
	int fmt = q->format == TIMELINE_FOLDED ? FK_OUT_FOLDED : FK_OUT_FLAME;
	struct fk_err err;
	FILE *jf;

	(void)rq;
	if (q->format != TIMELINE_FLAME)
		for (size_t i = 0; i < sizeof page_only / sizeof page_only[0]; i++)
			if (fk_req_has(q, page_only[i])) {
				fk_reply_error(r, 400, "'%s' shapes the timeline's page "
					       "(format=flame), not format=%s",
					       fk_arg_name(page_only[i]), timeline_word(q->format));
				return;
			}
	if (q->format == TIMELINE_JSON) {
		if ((jf = fk_reply_open(r, "application/json"))) {
			fk_snap_json(jf);
			fk_reply_close(r, jf);
		}
		return;
	}
	if (flame_opts(q, r, &o))
		return;
	fk_err_init(&err, NULL);
	r->status = 200;
	r->ctype = fk_fmt_ctype(fmt);
	if (fk_snap_series(fmt, &o, &r->body, &r->len, &err) < 0) {
		r->body = NULL;
		r->len = 0;
		if (err.code == FK_EUNSUPP)
			fk_reply_error(r, 409, "no snapshot yet: turn sampling on (snapshots are "
				       "taken every %g s, at peaks, and on POST "
				       "/internal/heap/snapshot)", fk_env_get()->snapshot_s);
		else
			fk_reply_error(r, 500, "%s", err.msg);
	}
}

/* ?max_samples=N (0: no limit), else the process's default. */
static size_t sample_limit(const struct fk_req *q)
{
	return fk_req_has(q, FK_ARG_MAX_SAMPLES) ? (size_t)q->max_samples
					       : fk_env_get()->max_samples;
}

/* The flame graph's options, as render-flame's; 0, or 1 with a 400. */
static int flame_opts(const struct fk_req *q, struct fk_reply *r, struct fk_serve_opts *o)
{
	const char *msg;

	o->title = q->title;
	o->colors = q->colors;
	o->minwidth = q->minwidth;
	o->minwidth_pct = q->minwidth_pct;
	o->inverted = q->inverted;
	o->lines = q->lines;
	if (fk_serve_check(o, &msg) < 0) {
		fk_reply_error(r, 400, "%s", msg);
		return 1;
	}
	return 0;
}

/* The format names joined by sep, the last by last: what a format
 * argument may be, from serve_profile.c's table. */
static const char *format_list(char *buf, size_t size, const char *sep, const char *last)
{
	size_t k = 0;
	int n = 0;

	buf[0] = '\0';
	while (fk_fmt_name(n))
		n++;
	for (int i = 0; i < n && k < size; i++)
		k += (size_t)snprintf(buf + k, size - k, "%s%s",
				      i == 0 ? "" : i == n - 1 ? last : sep, fk_fmt_name(i));
	return buf;
}

static void get_heap(const struct fk_request *rq, const struct fk_req *q, struct fk_reply *r)
{
	struct fk_serve_opts o = { .minwidth = -1, .inverted = -1 };
	int fmt = q->format;

	if (fk_req_has(q, FK_ARG_SAMPLE_TYPE)) {
		/* The page has a column of each, a pprof carries all four. */
		if (fmt != FK_OUT_FOLDED) {
			fk_reply_error(r, 400, "sample_type chooses folded text's value "
				       "(format=folded): the flame page has a column of each "
				       "type, a pprof carries all four");
			return;
		}
		o.sample_type = q->sample_type;
	}
	if (flame_opts(q, r, &o))
		return;
	o.max_samples = sample_limit(q);
	if (fk_settings_unavailable(r) || idle_copy(r))
		return;
	if (fk_req_has(q, FK_ARG_SNAPSHOT) || fk_req_has(q, FK_ARG_BASE)) {
		send_snapshot(q, r, fmt, &o);
		return;
	}
	send_profile(rq, r, fmt, &o);
}

/* Go's /debug/pprof/heap or /debug/pprof/allocs: the same four sample
 * types, the default alloc_space for allocs; ?seconds=N a window. */
static void get_pprof(const struct fk_request *rq, const struct fk_req *q, struct fk_reply *r,
		      int allocs)
{
	struct fk_serve_opts o = { .minwidth = -1, .inverted = -1, .allocs = allocs };
	struct fk_err err;

	o.max_samples = sample_limit(q);
	if (fk_settings_unavailable(r) || idle_copy(r))
		return;
	if (q->seconds == 0) {
		send_profile(rq, r, FK_OUT_PPROF, &o);
		return;
	}
	if (!fk_state_sampled()) {
		nothing_sampled(rq, r);
		return;
	}
	fk_err_init(&err, NULL);
	r->ctx = fk_serve_delta_begin(&o, &err);
	if (!r->ctx) {
		fk_reply_error(r, 500, "%s", err.msg);
		return;
	}
	r->deadline = fk_now() + (double)q->seconds;
	r->finish = fk_serve_delta_finish;
	r->drop = fk_serve_delta_drop;
}

static void get_heap_pprof(const struct fk_request *rq, const struct fk_req *q,
			   struct fk_reply *r)
{
	get_pprof(rq, q, r, 0);
}

static void get_allocs_pprof(const struct fk_request *rq, const struct fk_req *q,
			     struct fk_reply *r)
{
	get_pprof(rq, q, r, 1);
}

/* The lifetimes' formats, for its format parameter: json (the default,
 * the per-site figures), the profile formats, and raw (the record). */
static const char *lifetimes_word(int i)
{
	static const char *const w[] = { "json", "pprof", "flame", "folded", "raw" };

	return i >= 0 && i < 5 ? w[i] : NULL;
}

/* ?view=temporary&max_ms=N, view=oldest&min_s=N, view=freed, or none
 * (every record by allocation site), in a format (json by default). */
static void get_lifetimes(const struct fk_request *rq, const struct fk_req *q,
			  struct fk_reply *r)
{
	int ms = fk_req_has(q, FK_ARG_MAX_MS), mins = fk_req_has(q, FK_ARG_MIN_S);
	struct fk_serve_opts o = { .minwidth = -1, .inverted = -1 };
	struct fk_life_query lq = { (enum fk_life_view)q->view, FK_HOOK_LIFE_MAX_MS,
				    FK_HOOK_LIFE_MIN_S };
	struct fk_err err;
	int fmt = q->format == 0 ? FK_RECENT_JSON : fk_fmt_parse(lifetimes_word(q->format)), rc;

	(void)rq;
	if ((ms && lq.view != FK_LIFE_TEMPORARY) || (mins && lq.view != FK_LIFE_OLDEST)) {
		fk_reply_error(r, 400, "%s goes with view=%s", ms ? "max_ms" : "min_s",
			       ms ? "temporary" : "oldest");
		return;
	}
	if (ms)
		lq.max_ms = (double)q->max_ms;
	if (mins)
		lq.min_s = (double)q->min_s;
	if (flame_opts(q, r, &o) || fk_settings_unavailable(r) || idle_copy(r))
		return;
	fk_err_init(&err, NULL);
	r->status = 200;
	r->ctype = fmt == FK_RECENT_JSON ? "application/json" :
		fmt == FK_OUT_RAW ? "text/plain; charset=utf-8" : fk_fmt_ctype(fmt);
	rc = fk_recent_serve(&lq, fmt, &o, &r->body, &r->len, &r->maplen, &err);
	if (rc != 0) {
		r->body = NULL;
		r->len = r->maplen = 0;
		fk_reply_error(r, rc > 0 ? 409 : err.code == FK_EUNSUPP ? 503 : 500, "%s", err.msg);
		return;
	}
	if (fmt == FK_OUT_PPROF)
		r->disposition = "attachment; filename=\"lifetimes.pb.gz\"";
}

static void get_index(const struct fk_request *rq, const struct fk_req *q, struct fk_reply *r);

/* The parameters each route takes (serve_params.c checks them before the
 * handler runs; every route also takes pid). */
#define SNAPSHOT_ID "a snapshot id (see /internal/heap/timeline?format=json)"
#define P(a, k) { .arg = FK_ARG_##a, .kind = FK_PARAM_##k }
#define MAX_SAMPLES { .arg = FK_ARG_MAX_SAMPLES, .kind = FK_PARAM_UINT, .max = UINT32_MAX, \
		      .want = "0 (no limit) to 4294967295" }
#define SNAP(a) { .arg = FK_ARG_##a, .kind = FK_PARAM_ID, .max = UINT32_MAX, .want = SNAPSHOT_ID }
#define END { .arg = FK_ARG_END }
static const struct fk_param no_params[] = { END };
/* Taken only to be answered 405 by the handler: GET changes nothing. */
static const struct fk_param get_settings_params[] = {
	P(ENABLED, TEXT), P(LG_SAMPLE, TEXT), END };
static const struct fk_param post_settings_params[] = {
	P(ENABLED, BOOL),
	{ .arg = FK_ARG_LG_SAMPLE, .kind = FK_PARAM_UINT, .max = 63 },
	P(PID, PID_ALL),
	END };
static const struct fk_param heap_params[] = {
	{ .arg = FK_ARG_FORMAT, .kind = FK_PARAM_WORD, .word = fk_fmt_name },
	P(TITLE, TEXT), P(COLORS, TEXT),
	P(MINWIDTH, WIDTH), P(INVERTED, FLAG), P(LINES, FLAG),
	{ .arg = FK_ARG_SAMPLE_TYPE, .kind = FK_PARAM_WORD, .word = fk_sample_type_name },
	MAX_SAMPLES, SNAP(SNAPSHOT), SNAP(BASE),
	END };
static const struct fk_param timeline_params[] = {
	{ .arg = FK_ARG_FORMAT, .kind = FK_PARAM_WORD, .word = timeline_word },
	P(TITLE, TEXT), P(COLORS, TEXT),
	P(MINWIDTH, WIDTH), P(INVERTED, FLAG),
	END };
static const struct fk_param lifetimes_params[] = {
	{ .arg = FK_ARG_FORMAT, .kind = FK_PARAM_WORD, .word = lifetimes_word },
	{ .arg = FK_ARG_VIEW, .kind = FK_PARAM_WORD, .word = fk_life_view_name },
	{ .arg = FK_ARG_MAX_MS, .kind = FK_PARAM_UINT, .max = FK_HOOK_LIFE_MAX_MS_MAX },
	{ .arg = FK_ARG_MIN_S, .kind = FK_PARAM_UINT, .max = FK_HOOK_LIFE_MIN_S_MAX },
	P(TITLE, TEXT), P(COLORS, TEXT),
	P(MINWIDTH, WIDTH), P(INVERTED, FLAG),
	END };
static const struct fk_param waste_params[] = {
	{ .arg = FK_ARG_FORMAT, .kind = FK_PARAM_WORD, .word = fk_waste_format_name },
	P(TITLE, TEXT),
	END };
static const struct fk_param pprof_params[] = {
	{ .arg = FK_ARG_SECONDS, .kind = FK_PARAM_UINT, .max = FK_HOOK_MAX_SECONDS },
	MAX_SAMPLES,
	END };

static const struct route {
	const char *method;            /* "GET" also serves HEAD */
	const char *path;
	void (*fn)(const struct fk_request *rq, const struct fk_req *q, struct fk_reply *r);
	const char *help;
	const struct fk_param *params; /* what its query may hold, besides pid */
} routes[] = {
	{ "GET", "/internal/heap/settings", fk_settings_get, "", get_settings_params },
	{ "POST", "/internal/heap/settings", fk_settings_post,
	  "?enabled=true|false[&lg_sample=N]", post_settings_params },
	{ "GET", "/internal/heap", get_heap, NULL, heap_params },  /* ?format=, from the table */
	{ "POST", "/internal/heap/snapshot", post_snapshot, "", no_params },
	{ "GET", "/internal/heap/timeline", get_timeline, "[?format=flame|folded|json]",
	  timeline_params },
	{ "GET", "/internal/heap/lifetimes", get_lifetimes,
	  "[?view=temporary&max_ms=N|oldest&min_s=N|freed][&format=json|pprof|flame|folded|raw]",
	  lifetimes_params },
	{ "GET", "/internal/heap/waste", fk_waste_route, "[?format=json|folded|flame]",
	  waste_params },
	{ "GET", "/internal/heap/processes", fk_procs_list,
	  "  (the program's processes; ?pid=N on any route asks one)", no_params },
	{ "GET", "/debug/pprof/heap", get_heap_pprof, "[?seconds=N][&max_samples=N]", pprof_params },
	{ "GET", "/debug/pprof/allocs", get_allocs_pprof, "[?seconds=N][&max_samples=N]",
	  pprof_params },
	{ "GET", "/", get_index, "  (this list)", no_params },
};

static void get_index(const struct fk_request *rq, const struct fk_req *q, struct fk_reply *r)
{
	FILE *f;

	(void)rq;
	(void)q;
	if (!(f = fk_reply_open(r, "text/plain; charset=utf-8")))
		return;
	fputs("flamekit hook endpoints:\n", f);
	for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++) {
		char names[200];
		const char *help = routes[i].help ? routes[i].help
			: format_list(names, sizeof names, "|", "|");

		fprintf(f, "  %-4s %s%s%s\n", routes[i].method, routes[i].path,
			routes[i].help ? "" : "?format=", help);
	}
	fk_reply_close(r, f);
}

/* ?pid=N for another process of the program: proxied to it (1), or an
 * error (1); 0 when the request is this process's. */
static int other_process(const struct fk_request *rq, const struct fk_req *q,
			 struct fk_reply *r)
{
	if (q->pid_all) {
		struct fk_reply self;

		if (strcmp(rq->method, "POST") != 0 || strcmp(rq->path, "/internal/heap/settings") != 0) {
			fk_reply_error(r, 400, "pid=all is only for POST /internal/heap/settings");
			return 1;
		}
		memset(&self, 0, sizeof self);
		fk_settings_post(rq, q, &self);
		if (self.status != 0 && self.status != 200) {
			*r = self;
			return 1;
		}
		fk_procs_all(rq, &self, r);
		return 1;
	}
	if (!fk_req_has(q, FK_ARG_PID) || q->pid == getpid())
		return 0;
	if (!fk_group_is_worker(q->pid)) {
		fk_reply_error(r, 404, "no process %ld in this program: GET "
			       "/internal/heap/processes lists them", (long)q->pid);
		return 1;
	}
	fk_procs_proxy(rq, q, r);
	return 1;
}

void fk_routes_handle(const struct fk_request *rq, struct fk_reply *r)
{
	const char *m = strcmp(rq->method, "HEAD") == 0 ? "GET" : rq->method;
	const char *allowed = NULL;

	for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++) {
		if (strcmp(rq->path, routes[i].path) != 0)
			continue;
		if (strcmp(m, routes[i].method) == 0) {
			char route[120], msg[600];
			struct fk_req q;

			snprintf(route, sizeof route, "%s %s", routes[i].method, routes[i].path);
			if (fk_req_parse(&q, rq->each, rq->tctx, routes[i].params, route, msg,
					 sizeof msg) < 0)
				fk_reply_error(r, 400, "%s", msg);
			else if (!other_process(rq, &q, r))
				routes[i].fn(rq, &q, r);
			return;
		}
		allowed = routes[i].method;
	}
	if (allowed)
		fk_reply_error(r, 405, "%s is not allowed on %.80s: use %s", rq->method,
			       rq->path, allowed);
	else
		fk_reply_error(r, 404, "no such endpoint '%.80s': see GET /", rq->path);
}
