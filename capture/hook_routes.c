/* The hook's endpoints (libflamekit-hook(3), ENDPOINTS):
 *   GET|POST /internal/heap/settings   sampling on/off and status (JSON)
 *   GET /internal/heap?format=...      a dump in a format (pprof default)
 *   GET /debug/pprof/heap[?seconds=N]  pprof for `go tool pprof URL`
 * GET and HEAD never change state. */
#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hook_int.h"
#include "num.h"

static const char *arg(struct MHD_Connection *c, const char *name)
{
	return MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, name);
}

/* 503 with the sentence saying what to do, when jemalloc cannot profile. */
static int unavailable(struct MHD_Connection *c)
{
	const char *why = "";

	if (fk_je_check(&why) == FK_JE_OK)
		return -1;
	return fk_http_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, "%s", why);
}

static int parse_bool(const char *s, int *out)
{
	if (strcmp(s, "true") == 0 || strcmp(s, "1") == 0) {
		*out = 1;
		return 0;
	}
	if (strcmp(s, "false") == 0 || strcmp(s, "0") == 0) {
		*out = 0;
		return 0;
	}
	return -1;
}

/* JSON string contents: only what our own messages can hold needs escaping. */
static void json_str(FILE *f, const char *s)
{
	putc('"', f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			putc(ch, f);
	}
	putc('"', f);
}

/* A problem the settings report although profiling works: the chosen
 * jemalloc holds almost nothing while the process is large, so the
 * program's allocations go elsewhere (another allocator, another copy). */
static int idle_allocator(char *buf, size_t size, const struct fk_je_copy *c)
{
	uint64_t held = fk_je_stat("stats.allocated");
	long pages = 0, rss = 0;
	FILE *f = fopen("/proc/self/statm", "re");

	if (f) {
		if (fscanf(f, "%ld %ld", &pages, &rss) != 2)
			rss = 0;
		fclose(f);
	}
	uint64_t rss_bytes = (uint64_t)(rss > 0 ? rss : 0) * (uint64_t)sysconf(_SC_PAGESIZE);
	if (held == 0 || held >= FK_HOOK_IDLE_HELD || rss_bytes < FK_HOOK_IDLE_RSS)
		return 0;
	snprintf(buf, size, "the jemalloc served (%s in %s) holds only %llu bytes while the "
		 "process's RSS is %llu bytes: the program seems to allocate through "
		 "another allocator; its profiles will be nearly empty (set FLAMEKIT_MALLCTL "
		 "to the right mallctl)", c->symbol, c->module, (unsigned long long)held,
		 (unsigned long long)rss_bytes);
	return 1;
}

static int settings_json(struct MHD_Connection *c, unsigned status)
{
	struct fk_reply r = { .status = status, .ctype = "application/json" };
	const char *why = "", *note = "";
	enum fk_je_avail av = fk_je_check(&why);
	int active = 0, lg = fk_je_lg_sample(), found;
	double since = fk_hook_active_since();
	struct fk_je_copy cp;
	size_t ncopies = 0;
	char idle[1024];
	FILE *f;

	found = fk_je_chosen(&cp, &ncopies, &note) == 0;
	if (av == FK_JE_OK && fk_je_get_active(&active, NULL) < 0)
		active = 0;
	f = open_memstream(&r.body, &r.len);
	if (!f)
		return MHD_NO;
	fprintf(f, "{\"enabled\":%s,", active ? "true" : "false");
	if (lg >= 0)
		fprintf(f, "\"lg_sample\":%d,", lg);
	else
		fputs("\"lg_sample\":null,", f);
	fprintf(f, "\"jemalloc\":%s,\"mallctl\":", found ? "true" : "false");
	if (found) {
		json_str(f, cp.symbol);
		fputs(",\"mallctl_module\":", f);
		json_str(f, cp.module);
		fputs(",\"mallctl_source\":", f);
		json_str(f, cp.source);
		fputs(",\"jemalloc_version\":", f);
		json_str(f, cp.version);
	} else {
		fputs("null,\"mallctl_module\":null,\"mallctl_source\":null,"
		      "\"jemalloc_version\":null", f);
	}
	fprintf(f, ",\"jemallocs_found\":%zu", ncopies);
	fprintf(f, ",\"profiling_compiled\":%s,\"profiling_started\":%s,",
		av == FK_JE_OK || av == FK_JE_NOTSTARTED ? "true" : "false",
		av == FK_JE_OK ? "true" : "false");
	if (active && since >= 0)
		fprintf(f, "\"active_seconds\":%.3f,", fk_now() - since);
	else
		fputs("\"active_seconds\":null,", f);
	fprintf(f, "\"sampled\":%s,", av == FK_JE_OK && fk_hook_sampled() ? "true" : "false");
	fprintf(f, "\"dumps_served\":%lu", fk_hook_dumps());
	if (av != FK_JE_OK) {
		fputs(",\"problem\":", f);
		json_str(f, why);
	} else if (found && idle_allocator(idle, sizeof idle, &cp)) {
		fputs(",\"problem\":", f);
		json_str(f, idle);
	}
	if (note[0]) {
		fputs(",\"warning\":", f);
		json_str(f, note);
	}
	fputs("}\n", f);
	if (fclose(f) != 0) {
		free(r.body);
		return MHD_NO;
	}
	return fk_http_queue(c, &r);
}

static int route_settings(struct MHD_Connection *c, const char *method)
{
	const char *en = arg(c, "enabled"), *lgs = arg(c, "lg_sample");
	struct fk_err err;
	int on = -1, lg = -1, cur;
	uint64_t v;

	if (strcmp(method, "POST") != 0) {
		if (en || lgs)
			return fk_http_error(c, MHD_HTTP_METHOD_NOT_ALLOWED,
					     "settings change only through POST "
					     "(with the header 'X-Flamekit: 1')");
		return settings_json(c, MHD_HTTP_OK);
	}
	if (!en && !lgs)
		return fk_http_error(c, MHD_HTTP_BAD_REQUEST,
				     "nothing to change: give enabled=true|false and/or lg_sample=N");
	if (en && parse_bool(en, &on) < 0)
		return fk_http_error(c, MHD_HTTP_BAD_REQUEST, "bad enabled '%.40s': want true or false", en);
	if (lgs && (fk_parse_u64(lgs, strlen(lgs), &v) < 0 || v > 63))
		return fk_http_error(c, MHD_HTTP_BAD_REQUEST, "bad lg_sample '%.40s': want 0 to 63", lgs);
	if (lgs)
		lg = (int)v;
	if (unavailable(c) != -1)
		return MHD_YES;
	fk_err_init(&err, NULL);
	if (on < 0) {
		if (fk_je_get_active(&cur, &err) < 0)
			return fk_http_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "%s", err.msg);
		on = cur;
	}
	if (fk_je_set_active(on, lg, &err) < 0)
		return fk_http_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "%s", err.msg);
	fk_hook_note_active(on, lg >= 0);
	fk_state_save(on, lg);
	return settings_json(c, MHD_HTTP_OK);
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

/* 409 with FK_HOOK_NOTHING_SAMPLED and how to turn sampling on. */
static int nothing_sampled(struct MHD_Connection *c)
{
	return fk_http_error(c, MHD_HTTP_CONFLICT,
			     "%s: curl -X POST -H 'X-Flamekit: 1' "
			     "'http://%s/internal/heap/settings?enabled=true'",
			     FK_HOOK_NOTHING_SAMPLED, host_for_msg(c));
}

static int send_profile(struct MHD_Connection *c, int fmt, const struct fk_serve_opts *o)
{
	struct fk_reply r = { .status = MHD_HTTP_OK, .ctype = fk_fmt_ctype(fmt) };
	struct fk_err err;

	int rc;

	fk_err_init(&err, NULL);
	rc = fk_hook_produce(fmt, o, &r.body, &r.len, &r.maplen, &err);
	if (rc > 0)
		return nothing_sampled(c);
	if (rc < 0)
		return fk_http_error(c, err.code == FK_EUNSUPP ? MHD_HTTP_SERVICE_UNAVAILABLE
				     : MHD_HTTP_INTERNAL_SERVER_ERROR, "%s", err.msg);
	if (fmt == FK_OUT_PPROF)
		r.disposition = "attachment; filename=\"heap.pb.gz\"";
	return fk_http_queue(c, &r);
}

static int route_heap(struct MHD_Connection *c)
{
	const char *f = arg(c, "format"), *s;
	struct fk_serve_opts o = { .minwidth = -1, .inverted = -1 };
	int fmt = FK_OUT_PPROF, rc;

	if (f && (fmt = fk_fmt_parse(f)) < 0)
		return fk_http_error(c, MHD_HTTP_BAD_REQUEST,
				     "unknown format '%.40s': want pprof, flame, folded, raw or symbolized", f);
	o.title = arg(c, "title");
	o.colors = arg(c, "colors");
	if ((s = arg(c, "minwidth"))) {
		char *end;

		o.minwidth = strtod(s, &end);
		if (*end == '%') {
			o.minwidth_pct = 1;
			end++;
		}
		if (*s == '\0' || *end != '\0' || !(o.minwidth >= 0 && o.minwidth <= 1e6))
			return fk_http_error(c, MHD_HTTP_BAD_REQUEST, "bad minwidth '%.40s'", s);
	}
	if ((s = arg(c, "inverted")) && (*s ? parse_bool(s, &o.inverted) : (o.inverted = 1, 0)) < 0)
		return fk_http_error(c, MHD_HTTP_BAD_REQUEST, "bad inverted '%.40s': want true or false", s);
	if (fk_serve_check(&o, &s) < 0)
		return fk_http_error(c, MHD_HTTP_BAD_REQUEST, "%s", s);
	if ((rc = unavailable(c)) != -1)
		return rc;
	return send_profile(c, fmt, &o);
}

/* A delta profile: the dump taken when the request came, waiting for the
 * second one. */
struct delta {
	char *base;
	size_t blen, bmaplen;
};

static void delta_drop(void *ctx)
{
	struct delta *d = ctx;

	fk_hook_buf_release(d->base, d->bmaplen);
	free(d);
}

static void delta_finish(void *ctx, struct fk_reply *r)
{
	struct delta *d = ctx;
	struct fk_err err;
	char *cur = NULL;
	size_t clen = 0, cmaplen = 0;
	int rc;

	fk_err_init(&err, NULL);
	r->ctype = "text/plain; charset=utf-8";
	fk_je_lock();
	rc = fk_je_dump(&cur, &clen, &cmaplen, &err);
	if (rc == 0) {
		rc = fk_serve_delta(d->base, d->blen, d->bmaplen, cur, clen, cmaplen,
				    &r->body, &r->len, &err);
		d->base = NULL;
	}
	fk_je_unlock();
	delta_drop(d);
	if (rc < 0) {
		r->status = err.code == FK_EUNSUPP ? MHD_HTTP_SERVICE_UNAVAILABLE
			: MHD_HTTP_INTERNAL_SERVER_ERROR;
		r->body = NULL;
		if (asprintf(&r->body, "%s\n", err.msg) < 0)
			r->body = NULL;
		r->len = r->body ? strlen(r->body) : 0;
		return;
	}
	fk_hook_note_dump();
	r->status = MHD_HTTP_OK;
	r->ctype = fk_fmt_ctype(FK_OUT_PPROF);
	r->disposition = "attachment; filename=\"heap.pb.gz\"";
}

static int route_pprof(struct fk_req *rq, struct MHD_Connection *c)
{
	const char *s = arg(c, "seconds");
	struct delta *d;
	struct fk_err err;
	uint64_t secs;
	int rc;

	if (s && (fk_parse_u64(s, strlen(s), &secs) < 0 || secs > FK_HOOK_MAX_SECONDS))
		return fk_http_error(c, MHD_HTTP_BAD_REQUEST, "bad seconds '%.40s': want 0 to %d",
				     s, FK_HOOK_MAX_SECONDS);
	if ((rc = unavailable(c)) != -1)
		return rc;
	if (!s || secs == 0)
		return send_profile(c, FK_OUT_PPROF, NULL);
	if (!fk_hook_sampled())
		return nothing_sampled(c);
	d = calloc(1, sizeof *d);
	if (!d)
		return fk_http_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
	fk_err_init(&err, NULL);
	fk_je_lock();
	rc = fk_je_dump(&d->base, &d->blen, &d->bmaplen, &err);
	fk_je_unlock();
	if (rc < 0) {
		free(d);
		return fk_http_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "%s", err.msg);
	}
	return fk_http_defer(rq, c, fk_now() + (double)secs, delta_finish, delta_drop, d);
}

static int route_index(struct MHD_Connection *c)
{
	static const char text[] =
		"flamekit hook endpoints:\n"
		"  GET  /internal/heap/settings\n"
		"  POST /internal/heap/settings?enabled=true|false[&lg_sample=N]  (header X-Flamekit: 1)\n"
		"  GET  /internal/heap?format=pprof|flame|folded|raw|symbolized\n"
		"  GET  /debug/pprof/heap[?seconds=N]\n";
	struct fk_reply r = { .status = MHD_HTTP_OK };

	r.body = strdup(text);
	r.len = sizeof text - 1;
	if (!r.body)
		return MHD_NO;
	return fk_http_queue(c, &r);
}

int fk_route(struct fk_req *rq, struct MHD_Connection *c, const char *method,
	     const char *url)
{
	int post = strcmp(method, "POST") == 0;

	if (strcmp(url, "/internal/heap/settings") == 0)
		return route_settings(c, method);
	if (post)
		return fk_http_error(c, MHD_HTTP_METHOD_NOT_ALLOWED,
				     "only /internal/heap/settings takes POST");
	if (strcmp(url, "/internal/heap") == 0)
		return route_heap(c);
	if (strcmp(url, "/debug/pprof/heap") == 0)
		return route_pprof(rq, c);
	if (strcmp(url, "/") == 0)
		return route_index(c);
	return fk_http_error(c, MHD_HTTP_NOT_FOUND, "no such endpoint '%.80s': see GET /", url);
}
