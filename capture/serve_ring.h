/* SPDX-License-Identifier: MIT */
/* The snapshot ring's inside, shared by the file that keeps it
 * (serve_snap.c: taking, thinning, the timer) and the one that serves it
 * (serve_timeline.c: a snapshot, a growth, the series); the hook's other
 * files see only hook_int.h's fk_snap_ functions. */
#ifndef FK_SERVE_RING_H
#define FK_SERVE_RING_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "series.h"
#include "u64map.h"

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

/* The ring: its snapshots, and the stacks and maps texts they share. Its
 * lock guards every field (docs/hook.md, "Locks": ring.lock). */
struct fk_ring {
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
};

/* The one ring (serve_snap.c). */
extern struct fk_ring fk_ring;

/* The index in fk_ring.v of the peak: the highest stats.allocated,
 * else the highest sampled heap. The ring is locked and not empty. */
size_t fk_snap_peak(void);

#endif
