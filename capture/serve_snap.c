/* SPDX-License-Identifier: MIT */
/* The hook's snapshots of the heap over time (libflamekit-hook(3),
 * "Snapshots"): a bounded ring, taken on the hook's thread while sampling
 * is active, every FLAMEKIT_SNAPSHOT_S seconds, when jemalloc's
 * stats.allocated passes its previous maximum by FK_SNAP_PEAK_STEP, and on
 * request. A snapshot keeps its stacks' in-use counts and jemalloc's and
 * the process's memory figures; stacks (address arrays) and maps texts are
 * shared between snapshots. Full (FLAMEKIT_SNAPSHOT_MB), the ring thins
 * where snapshots are densest in time, keeping the first, the newest and
 * the peak. A snapshot becomes a profile again (fk_snap_profile) to be
 * served in every format, and the ring a series (fk_snap_series). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "diff.h"
#include "grow.h"
#include "hash.h"
#include "serve_int.h"
#include "input.h"
#include "maps.h"
#include "series.h"
#include "strtab.h"
#include "u64map.h"
#include "waste.h"

/* A stack the ring holds: its addresses, as in a dump (leaf first). */
struct stk {
	uint64_t *addrs;
	uint32_t depth;
	uint32_t next;                 /* next stack with the same hash, or UINT32_MAX */
};

struct snap {
	uint32_t id;                   /* 1, 2, ...: never reused */
	int64_t time_ns;               /* CLOCK_REALTIME */
	int64_t stat[FK_SER_NSTATS];   /* -1 unknown */
	uint64_t period;
	uint32_t maps;                 /* index into ring.maps */
	size_t n;
	uint32_t *stk;                 /* stack ids */
	int64_t *objs, *bytes;         /* raw in-use counts, as dumped */
	double total;                  /* unbiased in-use bytes */
	int64_t hook_mem[3];           /* the hook's arena: allocated, active,
					  resident (-1 unknown) */
	const char *sampling_how;      /* "prof_stats", "estimate" or NULL */
	const char *why;               /* "interval", "peak", "request" (static) */
};

struct mapstext {
	char *text;
	size_t len;
	unsigned refs;
	uint64_t modsig;               /* the modules it maps (modules_sig) */
};

static struct {
	pthread_mutex_t lock;
	struct snap *v;                /* oldest first */
	size_t n, capv;
	uint32_t next_id;
	struct stk *stk;
	size_t nstk, capstk;
	struct fk_u64map byhash;       /* hash of addresses -> first stack */
	struct mapstext *maps;
	size_t nmaps, capmaps;
	size_t bytes;                  /* what the ring holds, counted below */
	double next_due;               /* fk_now() of the next interval snapshot */
	double next_poll;
	int64_t max_allocated;         /* the highest stats.allocated of a snapshot */
	double armed_since;            /* fk_state_active_since() the timer follows */
} ring = { .lock = PTHREAD_MUTEX_INITIALIZER, .next_id = 1 };

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
	uint32_t id = fk_u64map_get(&ring.byhash, h), head = id;

	for (; id != UINT32_MAX; id = ring.stk[id].next)
		if (ring.stk[id].depth == depth &&
		    (depth == 0 || memcmp(ring.stk[id].addrs, addrs, depth * sizeof *addrs) == 0))
			return id;
	struct stk *nv = fk_grow(ring.stk, &ring.capstk, ring.nstk, sizeof *nv, 4096);

	if (!nv)
		return UINT32_MAX;
	ring.stk = nv;
	struct stk *s = &ring.stk[ring.nstk];
	s->addrs = malloc((depth ? depth : 1) * sizeof *addrs);
	if (!s->addrs || fk_u64map_put(&ring.byhash, h, (uint32_t)ring.nstk) < 0) {
		free(s->addrs);
		return UINT32_MAX;
	}
	if (depth)
		memcpy(s->addrs, addrs, depth * sizeof *addrs);
	s->depth = depth;
	s->next = head;
	ring.bytes += depth * sizeof *addrs + sizeof *s + 24;
	return (uint32_t)ring.nstk++;
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
	for (size_t i = ring.nmaps; i-- > 0;)
		if (ring.maps[i].len == len && memcmp(ring.maps[i].text, text, len) == 0) {
			ring.maps[i].refs++;
			return (uint32_t)i;
		}
	struct mapstext *nv = fk_grow(ring.maps, &ring.capmaps, ring.nmaps, sizeof *nv, 4);
	char *t = malloc(len ? len : 1);

	if (!nv || !t) {
		if (nv)
			ring.maps = nv;
		free(t);
		return UINT32_MAX;
	}
	ring.maps = nv;
	memcpy(t, text, len);
	ring.maps[ring.nmaps] = (struct mapstext){ t, len, 1, modules_sig(text, len) };
	ring.bytes += len;
	return (uint32_t)ring.nmaps++;
}

static size_t snap_bytes(const struct snap *s)
{
	return sizeof *s + s->n * (sizeof *s->stk + sizeof *s->objs + sizeof *s->bytes);
}

static void snap_free(struct snap *s)
{
	ring.bytes -= snap_bytes(s);
	ring.maps[s->maps].refs--;
	free(s->stk);
	free(s->objs);
	free(s->bytes);
}

/* Rebuilds the stack and maps tables from the snapshots left, so that
 * what no snapshot uses any more is freed. */
static void compact(void)
{
	struct stk *old = ring.stk;
	size_t nold = ring.nstk;
	uint32_t *remap = malloc((nold ? nold : 1) * sizeof *remap);

	if (!remap)
		return;
	for (size_t i = 0; i < nold; i++)
		remap[i] = UINT32_MAX;
	ring.stk = NULL;
	ring.nstk = ring.capstk = 0;
	fk_u64map_release(&ring.byhash);
	fk_u64map_init(&ring.byhash);
	ring.bytes = 0;
	for (size_t k = 0; k < ring.n; k++) {
		struct snap *s = &ring.v[k];

		ring.bytes += snap_bytes(s);
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
	for (size_t i = 0; i < ring.nmaps; i++)
		if (ring.maps[i].refs == 0) {
			free(ring.maps[i].text);
			ring.maps[i].text = NULL;
			ring.maps[i].len = 0;
		} else {
			ring.bytes += ring.maps[i].len;
		}
}

/* The snapshot that is the peak: the highest stats.allocated, else the
 * highest sampled heap. */
static size_t peak_index(void)
{
	size_t best = 0;

	for (size_t k = 1; k < ring.n; k++) {
		const struct snap *a = &ring.v[k], *b = &ring.v[best];
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
	size_t peak = peak_index(), drop = SIZE_MAX;
	int64_t best = INT64_MAX;

	for (size_t k = 1; k + 1 < ring.n; k++) {
		int64_t span = ring.v[k + 1].time_ns - ring.v[k - 1].time_ns;

		if (k != peak && span < best) {
			best = span;
			drop = k;
		}
	}
	/* No middle one to drop (two left, or three with the peak between):
	 * the oldest goes, even when it is the peak. */
	if (drop == SIZE_MAX)
		drop = 0;
	snap_free(&ring.v[drop]);
	memmove(&ring.v[drop], &ring.v[drop + 1], (ring.n - drop - 1) * sizeof *ring.v);
	ring.n--;
}

/* What serving the timeline of the ring takes beyond the ring itself: a
 * cell for each stack and snapshot (FK_HOOK_TIMELINE_CELL bytes). */
static size_t timeline_cost(void)
{
	return ring.nstk * ring.n * FK_HOOK_TIMELINE_CELL;
}

/* Whether the ring and the timeline served from it pass the budget. */
static int over_budget(void)
{
	return ring.bytes + timeline_cost() > fk_env_get()->snapshot_bytes;
}

static void thin(void)
{
	int dropped = 0;

	while (ring.n > 1 && (over_budget() || ring.n > FK_HOOK_MAX_SNAPSHOTS)) {
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
	struct snap *nv = fk_grow(ring.v, &ring.capv, ring.n, sizeof *nv, 8);
	if (nv)
		ring.v = nv;
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
			ring.maps[s.maps].refs--;
			goto oom;
		}
		s.objs[i] = st->c.objs;
		s.bytes[i] = st->c.bytes;
		s.total += v.bytes;
	}
	s.id = ring.next_id++;
	s.time_ns = realtime_ns();
	s.period = p->period;
	s.why = why;
	figures(&s);
	if (s.stat[FK_SER_ALLOCATED] > ring.max_allocated)
		ring.max_allocated = s.stat[FK_SER_ALLOCATED];
	ring.v[ring.n++] = s;
	ring.bytes += snap_bytes(&s);
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
			pthread_mutex_lock(&ring.lock);
			uint32_t taken = ring.next_id;    /* store() numbers it so */

			rc = store(p, why, err);
			if (rc == 0 && id)
				*id = taken;
			pthread_mutex_unlock(&ring.lock);
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
	if (since != ring.armed_since) {
		ring.armed_since = since;
		ring.next_due = since + fk_env_get()->snapshot_s;
		ring.next_poll = now;
	}
	return 1;
}

int fk_snap_timeout_ms(void)
{
	double now = fk_now(), due;

	if (!armed(now))
		return -1;
	due = ring.next_poll;
	if (fk_env_get()->snapshot_s > 0 && ring.next_due < due)
		due = ring.next_due;
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
	static char last[sizeof ((struct fk_err *)0)->msg];
	static unsigned long repeats;
	static double told;

	if (msg && last[0] && strcmp(msg, last) == 0) {
		repeats++;
		if (now - told < FK_HOOK_TELL_S)
			return;
		fk_log("snapshot: failed %lu more times in %.0f s: %s",
			repeats, now - told, msg);
		repeats = 0;
		told = now;
		return;
	}
	if (last[0] && repeats)
		fk_log("snapshot: failed %lu more times: %s", repeats, last);
	if (msg) {
		fk_log("snapshot: %s", msg);
		snprintf(last, sizeof last, "%s", msg);
		told = now;
	} else {
		last[0] = 0;
	}
	repeats = 0;
}

void fk_snap_tick(void)
{
	double now = fk_now();
	struct fk_err err;
	const char *why = NULL;

	if (!armed(now))
		return;
	if (fk_env_get()->snapshot_s > 0 && now >= ring.next_due) {
		why = "interval";
		ring.next_due = now + fk_env_get()->snapshot_s;
	}
	if (now >= ring.next_poll) {
		struct fk_arena_mem host;
		int64_t a;

		/* The program's bytes: the hook's own work never makes a peak. */
		fk_arena_split(&host, NULL);
		a = host.allocated;
		ring.next_poll = now + FK_HOOK_PEAK_POLL_MS / 1000.0;
		pthread_mutex_lock(&ring.lock);
		if (ring.max_allocated <= 0)
			ring.max_allocated = a;    /* the level when sampling started */
		else if (!why && (double)a > (double)ring.max_allocated * (1 + FK_HOOK_PEAK_STEP))
			why = "peak";
		pthread_mutex_unlock(&ring.lock);
	}
	if (!why)
		return;
	fk_err_init(&err, NULL);
	tell(fk_snap_take(why, NULL, &err) < 0 ? err.msg : NULL, now);
}

/* ---- reading the ring ---- */

size_t fk_snap_timeline_bytes(void)
{
	size_t b;

	pthread_mutex_lock(&ring.lock);
	b = timeline_cost();
	pthread_mutex_unlock(&ring.lock);
	return b;
}

void fk_snap_stats(size_t *n, size_t *bytes)
{
	pthread_mutex_lock(&ring.lock);
	*n = ring.n;
	*bytes = ring.bytes;
	pthread_mutex_unlock(&ring.lock);
}

static const struct snap *find(uint32_t id)
{
	for (size_t k = 0; k < ring.n; k++)
		if (ring.v[k].id == id)
			return &ring.v[k];
	return NULL;
}

/* A new profile of the stacks of snapshots sel[0..nsel) (all of them, no
 * counts) with the maps of the last; its address arrays are the ring's,
 * so it must be freed before the ring changes (hold fk_snap_lock). */
static struct fk_profile *skeleton(const struct snap *const *sel, size_t nsel,
				   uint32_t **slotp, struct fk_err *err)
{
	struct fk_profile *p = fk_profile_new("snapshot");
	uint32_t *slot = calloc(ring.nstk ? ring.nstk : 1, sizeof *slot);
	size_t n = 0;

	if (!p || !slot)
		goto oom;
	for (size_t k = 0; k < nsel; k++)
		for (size_t j = 0; j < sel[k]->n; j++)
			if (!slot[sel[k]->stk[j]])
				slot[sel[k]->stk[j]] = (uint32_t)++n;
	p->stacks = calloc(n ? n : 1, sizeof *p->stacks);
	if (!p->stacks)
		goto oom;
	for (size_t i = 0; i < ring.nstk; i++) {
		if (!slot[i])
			continue;
		struct fk_stack *s = &p->stacks[slot[i] - 1];

		s->addrs = ring.stk[i].addrs;
		s->depth = ring.stk[i].depth;
	}
	p->nstacks = n;
	p->format = FK_FMT_V2;
	const struct mapstext *m = &ring.maps[sel[nsel - 1]->maps];
	p->maps_text = m->text;
	p->maps_len = m->len;
	if (fk_maps_parse(p, m->text, m->len, 1, err) < 0) {
		free(slot);
		fk_profile_free(p);
		return NULL;
	}
	p->period = sel[nsel - 1]->period;
	*slotp = slot;
	return p;
oom:
	free(slot);
	fk_profile_free(p);
	fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	return NULL;
}

/* Sets the counts of p's stacks to snapshot s's; slot (from skeleton,
 * for a selection holding s) maps the ring's stack ids to p's stacks. */
static void set_counts(struct fk_profile *p, const uint32_t *slot, const struct snap *s)
{
	for (size_t i = 0; i < p->nstacks; i++)
		memset(&p->stacks[i].c, 0, sizeof p->stacks[i].c);
	for (size_t j = 0; j < s->n; j++) {
		struct fk_stack *st = &p->stacks[slot[s->stk[j]] - 1];

		st->c.objs += s->objs[j];
		st->c.bytes += s->bytes[j];
	}
	p->period = s->period;
}

/* Snapshot s alone as a profile. */
static struct fk_profile *one(const struct snap *s, struct fk_err *err)
{
	uint32_t *slot = NULL;
	struct fk_profile *p = skeleton(&s, 1, &slot, err);

	if (p)
		set_counts(p, slot, s);
	free(slot);
	return p;
}

static struct fk_profile *snap_profile(uint32_t id, struct fk_err *err)
{
	const struct snap *s = find(id);

	if (!s) {
		fk_err_set(err, FK_EUNSUPP, 0, "no snapshot %u", id);
		return NULL;
	}
	return one(s, err);
}

/* The growth from snapshot base to cur (a profile) into a new profile. */
static struct fk_profile *growth(const struct snap *base, const struct fk_profile *cur,
				 struct fk_err *err)
{
	struct fk_profile *b = one(base, err), *g = NULL;

	if (b) {
		g = fk_profile_new("growth");
		if (!g)
			fk_err_set(err, FK_ENOMEM, 0, "out of memory");
		else if (fk_profile_diff(g, b, cur, FK_DIFF_GROWTH, err) < 0) {
			fk_profile_free(g);
			g = NULL;
		}
	}
	fk_profile_free(b);
	return g;
}

/* Serves with the ring locked: snapshot id, or the growth from base to
 * snapshot id or to live (a profile of the heap now). */
static int serve_locked(uint32_t id, uint32_t base, const struct fk_profile *live, int fmt,
			const struct fk_serve_opts *o, char **out, size_t *len,
			size_t *maplen, struct fk_err *err)
{
	const struct snap *b = base ? find(base) : NULL, *s = id ? find(id) : NULL;
	struct fk_profile *cur = NULL, *p;
	/* A snapshot's page has every column a snapshot keeps (in-use space
	 * and objects); a growth's, the growth of in-use space (its objects
	 * may shrink). Each at the time of the heap it ends at. */
	struct fk_origin origin = { .time = s ? (double)s->time_ns / 1e9 : 0,
				    .period = s ? s->period : live ? live->period : 0,
				    .sample_type = base ? "inuse_space" : NULL, .columns = !base };
	int rc;

	if (base && !b)
		return fk_err_set(err, FK_EUNSUPP, 0, "no snapshot %u", base);
	if (id && !(cur = snap_profile(id, err)))
		return -1;
	if (!base)
		p = cur;
	else
		p = growth(b, cur ? cur : live, err);
	rc = p ? fk_serve_emit(p, fmt, o, &origin, out, len, maplen, err) : -1;
	if (p != cur)
		fk_profile_free(p);
	fk_profile_free(cur);
	return rc;
}

int fk_snap_serve(uint32_t id, uint32_t base, int fmt, const struct fk_serve_opts *o,
		  char **out, size_t *len, size_t *maplen, struct fk_err *err)
{
	struct fk_profile *live = NULL;
	char *raw = NULL;
	size_t rlen = 0, rmap = 0;
	int rc = 0;

	/* Lock order: the dump's, then the ring's, as fk_snap_take. */
	fk_je_lock();
	if (base && !id) {
		rc = fk_serve_dump(&raw, &rlen, &rmap, err);
		if (rc == 0 && !(live = fk_profile_new("heap")))
			rc = fk_err_set(err, FK_ENOMEM, 0, "out of memory");
		if (rc == 0)
			rc = fk_profile_parse(live, raw, rlen, err);
	}
	if (rc == 0) {
		pthread_mutex_lock(&ring.lock);
		rc = serve_locked(id, base, live, fmt, o, out, len, maplen, err);
		pthread_mutex_unlock(&ring.lock);
	}
	fk_profile_free(live);
	if (raw)
		fk_hook_buf_release(raw, rmap);
	fk_je_unlock();
	return rc;
}

/* The metadata of snapshot s for a series. */
static void meta_of(const struct snap *s, struct fk_snapmeta *m)
{
	char id[24];

	snprintf(id, sizeof id, "s%u", s->id);
	fk_series_meta_init(m, id);
	m->time_ns = s->time_ns;
	memcpy(m->stat, s->stat, sizeof m->stat);
}

/* The snapshots of a series in parts, one per set of modules their maps
 * name (mapstext.modsig): part i's profile names the stacks of its
 * snapshots with their own maps. */
struct series_ctx {
	const struct snap *const *sel;     /* every snapshot, oldest first */
	size_t *part;                      /* each snapshot's part */
	uint32_t **slot;                   /* each part's skeleton slots */
};

static void series_set(void *ctx, size_t part, uint32_t k, struct fk_profile *p,
		       struct fk_snapmeta *m)
{
	const struct series_ctx *c = ctx;

	if (c->part[k] == part) {
		set_counts(p, c->slot[part], c->sel[k]);
	} else {
		for (size_t i = 0; i < p->nstacks; i++)
			memset(&p->stacks[i].c, 0, sizeof p->stacks[i].c);
	}
	meta_of(c->sel[k], m);
}

static int series_locked(int fmt, const struct fk_serve_opts *o, char **out, size_t *len,
			 struct fk_err *err)
{
	const struct snap **sel, **sub;
	struct fk_profile **parts;
	size_t n = ring.n, nparts = 0;
	struct series_ctx c;
	int rc = 0;

	if (n == 0)
		return fk_err_set(err, FK_EUNSUPP, 0, "no snapshot yet");
	sel = malloc(n * sizeof *sel);
	sub = malloc(n * sizeof *sub);
	parts = calloc(n, sizeof *parts);
	c.part = malloc(n * sizeof *c.part);
	c.slot = calloc(n, sizeof *c.slot);
	c.sel = sel;
	if (!sel || !sub || !parts || !c.part || !c.slot) {
		rc = fk_err_set(err, FK_ENOMEM, 0, "out of memory");
		goto out;
	}
	for (size_t k = 0; k < n; k++) {
		sel[k] = &ring.v[k];
		c.part[k] = SIZE_MAX;
	}
	for (size_t k = 0; k < n && rc == 0; k++) {
		size_t nsub = 0;
		uint64_t sig = ring.maps[sel[k]->maps].modsig;

		if (c.part[k] != SIZE_MAX)
			continue;
		for (size_t j = k; j < n; j++)
			if (c.part[j] == SIZE_MAX && ring.maps[sel[j]->maps].modsig == sig) {
				c.part[j] = nparts;
				sub[nsub++] = sel[j];
			}
		parts[nparts] = skeleton(sub, nsub, &c.slot[nparts], err);
		if (!parts[nparts])
			rc = -1;
		else
			nparts++;
	}
	if (rc == 0) {
		/* The snapshots' sampling period when they share one. */
		struct fk_origin origin = { .period = sel[0]->period, .sample_type = "inuse_space" };

		for (size_t k = 1; k < n; k++)
			if (sel[k]->period != origin.period)
				origin.period = 0;
		rc = fk_serve_series(parts, nparts, (uint32_t)n, series_set, &c, fmt, o, &origin,
				     out, len, err);
	}
out:
	for (size_t i = 0; parts && c.slot && i < nparts; i++) {
		fk_profile_free(parts[i]);
		free(c.slot[i]);
	}
	free(parts);
	free(c.slot);
	free(c.part);
	free(sub);
	free(sel);
	return rc;
}

int fk_snap_series(int fmt, const struct fk_serve_opts *o, char **out, size_t *len,
		   struct fk_err *err)
{
	int rc;

	pthread_mutex_lock(&ring.lock);
	rc = series_locked(fmt, o, out, len, err);
	pthread_mutex_unlock(&ring.lock);
	return rc;
}

void fk_snap_json(FILE *f)
{
	pthread_mutex_lock(&ring.lock);
	fprintf(f, "{\"snapshots\":[");
	for (size_t k = 0; k < ring.n; k++) {
		const struct snap *s = &ring.v[k];

		fprintf(f, "%s{\"id\":%u,\"time\":%.3f,\"why\":\"%s\",\"sampled_bytes\":%.0f",
			k ? "," : "", s->id, (double)s->time_ns / 1e9, s->why, s->total);
		for (int i = 0; i < FK_SER_NSTATS; i++) {
			if (s->stat[i] >= 0)
				fprintf(f, ",\"%s\":%lld", fk_series_keys[i], (long long)s->stat[i]);
			else
				fprintf(f, ",\"%s\":null", fk_series_keys[i]);
		}
		fputs(",\"hook_memory\":{", f);
		for (int i = 0; i < 3; i++) {
			static const char *const key[3] = { "allocated", "active", "resident" };

			if (s->hook_mem[i] >= 0)
				fprintf(f, "%s\"%s\":%lld", i ? "," : "", key[i],
					(long long)s->hook_mem[i]);
			else
				fprintf(f, "%s\"%s\":null", i ? "," : "", key[i]);
		}
		if (s->sampling_how)
			fprintf(f, "},\"sampling_from\":\"%s\"}", s->sampling_how);
		else
			fputs("},\"sampling_from\":null}", f);
	}
	fprintf(f, "],\"peak\":%u,\"bytes\":%zu,\"budget\":%zu}\n",
		ring.n ? ring.v[peak_index()].id : 0, ring.bytes, fk_env_get()->snapshot_bytes);
	pthread_mutex_unlock(&ring.lock);
}

int64_t fk_snap_sampling(void)
{
	int64_t v;

	pthread_mutex_lock(&ring.lock);
	v = ring.n ? ring.v[ring.n - 1].stat[FK_SER_SAMPLING] : -1;
	pthread_mutex_unlock(&ring.lock);
	return v;
}

void fk_snap_release(void)
{
	pthread_mutex_lock(&ring.lock);
	for (size_t k = 0; k < ring.n; k++)
		snap_free(&ring.v[k]);
	free(ring.v);
	ring.v = NULL;
	ring.n = ring.capv = 0;
	for (size_t i = 0; i < ring.nstk; i++)
		free(ring.stk[i].addrs);
	free(ring.stk);
	ring.stk = NULL;
	ring.nstk = ring.capstk = 0;
	fk_u64map_release(&ring.byhash);
	for (size_t i = 0; i < ring.nmaps; i++)
		free(ring.maps[i].text);
	free(ring.maps);
	ring.maps = NULL;
	ring.nmaps = ring.capmaps = 0;
	ring.bytes = 0;
	ring.max_allocated = 0;
	pthread_mutex_unlock(&ring.lock);
}

void fk_snap_atfork_child(void)
{
	/* The parent's thread may have held the lock mid-change: the child's
	 * ring starts empty (the parent's stays, unread, copy-on-write). */
	memset(&ring, 0, sizeof ring);
	pthread_mutex_init(&ring.lock, NULL);
	ring.next_id = 1;
}
