/* SPDX-License-Identifier: MIT */
/* Allocation lifetimes: jemalloc 5.3's record of its last sampled
 * allocations (experimental.prof_recent.alloc_dump; jemalloc
 * src/prof_recent.c; turned on by hook_recent.c) taken, with the memory
 * maps its raw addresses need, as one "lifetimes" raw form (core/life.h,
 * man/heap-lifetimes.1, FORMAT), and served in its views. */
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "serve_int.h"
#include "life.h"
#include "flame.h"
#include "life_enc.h"
#include "num.h"

/* The clock jemalloc stamps records with (nstime_prof_update): the wall
 * clock with prof_time_resolution:high, else its monotonic one (the
 * coarse clock where there is one, as in Debian's build: 4 ms ticks). */
static int recent_realtime(void)
{
	const char *res = NULL;
	size_t sz = sizeof res;

	return fk_je_ctl("opt.prof_time_resolution", &res, &sz, NULL, 0) == 0 && res &&
	       strcmp(res, "high") == 0;
}

static clockid_t recent_clock(int realtime)
{
	return realtime ? CLOCK_REALTIME : CLOCK_MONOTONIC_COARSE;
}

static uint64_t recent_now(int realtime)
{
	struct timespec ts;

	clock_gettime(recent_clock(realtime), &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The tick of that clock in milliseconds (4 where the kernel ticks at
 * 250 Hz), 0 when unknown: lifetimes shorter than it read as 0. */
static double recent_tick_ms(int realtime)
{
	struct timespec res;

	if (clock_getres(recent_clock(realtime), &res) != 0)
		return 0;
	return (double)res.tv_sec * 1e3 + (double)res.tv_nsec / 1e6;
}


/* jemalloc's write callback: into the memfd, every byte or an error. */
struct sink {
	int fd;
	int err;                       /* errno of a failed write, or 0 */
};

static void sink_write(void *opaque, const char *s)
{
	struct sink *k = opaque;
	size_t n = strlen(s);

	while (n > 0 && !k->err) {
		ssize_t w = write(k->fd, s, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			k->err = w < 0 ? errno : EIO;
			break;
		}
		s += w;
		n -= (size_t)w;
	}
}

/* Copies /proc/self/maps to k. */
static void copy_maps(struct sink *k)
{
	char buf[16384];
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	ssize_t r;

	if (fd < 0) {
		k->err = errno;
		return;
	}
	while (!k->err && ((r = read(fd, buf, sizeof buf - 1)) > 0 || (r < 0 && errno == EINTR)))
		if (r > 0) {
			buf[r] = '\0';
			sink_write(k, buf);
		}
	close(fd);
}

/* The usable state or an error: recording on in a jemalloc that has it. */
static int recent_ready(struct fk_err *err)
{
	const char *why = "", *recent_why;
	long recent_max;

	fk_recent_bound(&recent_max, &recent_why);
	if (fk_je_check(&why) != FK_JE_OK)
		return fk_err_set(err, FK_EUNSUPP, 0, "%s", why);
	if (recent_max == 0 || recent_why[0])
		return fk_err_set(err, FK_EUNSUPP, 0, "%s", recent_why[0] ? recent_why :
				  "recording is off (FLAMEKIT_RECENT=0)");
	return 0;
}

int fk_recent_dump(char **data, size_t *len, size_t *maplen, struct fk_err *err)
{
	struct { void (*cb)(void *, const char *); void *arg; } dump;
	struct sink k = { -1, 0 };
	int realtime = recent_realtime(), rc;
	char head[160];

	if (recent_ready(err) < 0)
		return -1;
	if ((k.fd = memfd_create("flamekit-recent", MFD_CLOEXEC)) < 0)
		return fk_err_set(err, FK_EIO, 0, "memfd_create: %s", strerror(errno));
	/* The time of the dump in the records' clock, taken first: no record
	 * is younger than it. */
	snprintf(head, sizeof head, "%s\nnow_ns: %llu\nclock: %s\n", FK_LIFE_MAGIC,
		 (unsigned long long)recent_now(realtime), realtime ? "realtime" : "monotonic");
	sink_write(&k, head);
	dump.cb = sink_write;
	dump.arg = &k;
	rc = fk_je_ctl("experimental.prof_recent.alloc_dump", NULL, NULL, &dump, sizeof dump);
	sink_write(&k, "\nMAPPED_LIBRARIES:\n");
	copy_maps(&k);
	if (rc != 0)
		rc = fk_err_set(err, FK_EIO, 0, "experimental.prof_recent.alloc_dump failed: %s",
				strerror(rc));
	else if (k.err)
		rc = fk_err_set(err, FK_EIO, 0, "cannot write the record: %s", strerror(k.err));
	else
		rc = fk_je_map_fd(k.fd, data, len, maplen, err);
	close(k.fd);
	return rc;
}

/* A counting callback: the records and the first (oldest) alloc_time, read
 * as the text streams by, with no copy of it; a key split between two
 * pieces is found by keeping the tail of the last one. (A split first
 * record leaves the age unknown.) */
struct counter {
	uint64_t records, oldest;
	int have_oldest;
	char tail[32];
	size_t ntail;
};

static const char time_key[] = "\"alloc_time\":";
#define TIME_KEY_LEN (sizeof time_key - 1)

/* Counts the keys wholly inside s[0..n); the first one's number, when
 * whole, is the oldest record's time. */
static void count_piece(const char *s, size_t n, struct counter *c)
{
	const char *p = s, *end = s + n;

	while ((p = memmem(p, (size_t)(end - p), time_key, TIME_KEY_LEN))) {
		const char *d = p + TIME_KEY_LEN, *e = d;

		c->records++;
		while (e < end && *e >= '0' && *e <= '9')
			e++;
		if (c->records == 1 && e < end && fk_parse_u64(d, (size_t)(e - d), &c->oldest) == 0)
			c->have_oldest = 1;
		p = d;
	}
}

static void count_write(void *opaque, const char *s)
{
	struct counter *c = opaque;
	size_t n = strlen(s), h = n < sizeof c->tail ? n : sizeof c->tail;
	char join[2 * sizeof c->tail];
	const char *p, *end;

	/* A key that straddles the stream's last bytes and this piece (one
	 * wholly on either side is counted there). The tail is the stream's,
	 * not the last piece's, so a key over three short pieces is found. */
	memcpy(join, c->tail, c->ntail);
	memcpy(join + c->ntail, s, h);
	for (p = join, end = join + c->ntail + h;
	     (p = memmem(p, (size_t)(end - p), time_key, TIME_KEY_LEN)); p++)
		if (p < join + c->ntail && p + TIME_KEY_LEN > join + c->ntail)
			c->records++;
	count_piece(s, n, c);
	if (n >= sizeof c->tail) {
		memcpy(c->tail, s + n - sizeof c->tail, sizeof c->tail);
		c->ntail = sizeof c->tail;
	} else {
		size_t keep = c->ntail + n > sizeof c->tail ? sizeof c->tail - n : c->ntail;

		memmove(c->tail, c->tail + c->ntail - keep, keep);
		memcpy(c->tail + keep, s, n);
		c->ntail = keep + n;
	}
}

/* The last count: what it found and when (fk_now), so that a large
 * record is not written out again for every settings request. */
static struct {
	double at;                 /* 0: none */
	uint64_t records;
	double oldest_s;           /* at `at` */
} last;

static void remember(uint64_t records, double oldest_s)
{
	last.at = fk_now();
	last.records = records;
	last.oldest_s = oldest_s;
}

int fk_recent_stats(struct fk_recent_stats *st)
{
	struct { void (*cb)(void *, const char *); void *arg; } dump;
	struct counter c;
	double now = fk_now();

	memset(st, 0, sizeof *st);
	fk_recent_bound(&st->max, &st->why);
	st->oldest_s = -1;
	if (fk_je_check(NULL) != FK_JE_OK || st->max == 0 || st->why[0])
		return -1;
	/* Counting means jemalloc writes every record (0.5 s for 100 000 of
	 * them, bench/README.md "Lifetimes"): a small record is counted
	 * every time, a large one at most every FK_HOOK_RECENT_STATS_S. */
	if (last.at == 0 || now - last.at >= FK_HOOK_RECENT_STATS_S ||
	    last.records < FK_HOOK_RECENT_STATS_EXACT) {
		memset(&c, 0, sizeof c);
		dump.cb = count_write;
		dump.arg = &c;
		if (fk_je_ctl("experimental.prof_recent.alloc_dump", NULL, NULL, &dump, sizeof dump) != 0)
			return -1;
		if (c.have_oldest) {
			uint64_t t = recent_now(recent_realtime());

			remember(c.records, t > c.oldest ? (double)(t - c.oldest) / 1e9 : 0);
		} else {
			remember(c.records, -1);
		}
		now = last.at;
	}
	st->records = last.records;
	st->oldest_s = last.oldest_s < 0 ? -1 : last.oldest_s + (now - last.at);
	st->as_of_s = now - last.at;
	st->full = st->max > 0 && last.records >= (uint64_t)st->max;
	return 0;
}

/* What a view selected, for the 409 of an empty one. */
static void nothing_matches(const struct fk_life_query *q, const struct fk_life_info *in,
			    struct fk_err *err)
{
	if (in->records == 0)
		fk_err_set(err, FK_EUNSUPP, 0, "no allocation recorded yet: records are kept of "
			   "sampled allocations only, so turn sampling on (POST "
			   "/internal/heap/settings?enabled=true) and let the program run");
	else if (q->view == FK_LIFE_TEMPORARY)
		fk_err_set(err, FK_EUNSUPP, 0, "none of the %llu allocations recorded (the last "
			   "%.0f s) was freed within %g ms", (unsigned long long)in->records,
			   in->span_s, q->max_ms);
	else if (q->view == FK_LIFE_OLDEST)
		fk_err_set(err, FK_EUNSUPP, 0, "none of the %llu allocations recorded (the last "
			   "%.0f s) is live after %g s", (unsigned long long)in->records,
			   in->span_s, q->min_s);
	else
		fk_err_set(err, FK_EUNSUPP, 0, "none of the %llu allocations recorded (the last "
			   "%.0f s) was freed", (unsigned long long)in->records, in->span_s);
}

/* The title of a view's flame page. */
static const char *view_title(const struct fk_life_query *q, char *buf, size_t size)
{
	switch (q->view) {
	case FK_LIFE_TEMPORARY:
		snprintf(buf, size, "Temporary allocations (freed within %g ms)", q->max_ms);
		break;
	case FK_LIFE_OLDEST:
		snprintf(buf, size, "Live allocations older than %g s", q->min_s);
		break;
	case FK_LIFE_FREED:
		snprintf(buf, size, "Freed allocations, by free stack");
		break;
	default:
		snprintf(buf, size, "Recorded allocations, by allocation stack");
	}
	return buf;
}

/* The lifetimes page: every record by allocation stack, a column per
 * lifetime (fk_life_columns_write), drawn by render-flame's page, which
 * shows the selected frame's lifetime histogram and, from origin's lines,
 * what the record covers and the tick of its clock. */
static int lifetimes_page(struct fk_profile *p, const struct fk_life_info *info,
			  const struct fk_serve_opts *o, const struct fk_origin *origin,
			  char **out, size_t *len, struct fk_err *err)
{
	struct fk_flame_opts fo;
	char *text = NULL, lines[FK_ORIGIN_SIZE];
	size_t tlen = 0;
	FILE *f;
	int rc;

	if (fk_serve_symbolize(p, err) < 0)
		return -1;
	if (!(f = open_memstream(&text, &tlen)))
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	rc = fk_life_columns_write(p, info, f, err);
	if (fclose(f) != 0 && rc == 0)
		rc = fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	fk_flame_opts_init(&fo);
	fo.title = "Allocation lifetimes";
	fo.info = fk_origin_text(origin, lines);
	if (o && o->title && *o->title)
		fo.title = o->title;
	if (o && o->colors && *o->colors)
		fo.colors = o->colors;
	if (rc == 0 && !(f = open_memstream(out, len)))
		rc = fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	else if (rc == 0) {
		rc = fk_flame_render(text, tlen, NULL, 0, &fo, f, err);
		if (fclose(f) != 0 && rc == 0)
			rc = fk_err_set(err, FK_ENOMEM, 0, "out of memory");
		if (rc < 0) {
			free(*out);
			*out = NULL;
		}
	}
	free(text);
	return rc;
}

int fk_recent_serve(const struct fk_life_query *q, int fmt, const struct fk_serve_opts *o,
		    char **out, size_t *len, size_t *maplen, struct fk_err *err)
{
	struct fk_life_info info;
	struct fk_serve_opts vo = { .minwidth = -1, .inverted = -1 };
	/* Every page of the record says what it covers. */
	struct fk_origin origin = { .life = &info };
	struct fk_profile *p;
	char *raw, title[120];
	size_t rlen, rmap;
	int rc;

	*out = NULL;
	*len = *maplen = 0;
	fk_je_lock();
	rc = fk_recent_dump(&raw, &rlen, &rmap, err);
	if (rc == 0)
		fk_serve_drop_own_maps(raw, &rlen);
	if (rc < 0 || fmt == FK_OUT_RAW) {
		fk_je_unlock();
		if (rc == 0) {
			*out = raw;
			*len = rlen;
			*maplen = rmap;
		}
		return rc;
	}
	if (!(p = fk_profile_new("lifetimes"))) {
		fk_hook_buf_release(raw, rmap);
		fk_je_unlock();
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	}
	rc = fk_life_parse(p, raw, rlen, q, &info, err);
	if (rc == 0) {
		remember(info.records, info.records ? info.span_s : -1);
		origin.period = info.period;
		origin.clock_ms = recent_tick_ms(info.realtime);
	}
	/* An empty view is a 409 (but JSON can say "no site" itself, once
	 * there are records at all). */
	if (rc == 0 && (info.records == 0 || (p->nstacks == 0 && fmt != FK_RECENT_JSON))) {
		nothing_matches(q, &info, err);
		rc = 1;
	} else if (rc == 0 && fmt == FK_RECENT_JSON) {
		FILE *f = open_memstream(out, len);

		rc = f ? fk_serve_symbolize(p, err) : fk_err_set(err, FK_ENOMEM, 0, "out of memory");
		if (rc == 0)
			rc = fk_life_json_write(p, &info, q, f, err);
		if (f && fclose(f) != 0 && rc == 0)
			rc = fk_err_set(err, FK_ENOMEM, 0, "out of memory");
		if (rc < 0) {
			free(*out);
			*out = NULL;
		}
	} else if (rc == 0 && fmt == FK_OUT_FLAME && q->view == FK_LIFE_SITES) {
		/* The record's figures are the text's own "# info:" lines. */
		struct fk_origin page = { .clock_ms = origin.clock_ms };

		rc = lifetimes_page(p, &info, o, &page, out, len, err);
	} else if (rc == 0) {
		if (o)
			vo = *o;
		if (!vo.title || !*vo.title)
			vo.title = view_title(q, title, sizeof title);
		rc = fk_serve_emit(p, fmt, &vo, &origin, out, len, maplen, err);
	}
	fk_life_info_release(&info);
	fk_profile_free(p);
	fk_hook_buf_release(raw, rmap);
	fk_je_unlock();
	return rc;
}
