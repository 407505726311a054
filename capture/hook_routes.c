/* SPDX-License-Identifier: MIT */
/* The hook's endpoints (libflamekit-hook(3), ENDPOINTS), as a table: a
 * method, a path, a handler and the line GET / shows. Handlers fill a
 * reply; the transport (hook_http.c) knows nothing of them, and they know
 * nothing of HTTP's plumbing. GET and HEAD never change state. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "serve_int.h"
#include "life.h"
#include "num.h"
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

/* A snapshot id parameter: 0 when absent, else 1.. into *id; -1 with a
 * 400 when malformed. */
static int snap_id(const struct fk_request *rq, struct fk_reply *r, const char *name,
		   uint32_t *id)
{
	const char *s = fk_req_arg(rq, name);
	uint64_t v;

	*id = 0;
	if (!s)
		return 0;
	if (fk_parse_u64(s, strlen(s), &v) < 0 || v == 0 || v > UINT32_MAX) {
		fk_reply_error(r, 400, "bad %s '%.40s': want a snapshot id (see "
			       "/internal/heap/timeline?format=json)", name, s);
		return -1;
	}
	*id = (uint32_t)v;
	return 0;
}

/* ?snapshot=ID, ?base=ID, or both: a snapshot, or the growth from base
 * to the snapshot or to now, in fmt. */
static void send_snapshot(const struct fk_request *rq, struct fk_reply *r, int fmt,
			  const struct fk_serve_opts *o)
{
	struct fk_err err;
	uint32_t id, base;

	if (snap_id(rq, r, "snapshot", &id) < 0 || snap_id(rq, r, "base", &base) < 0)
		return;
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

static void post_snapshot(const struct fk_request *rq, struct fk_reply *r)
{
	struct fk_err err;
	uint32_t id = 0;
	FILE *f;

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

static int flame_opts(const struct fk_request *rq, struct fk_reply *r, struct fk_serve_opts *o);

/* The timeline: the page (default), the series as folded text, or JSON;
 * the page takes the flame graph's options, which the others refuse. */
static void get_timeline(const struct fk_request *rq, struct fk_reply *r)
{
	static const char *const page_only[] = { "title", "colors", "minwidth", "inverted" };
	const char *f = fk_req_arg(rq, "format");
	struct fk_serve_opts o = { .minwidth = -1, .inverted = -1 };
	struct fk_err err;
	int fmt = FK_OUT_FLAME;
	FILE *jf;

	if (f && strcmp(f, "flame") != 0)
		for (size_t i = 0; i < sizeof page_only / sizeof page_only[0]; i++)
			if (fk_req_arg(rq, page_only[i])) {
				fk_reply_error(r, 400, "'%s' shapes the timeline's page "
					       "(format=flame), not format=%.40s", page_only[i], f);
				return;
			}
	if (f && strcmp(f, "json") == 0) {
		if ((jf = fk_reply_open(r, "application/json"))) {
			fk_snap_json(jf);
			fk_reply_close(r, jf);
		}
		return;
	}
	if (f && (fmt = fk_fmt_parse(f)) != FK_OUT_FLAME && fmt != FK_OUT_FOLDED) {
		fk_reply_error(r, 400, "unknown timeline format '%.40s': want flame, folded or json", f);
		return;
	}
	if (flame_opts(rq, r, &o))
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

/* ?max_samples=N (0: no limit) into o, else the process's default; 0,
 * or 1 with a 400. */
static int sample_limit(const struct fk_request *rq, struct fk_reply *r, struct fk_serve_opts *o)
{
	const char *s = fk_req_arg(rq, "max_samples");
	o->max_samples = fk_env_get()->max_samples;
	if (!s)
		return 0;
	if (fk_parse_size(s, strlen(s), UINT32_MAX, &o->max_samples) < 0) {
		fk_reply_error(r, 400, "bad max_samples '%.40s': want 0 (no limit) to %u", s,
			       UINT32_MAX);
		return 1;
	}
	return 0;
}

/* The flame graph's options, as render-flame's; 0, or 1 with a 400. */
static int flame_opts(const struct fk_request *rq, struct fk_reply *r, struct fk_serve_opts *o)
{
	const char *s;

	o->title = fk_req_arg(rq, "title");
	o->colors = fk_req_arg(rq, "colors");
	if ((s = fk_req_arg(rq, "minwidth"))) {
		if (fk_parse_minwidth(s, strlen(s), &o->minwidth, &o->minwidth_pct) < 0 ||
		    o->minwidth > 1e6) {
			fk_reply_error(r, 400, "bad minwidth '%.40s'", s);
			return 1;
		}
	}
	if ((s = fk_req_arg(rq, "inverted")) &&
	    (*s ? fk_param_bool(s, &o->inverted) : (o->inverted = 1, 0)) < 0) {
		fk_reply_error(r, 400, "bad inverted '%.40s': want true or false", s);
		return 1;
	}
	if ((s = fk_req_arg(rq, "lines")) &&
	    (*s ? fk_param_bool(s, &o->lines) : (o->lines = 1, 0)) < 0) {
		fk_reply_error(r, 400, "bad lines '%.40s': want true or false", s);
		return 1;
	}
	if (fk_serve_check(o, &s) < 0) {
		fk_reply_error(r, 400, "%s", s);
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

static void get_heap(const struct fk_request *rq, struct fk_reply *r)
{
	const char *f = fk_req_arg(rq, "format"), *st;
	struct fk_serve_opts o = { .minwidth = -1, .inverted = -1 };
	int fmt = FK_OUT_PPROF;

	if (f && (fmt = fk_fmt_parse(f)) < 0) {
		char names[200];

		fk_reply_error(r, 400, "unknown format '%.40s': want %s", f,
			       format_list(names, sizeof names, ", ", " or "));
		return;
	}
	if ((st = fk_req_arg(rq, "sample_type"))) {
		/* The page has a column of each, a pprof carries all four. */
		if (fmt != FK_OUT_FOLDED) {
			fk_reply_error(r, 400, "sample_type chooses folded text's value "
				       "(format=folded): the flame page has a column of each "
				       "type, a pprof carries all four");
			return;
		}
		o.sample_type = fk_param_word(fk_sample_type_name, st);
	}
	if (flame_opts(rq, r, &o) || sample_limit(rq, r, &o) || fk_settings_unavailable(r) || idle_copy(r))
		return;
	if (fk_req_arg(rq, "snapshot") || fk_req_arg(rq, "base")) {
		send_snapshot(rq, r, fmt, &o);
		return;
	}
	send_profile(rq, r, fmt, &o);
}

/* Go's /debug/pprof/heap or /debug/pprof/allocs: the same four sample
 * types, the default alloc_space for allocs; ?seconds=N a window. */
static void get_pprof(const struct fk_request *rq, struct fk_reply *r, int allocs)
{
	const char *s = fk_req_arg(rq, "seconds");
	struct fk_serve_opts o = { .minwidth = -1, .inverted = -1, .allocs = allocs };
	struct fk_err err;
	uint64_t secs = 0;

	if (s && (fk_parse_u64(s, strlen(s), &secs) < 0 || secs > FK_HOOK_MAX_SECONDS)) {
		fk_reply_error(r, 400, "bad seconds '%.40s': want 0 to %d", s, FK_HOOK_MAX_SECONDS);
		return;
	}
	if (sample_limit(rq, r, &o) || fk_settings_unavailable(r) || idle_copy(r))
		return;
	if (secs == 0) {
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
	r->deadline = fk_now() + (double)secs;
	r->finish = fk_serve_delta_finish;
	r->drop = fk_serve_delta_drop;
}

static void get_heap_pprof(const struct fk_request *rq, struct fk_reply *r)
{
	get_pprof(rq, r, 0);
}

static void get_allocs_pprof(const struct fk_request *rq, struct fk_reply *r)
{
	get_pprof(rq, r, 1);
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
static void get_lifetimes(const struct fk_request *rq, struct fk_reply *r)
{
	const char *f = fk_req_arg(rq, "format"), *v = fk_req_arg(rq, "view");
	const char *ms = fk_req_arg(rq, "max_ms"), *mins = fk_req_arg(rq, "min_s");
	struct fk_serve_opts o = { .minwidth = -1, .inverted = -1 };
	struct fk_life_query q = { FK_LIFE_SITES, FK_HOOK_LIFE_MAX_MS, FK_HOOK_LIFE_MIN_S };
	struct fk_err err;
	int fmt = FK_RECENT_JSON, rc;
	uint64_t n;

	if (v)
		q.view = (enum fk_life_view)fk_life_view_parse(v);
	if ((ms && q.view != FK_LIFE_TEMPORARY) || (mins && q.view != FK_LIFE_OLDEST)) {
		fk_reply_error(r, 400, "%s goes with view=%s", ms ? "max_ms" : "min_s",
			       ms ? "temporary" : "oldest");
		return;
	}
	if (ms && fk_parse_u64(ms, strlen(ms), &n) == 0)
		q.max_ms = (double)n;
	if (mins && fk_parse_u64(mins, strlen(mins), &n) == 0)
		q.min_s = (double)n;
	if (f && strcmp(f, "json") != 0)
		fmt = fk_fmt_parse(f);
	if (flame_opts(rq, r, &o) || fk_settings_unavailable(r) || idle_copy(r))
		return;
	fk_err_init(&err, NULL);
	r->status = 200;
	r->ctype = fmt == FK_RECENT_JSON ? "application/json" :
		fmt == FK_OUT_RAW ? "text/plain; charset=utf-8" : fk_fmt_ctype(fmt);
	rc = fk_recent_serve(&q, fmt, &o, &r->body, &r->len, &r->maplen, &err);
	if (rc != 0) {
		r->body = NULL;
		r->len = r->maplen = 0;
		fk_reply_error(r, rc > 0 ? 409 : err.code == FK_EUNSUPP ? 503 : 500, "%s", err.msg);
		return;
	}
	if (fmt == FK_OUT_PPROF)
		r->disposition = "attachment; filename=\"lifetimes.pb.gz\"";
}

static void get_index(const struct fk_request *rq, struct fk_reply *r);

/* The timeline's formats, for its format parameter. */
static const char *timeline_word(int i)
{
	static const char *const w[] = { "flame", "folded", "json" };

	return i >= 0 && i < 3 ? w[i] : NULL;
}

/* The parameters each route takes (hook_params.c checks them before the
 * handler runs; every route also takes pid). */
#define SNAPSHOT_ID "a snapshot id (see /internal/heap/timeline?format=json)"
#define P(n, k) { .name = (n), .kind = (k) }
#define MAX_SAMPLES { .name = "max_samples", .kind = FK_PARAM_UINT, .max = UINT32_MAX, \
		      .want = "0 (no limit) to 4294967295" }
#define SNAP(n) { .name = (n), .kind = FK_PARAM_ID, .max = UINT32_MAX, .want = SNAPSHOT_ID }
static const struct fk_param no_params[] = { P(NULL, 0) };
/* Taken only to be answered 405 by the handler: GET changes nothing. */
static const struct fk_param get_settings_params[] = {
	P("enabled", FK_PARAM_TEXT), P("lg_sample", FK_PARAM_TEXT), P(NULL, 0) };
static const struct fk_param post_settings_params[] = {
	P("enabled", FK_PARAM_BOOL),
	{ .name = "lg_sample", .kind = FK_PARAM_UINT, .max = 63 },
	P("pid", FK_PARAM_PID_ALL),
	P(NULL, 0) };
static const struct fk_param heap_params[] = {
	{ .name = "format", .kind = FK_PARAM_WORD, .word = fk_fmt_name },
	P("title", FK_PARAM_TEXT), P("colors", FK_PARAM_TEXT),
	P("minwidth", FK_PARAM_WIDTH), P("inverted", FK_PARAM_FLAG), P("lines", FK_PARAM_FLAG),
	{ .name = "sample_type", .kind = FK_PARAM_WORD, .word = fk_sample_type_name },
	MAX_SAMPLES, SNAP("snapshot"), SNAP("base"),
	P(NULL, 0) };
static const struct fk_param timeline_params[] = {
	{ .name = "format", .kind = FK_PARAM_WORD, .word = timeline_word },
	P("title", FK_PARAM_TEXT), P("colors", FK_PARAM_TEXT),
	P("minwidth", FK_PARAM_WIDTH), P("inverted", FK_PARAM_FLAG),
	P(NULL, 0) };
static const struct fk_param lifetimes_params[] = {
	{ .name = "format", .kind = FK_PARAM_WORD, .word = lifetimes_word },
	{ .name = "view", .kind = FK_PARAM_WORD, .word = fk_life_view_name },
	{ .name = "max_ms", .kind = FK_PARAM_UINT, .max = FK_HOOK_LIFE_MAX_MS_MAX },
	{ .name = "min_s", .kind = FK_PARAM_UINT, .max = FK_HOOK_LIFE_MIN_S_MAX },
	P("title", FK_PARAM_TEXT), P("colors", FK_PARAM_TEXT),
	P("minwidth", FK_PARAM_WIDTH), P("inverted", FK_PARAM_FLAG),
	P(NULL, 0) };
static const struct fk_param waste_params[] = {
	{ .name = "format", .kind = FK_PARAM_WORD, .word = fk_waste_format_name },
	P("title", FK_PARAM_TEXT),
	P(NULL, 0) };
static const struct fk_param pprof_params[] = {
	{ .name = "seconds", .kind = FK_PARAM_UINT, .max = FK_HOOK_MAX_SECONDS },
	MAX_SAMPLES,
	P(NULL, 0) };

static const struct route {
	const char *method;            /* "GET" also serves HEAD */
	const char *path;
	void (*fn)(const struct fk_request *rq, struct fk_reply *r);
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

static void get_index(const struct fk_request *rq, struct fk_reply *r)
{
	FILE *f;

	(void)rq;
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
static int other_process(const struct fk_request *rq, struct fk_reply *r)
{
	const char *pid = fk_req_arg(rq, "pid");
	uint64_t v;

	if (!pid)
		return 0;
	if (strcmp(pid, "all") == 0) {
		struct fk_reply self;

		if (strcmp(rq->method, "POST") != 0 || strcmp(rq->path, "/internal/heap/settings") != 0) {
			fk_reply_error(r, 400, "pid=all is only for POST /internal/heap/settings");
			return 1;
		}
		memset(&self, 0, sizeof self);
		fk_settings_post(rq, &self);
		if (self.status != 0 && self.status != 200) {
			*r = self;
			return 1;
		}
		fk_procs_all(rq, &self, r);
		return 1;
	}
	if (fk_parse_u64(pid, strlen(pid), &v) < 0 || v == 0 || v > INT32_MAX) {
		fk_reply_error(r, 400, "bad pid '%.40s': want a process id from GET "
			       "/internal/heap/processes (or all, for POST settings)", pid);
		return 1;
	}
	if ((pid_t)v == getpid())
		return 0;
	if (!fk_group_is_worker((pid_t)v)) {
		fk_reply_error(r, 404, "no process %llu in this program: GET "
			       "/internal/heap/processes lists them", (unsigned long long)v);
		return 1;
	}
	fk_procs_proxy(rq, (pid_t)v, r);
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

			snprintf(route, sizeof route, "%s %s", routes[i].method, routes[i].path);
			if (fk_params_check(rq, routes[i].params, route, msg, sizeof msg) < 0)
				fk_reply_error(r, 400, "%s", msg);
			else if (!other_process(rq, r))
				routes[i].fn(rq, r);
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
