/* SPDX-License-Identifier: MIT */
/* A request's query parameters, checked once against its route's list and
 * handed to the handler typed (serve_params.c). It knows nothing of the
 * transport: the parameters come as a name-value list (libmicrohttpd's,
 * or serve_handle.c's for a request the host hands over). */
#ifndef FK_SERVE_REQ_H
#define FK_SERVE_REQ_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Every parameter any route takes; FK_ARG_END ends a route's list. */
enum fk_arg {
	FK_ARG_END,
	FK_ARG_PID,
	FK_ARG_FORMAT,
	FK_ARG_TITLE,
	FK_ARG_COLORS,
	FK_ARG_MINWIDTH,
	FK_ARG_INVERTED,
	FK_ARG_LINES,
	FK_ARG_SAMPLE_TYPE,
	FK_ARG_MAX_SAMPLES,
	FK_ARG_SNAPSHOT,
	FK_ARG_BASE,
	FK_ARG_SECONDS,
	FK_ARG_VIEW,
	FK_ARG_MAX_MS,
	FK_ARG_MIN_S,
	FK_ARG_ENABLED,
	FK_ARG_LG_SAMPLE,
	FK_ARG_COUNT
};

/* A parameter's name as the query spells it ("max_samples"), NULL for
 * FK_ARG_END and past the last. */
const char *fk_arg_name(enum fk_arg a);

/* What a parameter's value may be. */
enum fk_param_kind {
	FK_PARAM_BOOL,             /* true, false, 1 or 0 */
	FK_PARAM_FLAG,             /* the same, or nothing (alone or "="): true */
	FK_PARAM_UINT,             /* decimal 0 to max */
	FK_PARAM_ID,               /* decimal 1 to max */
	FK_PARAM_WORD,             /* one of word(0), word(1), ... */
	FK_PARAM_TEXT,             /* any bytes but NUL, at most FK_HOOK_MAX_URL */
	FK_PARAM_WIDTH,            /* a number 0 to 1e6, or one with '%' after */
	FK_PARAM_PID,              /* a process id: decimal 1 to FK_HOOK_PID_MAX */
	FK_PARAM_PID_ALL,          /* the same, or the word "all" */
};

/* One parameter a route takes: a row of the route table's list. */
struct fk_param {
	enum fk_arg arg;
	enum fk_param_kind kind;
	uint64_t max;              /* FK_PARAM_UINT, FK_PARAM_ID: the largest value */
	/* FK_PARAM_WORD: the i-th word allowed, NULL past the last; the
	 * first is the route's default. */
	const char *(*word)(int i);
	const char *want;          /* what is allowed, for messages ("0 to 63");
				      NULL: said from the kind */
};

/* A request's parameters, typed. A field not given holds its default
 * (0 unless said). Text points into the request's own list: valid while
 * the request is. */
struct fk_req {
	uint32_t given;            /* bit (1 << FK_ARG_x): x was given */
	pid_t pid;                 /* pid=N */
	int pid_all;               /* pid=all */
	int format;                /* the index of its word in the route's list */
	const char *title, *colors;
	double minwidth;           /* -1: the renderer's default */
	int minwidth_pct;          /* minwidth is a percentage */
	int inverted;              /* 1, 0; -1: the renderer's default */
	int lines;
	int sample_type;           /* fk_sample_type_name's index */
	uint64_t max_samples;
	uint32_t snapshot, base;   /* snapshot ids, 1 and up */
	uint64_t seconds;
	int view;                  /* fk_life_view_name's index */
	uint64_t max_ms, min_s;
	int enabled;               /* 1 or 0 where it is a boolean */
	int lg_sample;
};

/* Whether parameter a was given. */
static inline int fk_req_has(const struct fk_req *q, enum fk_arg a)
{
	return (int)((q->given >> a) & 1);
}

/* Called with each query parameter in order, its decoded name and value
 * and their lengths (val NULL: the name came without '='); non-zero stops
 * the list. */
typedef int fk_arg_fn(void *cls, const char *key, size_t klen, const char *val, size_t vlen);

/* Calls fn on every parameter of a list (tctx: the list's own state) and
 * returns the first non-zero fn returned, else 0. */
typedef int fk_each_fn(void *tctx, fk_arg_fn *fn, void *cls);

/* Fills q from the list each(tctx) gives. Every parameter must be in
 * params (ended by FK_ARG_END) or be pid (FK_PARAM_PID, unless params
 * names it), be given once, with a value of its kind, without a NUL byte
 * (%00) in its name or value. Returns 0; or -1 with msg (size bytes, at
 * least 1) one sentence naming the parameter and what is allowed, for a
 * 400. route names the route in messages ("GET /internal/heap"). each
 * NULL: no parameters. */
int fk_req_parse(struct fk_req *q, fk_each_fn *each, void *tctx, const struct fk_param *params,
		 const char *route, char *msg, size_t size);

#endif
