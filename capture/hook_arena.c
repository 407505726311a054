/* SPDX-License-Identifier: MIT */
/* The hook's own memory in a jemalloc arena of its own (jemalloc(3):
 * arenas.create, thread.arena, thread.tcache.enabled, stats.arenas.<i>.*),
 * so that what the hook allocates to serve a profile (its module cache,
 * libdw's and libelf's data, libxml2's, protobuf-c's, zlib's, its buffers
 * and snapshots) never counts as the program's, and the figures the hook
 * reports can leave it out. */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "hook_int.h"

/* Made once per process image (a forked child keeps its parent's arena,
 * which its copy of jemalloc holds too); under ar.mu. */
static struct {
	pthread_mutex_t mu;
	int tried;
	int have;
	unsigned ind;
	char why[1024];
} ar = { .mu = PTHREAD_MUTEX_INITIALIZER };

/* Creates the arena on first use; 1 when there is one. */
static int ensure(void)
{
	struct fk_je_copy c;
	size_t ncopies = 0, sz;
	const char *note = "";
	unsigned ind = 0;
	int rc;

	pthread_mutex_lock(&ar.mu);
	if (ar.tried)
		goto out;
	ar.tried = 1;
	if (fk_je_chosen(&c, &ncopies, &note) < 0) {
		snprintf(ar.why, sizeof ar.why, "no jemalloc found: the hook allocates through "
			 "the process's malloc");
		goto out;
	}
	if (!c.serves_malloc) {
		/* Then malloc is another allocator (glibc's, or another copy):
		 * the hook's allocations are in none of this jemalloc's figures. */
		snprintf(ar.why, sizeof ar.why, "the jemalloc profiled (%s in %s) does not serve "
			 "malloc: the hook's allocations go to the process's malloc and are in "
			 "none of its figures", c.symbol, c.module);
		goto out;
	}
	sz = sizeof ind;
	rc = fk_je_ctl("arenas.create", &ind, &sz, NULL, 0);
	if (rc != 0) {
		snprintf(ar.why, sizeof ar.why, "arenas.create failed (%s): the hook's allocations "
			 "are counted as the program's", strerror(rc));
		goto out;
	}
	ar.ind = ind;
	ar.have = 1;
	ar.why[0] = '\0';
out:
	rc = ar.have;
	pthread_mutex_unlock(&ar.mu);
	return rc;
}

/* Turns the calling thread's cache off (flushing it into the arenas its
 * objects came from) and moves the thread to arena ind; the old values
 * into *tc and *old. 0, or -1 with the thread as it was. */
static int move_to(unsigned ind, int *tc, unsigned *old)
{
	bool off = false, was = false;
	unsigned o = 0;
	size_t sz = sizeof was, usz = sizeof o;

	if (fk_je_ctl("thread.tcache.enabled", &was, &sz, &off, sizeof off) != 0)
		return -1;
	if (fk_je_ctl("thread.arena", &o, &usz, &ind, sizeof ind) != 0) {
		fk_je_ctl("thread.tcache.enabled", NULL, NULL, &was, sizeof was);
		return -1;
	}
	*tc = was;
	*old = o;
	return 0;
}

int fk_arena_enter_thread(void)
{
	struct fk_arena_save sv;

	if (!ensure())
		return -1;
	if (move_to(ar.ind, &sv.tcache, &sv.arena) < 0) {
		pthread_mutex_lock(&ar.mu);
		snprintf(ar.why, sizeof ar.why, "the hook's thread could not be moved to its arena "
			 "%u: its allocations are counted as the program's", ar.ind);
		pthread_mutex_unlock(&ar.mu);
		return -1;
	}
	return 0;
}

void fk_arena_begin(struct fk_arena_save *sv)
{
	memset(sv, 0, sizeof *sv);
	if (ensure() && move_to(ar.ind, &sv->tcache, &sv->arena) == 0)
		sv->moved = 1;
}

void fk_arena_end(const struct fk_arena_save *sv)
{
	bool tc = sv->tcache != 0;
	unsigned a = sv->arena;

	if (!sv->moved)
		return;
	fk_je_ctl("thread.arena", NULL, NULL, &a, sizeof a);
	if (tc)
		fk_je_ctl("thread.tcache.enabled", NULL, NULL, &tc, sizeof tc);
}

/* A size_t statistic, or -1. */
static int64_t size_stat(const char *name)
{
	size_t v = 0, sz = sizeof v;

	return fk_je_ctl(name, &v, &sz, NULL, 0) == 0 ? (int64_t)v : -1;
}

static int64_t arena_stat(unsigned ind, const char *leaf)
{
	char name[96];

	snprintf(name, sizeof name, "stats.arenas.%u.%s", ind, leaf);
	return size_stat(name);
}

static int64_t sum(int64_t a, int64_t b)
{
	return a < 0 || b < 0 ? -1 : a + b;
}

/* total less part; total when part is unknown; never below 0. */
static int64_t less(int64_t total, int64_t part)
{
	if (total < 0 || part < 0)
		return total;
	return total > part ? total - part : 0;
}

int fk_arena_split(struct fk_arena_mem *host, struct fk_arena_mem *hook)
{
	struct fk_arena_mem all, own = { -1, -1, -1, -1, -1, -1 };
	uint64_t epoch = 1;
	int ind = -1;

	pthread_mutex_lock(&ar.mu);
	if (ar.have)
		ind = (int)ar.ind;
	pthread_mutex_unlock(&ar.mu);
	fk_je_ctl("epoch", NULL, NULL, &epoch, sizeof epoch);
	all.allocated = size_stat("stats.allocated");
	all.active = size_stat("stats.active");
	all.resident = size_stat("stats.resident");
	all.mapped = size_stat("stats.mapped");
	all.retained = size_stat("stats.retained");
	all.metadata = size_stat("stats.metadata");
	if (ind >= 0) {
		unsigned i = (unsigned)ind;
		int64_t page = size_stat("arenas.page"), pactive = arena_stat(i, "pactive");

		/* The same sums ctl.c makes of the merged arenas. */
		own.allocated = sum(arena_stat(i, "small.allocated"), arena_stat(i, "large.allocated"));
		own.active = page < 0 || pactive < 0 ? -1 : pactive * page;
		own.resident = arena_stat(i, "resident");
		own.mapped = arena_stat(i, "mapped");
		own.retained = arena_stat(i, "retained");
		own.metadata = sum(arena_stat(i, "base"), arena_stat(i, "internal"));
	}
	if (hook)
		*hook = own;
	if (host) {
		int64_t gone = all.allocated >= 0 ? fk_sampling_uncounted() : -1;

		/* The program's memory holds its sampled objects even where
		 * jemalloc's stats.allocated does not (hook_sampling.c). */
		host->allocated = less(all.allocated, own.allocated) + (gone > 0 ? gone : 0);
		host->active = less(all.active, own.active);
		host->resident = less(all.resident, own.resident);
		host->mapped = less(all.mapped, own.mapped);
		host->retained = less(all.retained, own.retained);
		host->metadata = less(all.metadata, own.metadata);
	}
	return ind;
}

void fk_arena_why(char *buf, size_t size)
{
	pthread_mutex_lock(&ar.mu);
	snprintf(buf, size, "%s", ar.why);
	pthread_mutex_unlock(&ar.mu);
}

void fk_arena_atfork(int phase)
{
	if (phase == 0)
		pthread_mutex_lock(&ar.mu);
	else
		pthread_mutex_unlock(&ar.mu);
}
