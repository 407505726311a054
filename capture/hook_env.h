/* SPDX-License-Identifier: MIT */
/* The hook's settings, the resident half's side: the table of every
 * FLAMEKIT_* variable it reads, and reading them (hook_env.c); the
 * structure they are read into, which both halves read, is in
 * hook_private.h. libflamekit-hook(3), ENVIRONMENT, and its reference page
 * flamekit-hook-reference(7) say the same; tests/docs/hook-env.t checks
 * them against this table. */
#ifndef FK_HOOK_ENV_H
#define FK_HOOK_ENV_H

#include <stddef.h>

#include "hook_private.h"

/* Reads the variables of the first part, each once; called by the
 * constructor. A bad value is kept aside for whoever uses the setting
 * (fk_env_bad): an exec'd child that does nothing prints nothing. */
void fk_env_load(void);

/* The value of a jemalloc's own variable var (MALLOC_CONF,
 * _RJEM_MALLOC_CONF: a name ending in MALLOC_CONF) now, for the advice
 * that quotes it; NULL when unset or var is no such name. */
const char *fk_env_conf(const char *var);

/* One row of the table. */
struct fk_setting {
	const char *name;          /* FLAMEKIT_... */
	const char *type;          /* what the value is, for the reference */
	const char *deflt;         /* the default, as the man page says it */
	const char *help;          /* one line */
	int at_start;              /* read by fk_hook_start, else at load */
	/* Reads s (set, not empty) into e: 0, or -1 with err. */
	int (*read)(const struct fk_setting *set, const char *s, struct fk_env *e,
		    struct fk_err *err);
	/* A number's: its bounds, what 0 means when it is allowed below min
	 * (or NULL), the word after the bounds (or NULL), and where it goes
	 * (offsetof, a double when dbl, else a size_t shifted left by shift,
	 * or a long when lng; a process id's too). */
	double min, max;
	const char *zero, *unit;
	size_t off;
	unsigned char dbl, lng, shift;
};

/* The table, in the order values are checked; *n rows. */
const struct fk_setting *fk_env_table(size_t *n);

/* A numeric row's bounds as its messages and the reference say them
 * ("0 (no cache) to 1048576"), into buf; "" for other rows. */
const char *fk_env_bounds(const struct fk_setting *set, char *buf, size_t size);

/* -1 with err holding the one-line message when the variable name was
 * set to a bad value at load, else 0. */
int fk_env_bad(const char *name, struct fk_err *err);

/* Reads the settings fk_hook_start takes (each start reads them again,
 * so a program may set them before it calls fk_hook_start), given its
 * address's loopback flag: 0, or -1 with err naming the first bad value
 * in the table's order (the settings then keep what they were). */
int fk_env_start(int loopback, const char *addr, struct fk_err *err);

#endif
