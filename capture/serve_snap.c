/* SPDX-License-Identifier: MIT */
/* The hook's snapshots of the heap over time (libflamekit-hook(3),
 * "Snapshots"): a bounded ring, taken on the hook's thread while sampling
 * is active, every FLAMEKIT_SNAPSHOT_S seconds, when jemalloc's
 * stats.allocated passes its previous maximum by FK_SNAP_PEAK_STEP, and on
 * request. A snapshot keeps its stacks' in-use counts and jemalloc's and
 * the process's memory figures; stacks (address arrays) and maps texts are
 * shared between snapshots. Full (FLAMEKIT_SNAPSHOT_MB), the ring thins
 * where snapshots are densest in time, keeping the first, the newest and
 * the peak. Serving them is serve_timeline.c's. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "grow.h"
#include "hash.h"
#include "serve_int.h"
#include "input.h"
#include "serve_ring.h"
#include "series.h"
#include "strtab.h"
#include "u64map.h"
#include "waste.h"

struct fk_ring fk_ring = { .lock = PTHREAD_MUTEX_INITIALIZER, .next_id = 1 };


static int64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The stack id of addrs[0..depth), added when new; UINT32_MAX when out of
 * memory. */
static uint32_t intern_stack(const uint64_t *addrs, uint32_t depth)
{
	uint64_t h = fk_hash_long(addrs, depth * sizeof *addrs);
	uint32_t id = fk_u64map_get(&fk_ring.byhash, h), head = id;

	for (; id != UINT32_MAX; id = fk_ring.stk[id].next)
		if (fk_ring.stk[id].depth == depth &&
		    (depth == 0 || memcmp(fk_ring.stk[id].addrs, addrs, depth * sizeof *addrs) == 0))
			return id;
	struct stk *nv = fk_grow(fk_ring.stk, &fk_ring.capstk, fk_ring.nstk, sizeof *nv, 4096);

	if (!nv)
		return UINT32_MAX;
	fk_ring.stk = nv;
	struct stk *s = &fk_ring.stk[fk_ring.nstk];
	s->addrs = malloc((depth ? depth : 1) * sizeof *addrs);
	if (!s->addrs || fk_u64map_put(&fk_ring.byhash, h, (uint32_t)fk_ring.nstk) < 0) {
		free(s->addrs);
		return UINT32_MAX;
	}
	if (depth)
		memcpy(s->addrs, addrs, depth * sizeof *addrs);
	s->depth = depth;
	s->next = head;
	fk_ring.bytes += depth * sizeof *addrs + sizeof *s + 24;
	return (uint32_t)fk_ring.nstk++;
}

/* A hash of the lines of maps text[0..len) that map a file (or the vdso):
 * what naming a stack reads of them. Maps of two times that differ only
 * in anonymous memory name every stack alike; a library unloaded and
 * another loaded at its address, or a file replaced (another inode),
 * change it. */
static uint64_t modules_sig(const char *text, size_t len)
{
	const char *s = text, *end = text + len;
	uint64_t h = 0x9e3779b97f4a7c15u;

	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *e = nl ? nl : end, *f = s;

		/* The path is the sixth field. */
		for (int k = 0; k < 5 && f < e; k++) {
			while (f < e && *f != ' ')
				f++;
			while (f < e && *f == ' ')
				f++;
		}
		if (f < e && (*f == '/' || (e - f >= 2 && f[0] == '[' && f[1] == 'v')))
			h = (h ^ fk_hash(s, (size_t)(e - s))) * 0x100000001b3u;
		s = nl ? nl + 1 : end;
	}
	return h;
}

static uint32_t intern_maps(const char *text, size_t len)
{
	for (size_t i = fk_ring.nmaps; i-- > 0;)
		if (fk_ring.maps[i].len == len && memcmp(fk_ring.maps[i].text, text, len) == 0) {
			fk_ring.maps[i].refs++;
			return (uint32_t)i;
		}
	struct mapstext *nv = fk_grow(fk_ring.maps, &fk_ring.capmaps, fk_ring.nmaps, sizeof *nv, 4);
	char *t = malloc(len ? len : 1);

	if (!nv || !t) {
		if (nv)
			fk_ring.maps = nv;
		free(t);
		return UINT32_MAX;
	}
	fk_ring.maps = nv;
	memcpy(t, text, len);
	fk_ring.maps[fk_ring.nmaps] = (struct mapstext){ t, len, 1, modules_sig(text, len) };
	fk_ring.bytes += len;
	return (uint32_t)fk_ring.nmaps++;
}

static size_t snap_bytes(const struct snap *s)
{
	return sizeof *s + s->n * (sizeof *s->stk + sizeof *s->objs + sizeof *s->bytes);
}

static void snap_free(struct snap *s)
{
	fk_ring.bytes -= snap_bytes(s);
	fk_ring.maps[s->maps].refs--;
	free(s->stk);
	free(s->objs);
	free(s->bytes);
}

/* Rebuilds the stack and maps tables from the snapshots left, so that
 * what no snapshot uses any more is freed. */
static void compact(void)
{
	struct stk *old = fk_ring.stk;
	size_t nold = fk_ring.nstk;
	uint32_t *remap = malloc((nold ? nold : 1) * sizeof *remap);

	if (!remap)
		return;
	for (size_t i = 0; i < nold; i++)
		remap[i] = UINT32_MAX;
	fk_ring.stk = NULL;
	fk_ring.nstk = fk_ring.capstk = 0;
	fk_u64map_release(&fk_ring.byhash);
	fk_u64map_init(&fk_ring.byhash);
	fk_ring.bytes = 0;
	for (size_t k = 0; k < fk_ring.n; k++) {
		struct snap *s = &fk_ring.v[k];

		fk_ring.bytes += snap_bytes(s);
		for (size_t j = 0; j < s->n; j++) {
			uint32_t o = s->stk[j];

			if (remap[o] == UINT32_MAX)
				remap[o] = intern_stack(old[o].addrs, old[o].depth);
			s->stk[j] = remap[o];
		}
	}
	for (size_t i = 0; i < nold; i++)
		free(old[i].addrs);
	free(old);
	free(remap);
	/* Maps texts no snapshot refers to. */
	for (size_t i = 0; i < fk_ring.nmaps; i++)
		if (fk_ring.maps[i].refs == 0) {
			free(fk_ring.maps[i].text);
			fk_ring.maps[i].text = NULL;
			fk_ring.maps[i].len = 0;
		} else {
			fk_ring.bytes += fk_ring.maps[i].len;
		}
}

size_t fk_snap_peak(void)
{
	size_t best = 0;

	for (size_t k = 1; k < fk_ring.n; k++) {
		const struct snap *a = &fk_ring.v[k], *b = &fk_ring.v[best];
		int64_t x = a->stat[FK_SER_ALLOCATED], y = b->stat[FK_SER_ALLOCATED];

		if (x >= 0 && y >= 0 ? x > y : a->total > b->total)
			best = k;
	}
	return best;
}

/* Drops one snapshot: where the ring is densest in time (the smallest
 * span between a snapshot's neighbours), never the first or the peak
 * while others are left, and never the newest: the one just taken is
 * what a request asked for. */
static void thin_one(void)
{
	size_t peak = fk_snap_peak(), drop = SIZE_MAX;
	int64_t best = INT64_MAX;

	for (size_t k = 1; k + 1 < fk_ring.n; k++) {
		int64_t span = fk_ring.v[k + 1].time_ns - fk_ring.v[k - 1].time_ns;

		if (k != peak && span < best) {
			best = span;
			drop = k;
		}
	}
	/* No middle one to drop (two left, or three with the peak between):
	 * the oldest goes, even when it is the peak. */
	if (drop == SIZE_MAX)
		drop = 0;
	snap_free(&fk_ring.v[drop]);
	memmove(&fk_ring.v[drop], &fk_ring.v[drop + 1], (fk_ring.n - drop - 1) * sizeof *fk_ring.v);
	fk_ring.n--;
}

/* What serving the timeline of the ring takes beyond the ring itself: a
 * cell for each stack and snapshot (FK_HOOK_TIMELINE_CELL bytes). */
static size_t timeline_cost(void)
{
	return fk_ring.nstk * fk_ring.n * FK_HOOK_TIMELINE_CELL;
}

/* Whether the ring and the timeline served from it pass the budget. */
static int over_budget(void)
{
	return fk_ring.bytes + timeline_cost() > fk_env_get()->snapshot_bytes;
}

static void thin(void)
{
	int dropped = 0;

	while (fk_ring.n > 1 && (over_budget() || fk_ring.n > FK_HOOK_MAX_SNAPSHOTS)) {
		thin_one();
		dropped = 1;
		if (over_budget()) {
			compact();
			dropped = 0;
		}
	}
	if (dropped)
		compact();
}

/* Fills s's figures: jemalloc's less the hook's own arena (the program's
 * memory), the arena's (the hook's resident bytes as the series' "hook"),
 * what sampling costs (exact with prof_stats, else estimated from s's
 * counts), and RSS's parts past the live objects (core/waste.h, from the
 * statistics GET /internal/heap/waste reads, the large classes left out).
 * Under fk_je_lock. */
static void figures(struct snap *s)
{
	struct fk_arena_mem host, hook;
	struct fk_jestats st;
	struct fk_waste_proc pr = { .rss = -1, .file_rss = -1, .hook_resident = -1 };
	struct fk_waste w;
	struct fk_err err;
	static const int part[] = {
		FK_PART_TCACHE, FK_PART_HOLES, FK_PART_TAILS, FK_PART_LARGE_PAD, FK_PART_DIRTY,
		FK_PART_MUZZY, FK_PART_METADATA, FK_PART_FILES
	};

	/* The estimate first: the program's allocated adds what it finds
	 * jemalloc 5.3.1 leaves out (fk_arena_split). */
	if (fk_sampling_exact()) {
		s->stat[FK_SER_SAMPLING] = fk_sampling_cost();
		s->sampling_how = "prof_stats";
	} else {
		s->stat[FK_SER_SAMPLING] = fk_sampling_estimate(s->objs, s->bytes, s->n);
		s->sampling_how = "estimate";
	}
	if (s->stat[FK_SER_SAMPLING] < 0)
		s->sampling_how = NULL;
	fk_err_init(&err, NULL);
	fk_jestats_init(&st);
	for (int i = FK_SER_TCACHE; i < FK_SER_NSTATS; i++)
		s->stat[i] = -1;
	/* Out of memory, the totals and RSS are still read; without
	 * statistics (config.stats false) no part is known. */
	if (fk_waste_stats(&st, &pr, &host, &hook, 0, &err) == 0 && st.stats &&
	    fk_waste_compute(&w, &st, NULL, &pr, &err) == 0) {
		int64_t sum = 0;

		for (size_t i = 0; i < sizeof part / sizeof *part; i++) {
			s->stat[FK_SER_TCACHE + i] = w.part[part[i]];
			if (part[i] != FK_PART_FILES && w.part[part[i]] > 0)
				sum += w.part[part[i]];
		}
		s->stat[FK_SER_WASTE] = sum;
		fk_waste_release(&w);
	}
	fk_jestats_release(&st);
	s->stat[FK_SER_ALLOCATED] = host.allocated;
	s->stat[FK_SER_ACTIVE] = host.active;
	s->stat[FK_SER_RESIDENT] = host.resident;
	s->stat[FK_SER_MAPPED] = host.mapped;
	s->stat[FK_SER_RETAINED] = host.retained;
	s->stat[FK_SER_METADATA] = host.metadata;
	s->stat[FK_SER_RSS] = pr.rss;
	s->stat[FK_SER_HOOK] = hook.resident;
	s->hook_mem[0] = hook.allocated;
	s->hook_mem[1] = hook.active;
	s->hook_mem[2] = hook.resident;
}

/* Stores profile p (parsed from a dump whose maps are maps_text) as a new
 * snapshot. 0, or -1 with err. */
static int store(const struct fk_profile *p, const char *why, struct fk_err *err)
{
	struct snap s;

	memset(&s, 0, sizeof s);
	s.n = p->nstacks;
	s.stk = malloc((s.n ? s.n : 1) * sizeof *s.stk);
	s.objs = malloc((s.n ? s.n : 1) * sizeof *s.objs);
	s.bytes = malloc((s.n ? s.n : 1) * sizeof *s.bytes);
	struct snap *nv = fk_grow(fk_ring.v, &fk_ring.capv, fk_ring.n, sizeof *nv, 8);
	if (nv)
		fk_ring.v = nv;
	if (!s.stk || !s.objs || !s.bytes || !nv)
		goto oom;
	s.maps = intern_maps(p->maps_text, p->maps_len);
	if (s.maps == UINT32_MAX)
		goto oom;
	for (size_t i = 0; i < s.n; i++) {
		const struct fk_stack *st = &p->stacks[i];
		struct fk_values v = fk_unbias(p, &st->c);

		s.stk[i] = intern_stack(st->addrs, st->depth);
		if (s.stk[i] == UINT32_MAX) {
			fk_ring.maps[s.maps].refs--;
			goto oom;
		}
		s.objs[i] = st->c.objs;
		s.bytes[i] = st->c.bytes;
		s.total += v.bytes;
	}
	s.id = fk_ring.next_id++;
	s.time_ns = realtime_ns();
	s.period = p->period;
	s.why = why;
	figures(&s);
	if (s.stat[FK_SER_ALLOCATED] > fk_ring.max_allocated)
		fk_ring.max_allocated = s.stat[FK_SER_ALLOCATED];
	fk_ring.v[fk_ring.n++] = s;
	fk_ring.bytes += snap_bytes(&s);
	thin();
	return 0;
oom:
	free(s.stk);
	free(s.objs);
	free(s.bytes);
	return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
}

int fk_snap_take(const char *why, uint32_t *id, struct fk_err *err)
{
	char *raw;
	size_t rlen, rmap;
	int rc;

	fk_je_lock();
	rc = fk_serve_dump(&raw, &rlen, &rmap, err);
	if (rc == 0) {
		struct fk_profile *p = fk_profile_new("snapshot");

		if (!p)
			rc = fk_err_set(err, FK_ENOMEM, 0, "out of memory");
		else if ((rc = fk_profile_parse(p, raw, rlen, err)) == 0) {
			pthread_mutex_lock(&fk_ring.lock);
			uint32_t taken = fk_ring.next_id;    /* store() numbers it so */

			rc = store(p, why, err);
			if (rc == 0 && id)
				*id = taken;
			pthread_mutex_unlock(&fk_ring.lock);
		}
		fk_profile_free(p);
		fk_hook_buf_release(raw, rmap);
	}
	fk_je_unlock();
	return rc;
}

/* ---- the timer, on the hook's thread ---- */

/* Re-arms the timer when sampling was turned on anew; false while
 * sampling is off (nothing to snapshot, and the thread sleeps). */
static int armed(double now)
{
	double since = fk_state_active_since();

	/* Sampling turned on by MALLOC_CONF is noted when first looked at. */
	if (since < 0 && fk_state_sampled())
		since = fk_state_active_since();
	if (since < 0)
		return 0;
	if (since != fk_ring.armed_since) {
		fk_ring.armed_since = since;
		fk_ring.next_due = since + fk_env_get()->snapshot_s;
		fk_ring.next_poll = now;
	}
	return 1;
}

int fk_snap_timeout_ms(void)
{
	double now = fk_now(), due;

	if (!armed(now))
		return -1;
	due = fk_ring.next_poll;
	if (fk_env_get()->snapshot_s > 0 && fk_ring.next_due < due)
		due = fk_ring.next_due;
	return due <= now ? 0 : (int)((due - now) * 1000) + 1;
}

/* The timer's failures on stderr, rate-limited: a failure that repeats
 * (a host at its descriptor limit fails every poll, four times a second)
 * is told once, then counted; the count is told when snapshots work
 * again, when the failure changes, or every FK_HOOK_TELL_S seconds.
 * msg is the failure, or NULL for a snapshot taken. The hook's thread
 * only. */
static void tell(const char *msg, double now)
{
	static struct {
		char last[sizeof ((struct fk_err *)0)->msg];
		unsigned long repeats;
		double told;
	} t;

	if (msg && t.last[0] && strcmp(msg, t.last) == 0) {
		t.repeats++;
		if (now - t.told < FK_HOOK_TELL_S)
			return;
		fk_log("snapshot: failed %lu more times in %.0f s: %s",
			t.repeats, now - t.told, msg);
		t.repeats = 0;
		t.told = now;
		return;
	}
	if (t.last[0] && t.repeats)
		fk_log("snapshot: failed %lu more times: %s", t.repeats, t.last);
	if (msg) {
		fk_log("snapshot: %s", msg);
		snprintf(t.last, sizeof t.last, "%s", msg);
		t.told = now;
	} else {
		t.last[0] = 0;
	}
	t.repeats = 0;
}

void fk_snap_tick(void)
{
	double now = fk_now();
	struct fk_err err;
	const char *why = NULL;

	if (!armed(now))
		return;
	if (fk_env_get()->snapshot_s > 0 && now >= fk_ring.next_due) {
		why = "interval";
		fk_ring.next_due = now + fk_env_get()->snapshot_s;
	}
	if (now >= fk_ring.next_poll) {
		struct fk_arena_mem host;
		int64_t a;

		/* The program's bytes: the hook's own work never makes a peak. */
		fk_arena_split(&host, NULL);
		a = host.allocated;
		fk_ring.next_poll = now + FK_HOOK_PEAK_POLL_MS / 1000.0;
		pthread_mutex_lock(&fk_ring.lock);
		if (fk_ring.max_allocated <= 0)
			fk_ring.max_allocated = a;    /* the level when sampling started */
		else if (!why && (double)a > (double)fk_ring.max_allocated * (1 + FK_HOOK_PEAK_STEP))
			why = "peak";
		pthread_mutex_unlock(&fk_ring.lock);
	}
	if (!why)
		return;
	fk_err_init(&err, NULL);
	tell(fk_snap_take(why, NULL, &err) < 0 ? err.msg : NULL, now);
}

/* ---- what the ring holds ---- */

size_t fk_snap_timeline_bytes(void)
{
	size_t b;

	pthread_mutex_lock(&fk_ring.lock);
	b = timeline_cost();
	pthread_mutex_unlock(&fk_ring.lock);
	return b;
}

void fk_snap_stats(size_t *n, size_t *bytes)
{
	pthread_mutex_lock(&fk_ring.lock);
	*n = fk_ring.n;
	*bytes = fk_ring.bytes;
	pthread_mutex_unlock(&fk_ring.lock);
}

int64_t fk_snap_sampling(void)
{
	int64_t v;

	pthread_mutex_lock(&fk_ring.lock);
	v = fk_ring.n ? fk_ring.v[fk_ring.n - 1].stat[FK_SER_SAMPLING] : -1;
	pthread_mutex_unlock(&fk_ring.lock);
	return v;
}

void fk_snap_release(void)
{
	pthread_mutex_lock(&fk_ring.lock);
	for (size_t k = 0; k < fk_ring.n; k++)
		snap_free(&fk_ring.v[k]);
	free(fk_ring.v);
	fk_ring.v = NULL;
	fk_ring.n = fk_ring.capv = 0;
	for (size_t i = 0; i < fk_ring.nstk; i++)
		free(fk_ring.stk[i].addrs);
	free(fk_ring.stk);
	fk_ring.stk = NULL;
	fk_ring.nstk = fk_ring.capstk = 0;
	fk_u64map_release(&fk_ring.byhash);
	for (size_t i = 0; i < fk_ring.nmaps; i++)
		free(fk_ring.maps[i].text);
	free(fk_ring.maps);
	fk_ring.maps = NULL;
	fk_ring.nmaps = fk_ring.capmaps = 0;
	fk_ring.bytes = 0;
	fk_ring.max_allocated = 0;
	pthread_mutex_unlock(&fk_ring.lock);
}

void fk_snap_atfork_child(void)
{
	/* The parent's thread may have held the lock mid-change: the child's
	 * ring starts empty (the parent's stays, unread, copy-on-write). */
	memset(&fk_ring, 0, sizeof fk_ring);
	pthread_mutex_init(&fk_ring.lock, NULL);
	fk_ring.next_id = 1;
}
