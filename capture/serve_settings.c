/* SPDX-License-Identifier: MIT */
/* The settings routes (libflamekit-hook(3), ENDPOINTS): GET
 * /internal/heap/settings, the JSON of what the hook knows (jemalloc, the
 * sampling state, the memory figures, the lifetimes record, a problem in
 * one sentence), and POST, which turns sampling on or off and resets the
 * profile at a new rate, that rate bounded. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "serve_int.h"
#include "json_enc.h"
#include "life.h"
#include "serve_req.h"
#include "symbolize.h"

/* 503 with the sentence saying what to do when jemalloc cannot profile;
 * 0 when it can. */
int fk_settings_unavailable(struct fk_reply *r)
{
	const char *why = "";

	if (fk_je_check(&why) == FK_JE_OK)
		return 0;
	fk_reply_error(r, 503, "%s", why);
	return 1;
}

/* A problem the settings report although profiling works: the chosen
 * jemalloc holds almost nothing while the process is large, so the
 * program's allocations go elsewhere (another allocator, another copy). */
static int idle_allocator(char *buf, size_t size, const struct fk_je_copy *c)
{
	struct fk_arena_mem host;

	if (fk_je_idle(buf, size))
		return 1;
	long pages = 0, rss = 0;
	FILE *f = fopen("/proc/self/statm", "re");

	if (f) {
		if (fscanf(f, "%ld %ld", &pages, &rss) != 2)
			rss = 0;
		fclose(f);
	}
	uint64_t rss_bytes = (uint64_t)(rss > 0 ? rss : 0) * (uint64_t)sysconf(_SC_PAGESIZE);
	/* The program's bytes: the hook's own (its arena) would hide an idle
	 * allocator. */
	fk_arena_split(&host, NULL);
	uint64_t held = host.allocated > 0 ? (uint64_t)host.allocated : 0;
	if (held == 0 || held >= FK_HOOK_IDLE_HELD || rss_bytes < FK_HOOK_IDLE_RSS)
		return 0;
	snprintf(buf, size, "the jemalloc served (%s in %s) holds only %llu bytes while the "
		 "process's RSS is %llu bytes: the program seems to allocate through "
		 "another allocator; its profiles will be nearly empty (set FLAMEKIT_MALLCTL "
		 "to the right mallctl)", c->symbol, c->module, (unsigned long long)held,
		 (unsigned long long)rss_bytes);
	return 1;
}

/* ",\"KEY\":N" or ",\"KEY\":null" for v < 0; first: no comma. */
static void json_num(FILE *f, const char *key, int64_t v, int first)
{
	if (v >= 0)
		fprintf(f, "%s\"%s\":%lld", first ? "" : ",", key, (long long)v);
	else
		fprintf(f, "%s\"%s\":null", first ? "" : ",", key);
}

/* The memory figures: the program's (jemalloc's less the hook's arena),
 * the hook's own, and what sampling itself costs. */
static void memory_json(FILE *f)
{
	struct fk_arena_mem host, hook;
	int ind = fk_arena_split(&host, &hook);
	int exact = fk_sampling_exact();
	int64_t samp = exact ? fk_sampling_cost() : fk_snap_sampling();
	char why[1024];

	fputs(",\"memory\":{", f);
	json_num(f, "allocated", host.allocated, 1);
	json_num(f, "active", host.active, 0);
	json_num(f, "resident", host.resident, 0);
	json_num(f, "mapped", host.mapped, 0);
	json_num(f, "retained", host.retained, 0);
	json_num(f, "metadata", host.metadata, 0);
	fputs("},\"hook_memory\":{", f);
	json_num(f, "arena", ind, 1);
	json_num(f, "allocated", hook.allocated, 0);
	json_num(f, "active", hook.active, 0);
	json_num(f, "resident", hook.resident, 0);
	fk_arena_why(why, sizeof why);
	if (ind < 0 && why[0]) {
		fputs(",\"note\":", f);
		fk_enc_json_str(f, why);
	}
	fputs("},\"sampling_memory\":{", f);
	json_num(f, "allocated", samp, 1);
	fprintf(f, ",\"from\":%s}", samp < 0 ? "null" : exact ? "\"prof_stats\"" :
		"\"last snapshot\"");
}

/* The record of recent allocations (hook_recent.c): its bound, what it
 * holds and since when, and whether older ones were dropped. */
static void lifetimes_json(FILE *f)
{
	struct fk_recent_stats st;
	int ok = fk_recent_stats(&st) == 0;

	fputs(",\"lifetimes\":{", f);
	json_num(f, "max", st.max, 1);
	if (!ok) {
		fputs(",\"records\":null,\"oldest_seconds\":null,\"dropped\":null,\"problem\":", f);
		fk_enc_json_str(f, st.why[0] ? st.why : "jemalloc cannot profile");
		fputc('}', f);
		return;
	}
	fprintf(f, ",\"records\":%llu,\"oldest_seconds\":", (unsigned long long)st.records);
	if (st.oldest_s >= 0)
		fprintf(f, "%.3f", st.oldest_s);
	else
		fputs("null", f);
	fprintf(f, ",\"counted_seconds_ago\":%.3f,\"dropped\":", st.as_of_s);
	if (st.full) {
		char msg[200];

		snprintf(msg, sizeof msg, "the list is full: it holds the last %ld sampled "
			 "allocations, and each new one drops the oldest", st.max);
		fk_enc_json_str(f, msg);
	} else {
		fputs("null", f);
	}
	fputc('}', f);
}

static void settings_json(struct fk_reply *r)
{
	const char *why = "", *note = "";
	enum fk_je_avail av = fk_je_check(&why);
	int active = 0, lg = fk_je_lg_sample(), found;
	double since = fk_state_active_since();
	struct fk_je_copy cp;
	struct fk_symcache_stats cs;
	struct fk_memo_stats ms;
	size_t ncopies = 0;
	char idle[1024];
	FILE *f;

	found = fk_je_chosen(&cp, &ncopies, &note) == 0;
	if (av == FK_JE_OK && fk_je_get_active(&active, NULL) < 0)
		active = 0;
	if (!(f = fk_reply_open(r, "application/json")))
		return;
	fprintf(f, "{\"enabled\":%s,", active ? "true" : "false");
	fprintf(f, "\"pid\":%ld,\"listener_pid\":", (long)getpid());
	if (fk_group_listener() > 0)
		fprintf(f, "%ld,", (long)fk_group_listener());
	else
		fputs("null,", f);
	if (lg >= 0)
		fprintf(f, "\"lg_sample\":%d,", lg);
	else
		fputs("\"lg_sample\":null,", f);
	fprintf(f, "\"jemalloc\":%s,\"mallctl\":", found ? "true" : "false");
	if (found) {
		fk_enc_json_str(f, cp.symbol);
		fputs(",\"mallctl_module\":", f);
		fk_enc_json_str(f, cp.module);
		fputs(",\"mallctl_source\":", f);
		fk_enc_json_str(f, cp.source);
		fputs(",\"jemalloc_version\":", f);
		fk_enc_json_str(f, cp.version);
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
	fprintf(f, "\"sampled\":%s,", av == FK_JE_OK && fk_state_sampled() ? "true" : "false");
	fprintf(f, "\"prof_accum\":%s,", fk_je_prof_accum() ? "true" : "false");
	fputs("\"unwinder\":", f);
	fk_enc_json_str(f, fk_unwind_name());
	fputc(',', f);
	fprintf(f, "\"max_samples\":%zu,", fk_env_get()->max_samples);
	fprintf(f, "\"windows_open\":%u,", fk_serve_windows());
	size_t nsnap, snapbytes;
	fk_snap_stats(&nsnap, &snapbytes);
	fprintf(f, "\"snapshots\":%zu,\"snapshot_bytes\":%zu,\"timeline_bytes\":%zu,"
		"\"snapshot_budget\":%zu,\"snapshot_seconds\":%g,", nsnap, snapbytes,
		fk_snap_timeline_bytes(), fk_env_get()->snapshot_bytes,
		fk_env_get()->snapshot_s);
	fprintf(f, "\"dumps_served\":%lu", fk_state_dumps());
	fk_serve_cache_stats(&cs);
	fprintf(f, ",\"cache_modules\":%zu,\"cache_bytes\":%zu,\"cache_hits\":%llu,"
		"\"cache_misses\":%llu", cs.modules, cs.bytes, (unsigned long long)cs.hits,
		(unsigned long long)cs.misses);
	fk_je_lock();
	fk_memo_stats(&ms);
	fk_je_unlock();
	fprintf(f, ",\"memo_stacks\":%zu,\"memo_bytes\":%zu,\"memo_hits\":%llu,"
		"\"memo_misses\":%llu", ms.stacks, ms.bytes, (unsigned long long)ms.hits,
		(unsigned long long)ms.misses);
	memory_json(f);
	lifetimes_json(f);
	if (av != FK_JE_OK) {
		fputs(",\"problem\":", f);
		fk_enc_json_str(f, why);
	} else if ((found && idle_allocator(idle, sizeof idle, &cp)) ||
		   fk_je_bt_problem(idle, sizeof idle)) {
		fputs(",\"problem\":", f);
		fk_enc_json_str(f, idle);
	}
	if (note[0]) {
		fputs(",\"warning\":", f);
		fk_enc_json_str(f, note);
	}
	if (av == FK_JE_OK && !fk_je_prof_accum()) {
		char acc[800];

		snprintf(acc, sizeof acc, "/debug/pprof/allocs has %s", fk_je_no_accum());
		fputs(",\"allocs\":", f);
		fk_enc_json_str(f, acc);
	}
	fputs("}\n", f);
	fk_reply_close(r, f);
}

void fk_settings_get(const struct fk_request *rq, const struct fk_req *q, struct fk_reply *r)
{
	(void)rq;
	if (fk_req_has(q, FK_ARG_ENABLED) || fk_req_has(q, FK_ARG_LG_SAMPLE)) {
		fk_reply_error(r, 405, "settings change only through POST");
		return;
	}
	settings_json(r);
}

/* Whether a reset (a lg_sample change: prof.reset) may run now: a bucket
 * of FK_HOOK_RESET_BURST, one back every FK_HOOK_RESET_S seconds. Each
 * reset leaves jemalloc's profiling metadata a little larger for good
 * (with prof_accum: 44 -> 177 MB of host RSS over 3000 of them), so their
 * rate bounds that growth. 1, or 0 with *wait the seconds until the next. */
static struct {
	pthread_mutex_t mu;
	double tokens;             /* the bucket */
	double last;               /* when it was last filled; -1 never */
} rl = { .mu = PTHREAD_MUTEX_INITIALIZER, .tokens = FK_HOOK_RESET_BURST, .last = -1 };

static int reset_allowed(double *wait)
{
	double now = fk_now();
	int ok;

	pthread_mutex_lock(&rl.mu);
	if (rl.last >= 0) {
		rl.tokens += (now - rl.last) / FK_HOOK_RESET_S;
		if (rl.tokens > FK_HOOK_RESET_BURST)
			rl.tokens = FK_HOOK_RESET_BURST;
	}
	rl.last = now;
	ok = rl.tokens >= 1;
	if (ok)
		rl.tokens -= 1;
	*wait = ok ? 0 : (1 - rl.tokens) * FK_HOOK_RESET_S;
	pthread_mutex_unlock(&rl.mu);
	return ok;
}

void fk_routes_atfork_child(void)
{
	/* The parent's hook thread may have held it at the fork. */
	pthread_mutex_init(&rl.mu, NULL);
}

void fk_settings_post(const struct fk_request *rq, const struct fk_req *q, struct fk_reply *r)
{
	struct fk_err err;
	int on = fk_req_has(q, FK_ARG_ENABLED) ? q->enabled : -1;
	int lg = fk_req_has(q, FK_ARG_LG_SAMPLE) ? q->lg_sample : -1, cur;

	(void)rq;
	if (on < 0 && lg < 0) {
		fk_reply_error(r, 400, "nothing to change: give enabled=true|false and/or lg_sample=N");
		return;
	}
	if (fk_settings_unavailable(r))
		return;
	double wait;
	if (lg >= 0 && !reset_allowed(&wait)) {
		fk_reply_error(r, 429, "too many lg_sample changes: each resets the profile "
			       "(prof.reset) and leaves jemalloc's metadata larger for good, so "
			       "%d may come at once and then one every %d s; try again in %.0f s",
			       FK_HOOK_RESET_BURST, FK_HOOK_RESET_S, wait + 0.5);
		return;
	}
	fk_err_init(&err, NULL);
	if (on < 0) {
		if (fk_je_get_active(&cur, &err) < 0) {
			fk_reply_error(r, 500, "%s", err.msg);
			return;
		}
		on = cur;
	}
	if (fk_je_set_active(on, lg, &err) < 0) {
		fk_reply_error(r, 500, "%s", err.msg);
		return;
	}
	fk_state_note_active(on, lg >= 0);
	fk_state_save(on, lg);
	/* Off for good, as far as the hook knows: the modules' files go. */
	if (!on)
		fk_serve_cache_drop();
	settings_json(r);
}
