/* SPDX-License-Identifier: MIT */
/* Finding and driving jemalloc's profiling through mallctl (jemalloc(3),
 * "MALLCTL NAMESPACE": config.prof, opt.prof, prof.active, prof.reset,
 * prof.dump, prof.lg_sample, thread.prof.active) of the copy chosen among
 * those hook_find.c finds. Dumps go through a memfd, so no temporary file
 * is ever created. */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hook_int.h"
#include "limits.h"

/* What was found, chosen and learnt of it, under je.mu; and the dump
 * lock (one dump at a time: jemalloc serialises prof.dump itself, but the
 * parsing and encoding that follow are memory-hungry). docs/hook.md
 * lists both locks in their order. */
static struct {
	pthread_mutex_t mu;
	int done;                      /* discovery ran since the last change */
	fk_mallctl_fn api;             /* given by fk_hook_set_mallctl */
	fk_mallctl_fn ctl;             /* the chosen copy's mallctl */
	struct fk_je_copy copies[FK_HOOK_MAX_COPIES];
	size_t ncopies;
	int chosen;
	enum fk_je_avail avail;
	char why[3072];                /* the sentence for avail */
	char accum[700];               /* what allocs lacks without prof_accum */
	char note[2048];               /* why this copy, when several */
	/* The copies FLAMEKIT_MALLCTL left out (those of the default names
	 * in other functions), kept to tell when the one it chose holds
	 * nothing while another holds the program's memory; set by discover. */
	struct fk_je_copy others[FK_HOOK_MAX_COPIES];
	size_t nothers;
	pthread_mutex_t dump_lock;
} je = {
	.mu = PTHREAD_MUTEX_INITIALIZER,
	.chosen = -1,
	.avail = FK_JE_NOTFOUND,
	.dump_lock = PTHREAD_MUTEX_INITIALIZER,
};

/* FLAMEKIT_MALLCTL, unless the program handed a mallctl over: "" none. */
static const char *env_name(void)
{
	return je.api ? "" : fk_env_get()->mallctl;
}

void fk_je_lock(void)
{
	pthread_mutex_lock(&je.dump_lock);
}

void fk_je_unlock(void)
{
	pthread_mutex_unlock(&je.dump_lock);
}

void fk_je_atfork(int phase)
{
	/* je.mu is held only while jemalloc is found (never with the dump
	 * lock wanted after it), so taking it here cannot wait on a thread
	 * that waits on the fork. The dump lock is held for a whole dump and
	 * conversion: a fork never waits for it; in the child it is made
	 * anew, and what it guards (the module cache, the snapshots) is
	 * left by the child's hook (serve_profile.c, serve_snap.c). */
	if (phase == 0) {
		pthread_mutex_lock(&je.mu);
	} else {
		pthread_mutex_unlock(&je.mu);
		if (phase == 2)
			pthread_mutex_init(&je.dump_lock, NULL);
	}
}

double fk_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The variable a copy reads its options from: its prefix in capitals,
 * then MALLOC_CONF (jemalloc's JEMALLOC_CPREFIX). */
static void conf_var(const struct fk_je_copy *c, char *buf, size_t size)
{
	size_t n = strlen(c->symbol), k = 0;

	if (n >= 7 && strcmp(c->symbol + n - 7, "mallctl") == 0)
		n -= 7;
	for (size_t i = 0; i < n && k + 1 < size; i++)
		buf[k++] = (char)toupper((unsigned char)c->symbol[i]);
	snprintf(buf + k, size - k, "MALLOC_CONF");
}

/* Where a copy is, for messages: "_rjem_mallctl in /srv/app, found in
 * .symtab, not exported". */
static void where(const struct fk_je_copy *c, char *buf, size_t size)
{
	if (strcmp(c->source, "api") == 0 && strcmp(c->module, "fk_hook_set_mallctl") == 0)
		snprintf(buf, size, "the mallctl given to fk_hook_set_mallctl");
	else if (strcmp(c->source, "api") == 0)
		snprintf(buf, size, "%s in %s, given to fk_hook_set_mallctl", c->symbol, c->module);
	else if (strcmp(c->source, "dynamic") == 0)
		snprintf(buf, size, "%s in %s, exported", c->symbol, c->module);
	else
		snprintf(buf, size, "%s in %s, found in %s, not exported", c->symbol,
			 c->module, c->source);
}

/* Reads what the copy can do into c->state. */
static void probe(struct fk_je_copy *c)
{
	bool b;
	size_t sz = sizeof b;
	const char *v = NULL;
	size_t vsz = sizeof v;
	int rc;

	if (c->ctl("version", &v, &vsz, NULL, 0) == 0 && v)
		snprintf(c->version, sizeof c->version, "%s", v);
	rc = c->ctl("config.prof", &b, &sz, NULL, 0);
	if (rc != 0) {
		c->state = FK_JE_FAILED;
		c->err = rc;
		return;
	}
	if (!b) {
		c->state = FK_JE_NOTCOMPILED;
		return;
	}
	sz = sizeof b;
	rc = c->ctl("opt.prof", &b, &sz, NULL, 0);
	if (rc != 0) {
		c->state = FK_JE_FAILED;
		c->err = rc;
		return;
	}
	c->state = b ? FK_JE_OK : FK_JE_NOTSTARTED;
}

/* Bytes this thread allocated through the copy (thread.allocated), or 0. */
static uint64_t thread_allocated(const struct fk_je_copy *c)
{
	uint64_t v = 0;
	size_t sz = sizeof v;

	if (c->ctl("thread.allocated", &v, &sz, NULL, 0) != 0)
		return 0;
	return v;
}

/* Marks the copies that serve malloc: a probe allocation through the
 * process's malloc moves their thread.allocated. */
static void probe_malloc(void)
{
	void *(*volatile mal)(size_t) = malloc;
	void (*volatile fre)(void *) = free;
	uint64_t before[FK_HOOK_MAX_COPIES];
	void *p;

	for (size_t i = 0; i < je.ncopies; i++)
		before[i] = thread_allocated(&je.copies[i]);
	p = mal(64 * 1024);
	for (size_t i = 0; i < je.ncopies; i++)
		je.copies[i].serves_malloc = p && thread_allocated(&je.copies[i]) - before[i] >= 64 * 1024;
	fre(p);
}

/* The copy to serve: the one given through the API; else the program's
 * own (defined in the executable: a program that links jemalloc in
 * allocates through it); else the one that serves malloc; else the first. */
static int choose(const char **reason)
{
	for (size_t i = 0; i < je.ncopies; i++)
		if (strcmp(je.copies[i].source, "api") == 0)
			return *reason = "given by fk_hook_set_mallctl", (int)i;
	for (size_t i = 0; i < je.ncopies; i++)
		if (je.copies[i].in_exe)
			return *reason = "it is linked into the executable", (int)i;
	for (size_t i = 0; i < je.ncopies; i++)
		if (je.copies[i].serves_malloc)
			return *reason = "it serves malloc", (int)i;
	return *reason = "the first found", 0;
}

/* The options profiling needs from a jemalloc's variable (the hook's
 * malloc_conf less the rate, which is jemalloc's default). */
#define NEEDED "prof:true,prof_active:false,prof_accum:true"

/* "VAR=VALUE" to start the program with: the variable's value now, if it
 * has one, then opts (jemalloc reads a variable's options in order, the
 * last of a name winning, and the variable after malloc_conf). */
static const char *setting(const char *var, const char *opts, char *buf, size_t size)
{
	const char *cur = fk_env_conf(var);
	size_t k = (size_t)snprintf(buf, size, "%s=", var);

	/* The present options but those opts sets again. */
	for (const char *p = cur && strlen(cur) <= 300 ? cur : ""; *p && k < size;) {
		size_t n = strcspn(p, ","), key = strcspn(p, ":,");
		int again = 0;

		for (const char *o = opts; *o; o += strcspn(o, ","), o += *o == ',')
			again |= strncmp(o, p, key) == 0 && o[key] == ':';
		if (!again && n > 0)
			k += (size_t)snprintf(buf + k, size - k, "%.*s,", (int)n, p);
		p += n + (p[n] == ',');
	}
	if (k < size)
		snprintf(buf + k, size - k, "%s", opts);
	return buf;
}

/* What makes a stripped static jemalloc reachable, for a sentence's end. */
static void stripped_advice(char *buf, size_t size, int bits)
{
	const char *sym = bits & FK_FIND_RJEM ? "_rjem_mallctl" : "mallctl";

	snprintf(buf, size, "keep %s in its symbol table (strip --keep-symbol=%s, or "
		 "strip --strip-debug, which keeps .symtab), install its debug file "
		 "(objcopy --only-keep-debug, as /usr/lib/debug/.build-id/NN/REST.debug), or "
		 "have the program hand %s to fk_hook_set_mallctl; never preload "
		 "libjemalloc.so.2 into it: that second jemalloc would serve none of its "
		 "allocations", sym, sym, sym);
}

/* Why a shared jemalloc (the variable MALLOC_CONF) started without
 * profiling, from the malloc_conf it read and the environment. */
static void shared_not_started(const struct fk_je_copy *c, const char *w)
{
	char mod[512], val[256], set[512], env[320];
	int own = fk_find_conf(mod, sizeof mod, val, sizeof val);
	const char *mc = fk_env_conf("MALLOC_CONF");
	char link[256];
	ssize_t n;

	setting("MALLOC_CONF", NEEDED, set, sizeof set);
	if (own == 0 && strcmp(mod, c->module) != 0) {
		snprintf(je.why, sizeof je.why, "jemalloc profiling was not enabled at startup "
			 "(%s): %s defines its own malloc_conf (\"%s\"), which jemalloc reads "
			 "instead of the hook's: restart the program with %s (jemalloc reads "
			 "MALLOC_CONF after malloc_conf, option by option, so the program's own "
			 "options stay)", w, mod, val, set);
		return;
	}
	if (own != 1) {
		snprintf(je.why, sizeof je.why, "jemalloc profiling was not enabled at startup "
			 "(%s): jemalloc read its own empty malloc_conf, not the hook's, so "
			 "libflamekit-hook.so came after libjemalloc.so.2: put libflamekit-hook.so "
			 "first in LD_PRELOAD, or restart the program with %s", w, set);
		return;
	}
	if (mc && *mc) {
		snprintf(env, sizeof env, "%.300s", mc);
		snprintf(je.why, sizeof je.why, "jemalloc profiling was not enabled at startup "
			 "(%s): MALLOC_CONF=%s overrides the hook's malloc_conf: restart the "
			 "program with %s", w, env, set);
		return;
	}
	n = readlink("/etc/malloc.conf", link, sizeof link - 1);
	if (n > 0) {
		link[n] = '\0';
		snprintf(je.why, sizeof je.why, "jemalloc profiling was not enabled at startup "
			 "(%s): /etc/malloc.conf (\"%s\") overrides the hook's malloc_conf: "
			 "restart the program with %s", w, link, set);
		return;
	}
	snprintf(je.why, sizeof je.why, "jemalloc profiling was not enabled at startup (%s): "
		 "restart the program with %s", w, set);
}

/* The sentence for c's state; bits and exe (fk_find_exe_alloc) only for
 * FK_JE_ELSEWHERE. */
static void explain(const struct fk_je_copy *c, int bits, const char *exe)
{
	char w[700], var[80], set[512], adv[600];

	where(c, w, sizeof w);
	conf_var(c, var, sizeof var);
	setting(var, "prof_accum:true", set, sizeof set);
	snprintf(je.accum, sizeof je.accum, "no alloc_* values: jemalloc runs without "
		 "prof_accum (restart the program with %s)", set);
	switch (c->state) {
	case FK_JE_OK:
		je.why[0] = '\0';
		break;
	case FK_JE_FAILED:
		snprintf(je.why, sizeof je.why, "found jemalloc (%s), but mallctl(\"config.prof\") "
			 "failed there: %s", w, strerror(c->err));
		break;
	case FK_JE_NOTCOMPILED:
		snprintf(je.why, sizeof je.why, "this jemalloc (%s) was built without profiling "
			 "(config.prof is false): use a build configured with --enable-prof "
			 "(Debian's libjemalloc2; Rust's jemalloc-sys with its \"profiling\" feature)", w);
		break;
	case FK_JE_NOTSTARTED:
		if (strcmp(c->source, "dynamic") == 0 && !c->in_exe && strcmp(var, "MALLOC_CONF") == 0)
			shared_not_started(c, w);
		else if (strcmp(c->module, "fk_hook_set_mallctl") == 0)
			snprintf(je.why, sizeof je.why, "jemalloc profiling was not enabled at "
				 "startup (%s): restart the program with its jemalloc's variable "
				 "set to " NEEDED ": _RJEM_MALLOC_CONF for Rust's jemalloc-sys or "
				 "tikv-jemallocator (prefix _rjem_), MALLOC_CONF for an unprefixed "
				 "jemalloc", w);
		else
			snprintf(je.why, sizeof je.why, "jemalloc profiling was not enabled at "
				 "startup (%s): restart the program with %s (this jemalloc is "
				 "linked into the program, so the hook's own malloc_conf does not "
				 "reach it)", w, setting(var, NEEDED, set, sizeof set));
		break;
	case FK_JE_ELSEWHERE:
		if (bits & FK_FIND_HAS_JEMALLOC) {
			stripped_advice(adv, sizeof adv, bits);
			snprintf(je.why, sizeof je.why, "the jemalloc found (%s) serves none of "
				 "the program's allocations, so its profiles would be empty: %s "
				 "has a jemalloc of its own, whose mallctl is not found (not "
				 "exported, its symbol table stripped): %s", w, exe, adv);
		} else {
			snprintf(je.why, sizeof je.why, "the jemalloc found (%s) serves none of "
				 "the program's allocations, so its profiles would be empty: the "
				 "program's malloc is its own, in %s, not jemalloc's (the hook "
				 "profiles only jemalloc)", w, exe);
		}
		break;
	case FK_JE_NOTFOUND:
		break;
	}
}

static void not_found(void)
{
	char exe[512], adv[600];
	int bits;

	if (env_name()[0]) {
		snprintf(je.why, sizeof je.why, "FLAMEKIT_MALLCTL=%s: no function '%s' in the "
			 "program or its libraries (exported symbols, .symtab, .gnu_debugdata "
			 "and build-id debug files searched)", env_name(), env_name());
		return;
	}
	bits = fk_find_exe_alloc(exe, sizeof exe);
	if (bits & FK_FIND_HAS_JEMALLOC) {
		stripped_advice(adv, sizeof adv, bits);
		snprintf(je.why, sizeof je.why, "jemalloc is linked into %s, but its %s is not "
			 "found: not exported, and its symbol table (.symtab) is stripped with no "
			 "debug file for it: %s", exe,
			 bits & FK_FIND_RJEM ? "_rjem_mallctl" : "mallctl", adv);
	} else if (bits & FK_FIND_OWN_MALLOC) {
		snprintf(je.why, sizeof je.why, "jemalloc not found in this process: the "
			 "program's malloc is its own, in %s, not jemalloc's (the hook profiles "
			 "only jemalloc; if it is one, set FLAMEKIT_MALLCTL to the name of its "
			 "mallctl or call fk_hook_set_mallctl)", exe);
	} else {
		snprintf(je.why, sizeof je.why, "jemalloc not found in this process: no mallctl, "
			 "je_mallctl or _rjem_mallctl among its exported symbols or in the symbol "
			 "tables of its executable and libraries (.symtab, .gnu_debugdata, build-id "
			 "debug files): start it with LD_PRELOAD=\"libflamekit-hook.so "
			 "libjemalloc.so.2\", set FLAMEKIT_MALLCTL to the name of its mallctl, or "
			 "call fk_hook_set_mallctl");
	}
}

/* Leaves the one copy given through fk_hook_set_mallctl, named after the
 * symbol it is when the symbol tables know it: its prefix says which
 * MALLOC_CONF variable it reads. */
static void keep_api_copy(void)
{
	size_t k;

	for (k = 0; k < je.ncopies && je.copies[k].ctl != je.api; k++)
		;
	if (k == je.ncopies) {
		memset(&je.copies[0], 0, sizeof je.copies[0]);
		snprintf(je.copies[0].symbol, sizeof je.copies[0].symbol, "mallctl");
		snprintf(je.copies[0].module, sizeof je.copies[0].module, "fk_hook_set_mallctl");
	} else if (k != 0) {
		je.copies[0] = je.copies[k];
	}
	je.copies[0].ctl = je.api;
	je.copies[0].source = "api";
	je.ncopies = 1;
}

static void find_others(void)
{
	static const char *const names[] = { "mallctl", "je_mallctl", "_rjem_mallctl" };
	struct fk_je_copy all[FK_HOOK_MAX_COPIES];
	size_t n = fk_find_jemalloc(names, sizeof names / sizeof names[0], all,
				    FK_HOOK_MAX_COPIES);

	je.nothers = 0;
	for (size_t i = 0; i < n; i++)
		if (all[i].ctl != je.copies[je.chosen].ctl)
			je.others[je.nothers++] = all[i];
}

/* stats.allocated of copy c after an epoch refresh; 0 when unknown. */
static uint64_t copy_allocated(const struct fk_je_copy *c)
{
	uint64_t epoch = 1;
	size_t v = 0, sz = sizeof v;

	c->ctl("epoch", NULL, NULL, &epoch, sizeof epoch);
	return c->ctl("stats.allocated", &v, &sz, NULL, 0) == 0 ? (uint64_t)v : 0;
}

/* Finds, probes and chooses; under je.mu. */
static void discover(void)
{
	static const char *const names[] = { "mallctl", "je_mallctl", "_rjem_mallctl" };
	const char *reason = "";
	const char *const *list = names;
	size_t nlist = sizeof names / sizeof names[0];
	const char *one[1];
	char w[700], exe[512] = "";
	struct fk_je_copy *c;
	int bits = 0;

	je.ctl = NULL;
	je.chosen = -1;
	je.note[0] = '\0';
	if (env_name()[0]) {
		one[0] = env_name();
		list = one;
		nlist = 1;
	}
	je.ncopies = fk_find_jemalloc(list, nlist, je.copies, FK_HOOK_MAX_COPIES);
	if (je.api)
		keep_api_copy();
	je.done = 1;
	if (je.ncopies == 0) {
		je.avail = FK_JE_NOTFOUND;
		not_found();
		return;
	}
	for (size_t i = 0; i < je.ncopies; i++)
		probe(&je.copies[i]);
	probe_malloc();
	je.chosen = choose(&reason);
	je.ctl = je.copies[je.chosen].ctl;
	c = &je.copies[je.chosen];
	/* A shared jemalloc beside an executable with a malloc of its own (a
	 * static jemalloc whose mallctl is stripped, libjemalloc.so.2
	 * preloaded as well) holds no sample of the program: say so rather
	 * than serve empty profiles. */
	if (strcmp(c->source, "api") != 0 && !c->in_exe && !c->serves_malloc &&
	    ((bits = fk_find_exe_alloc(exe, sizeof exe)) & FK_FIND_OWN_MALLOC))
		c->state = FK_JE_ELSEWHERE;
	je.avail = c->state;
	explain(c, bits, exe);
	if (env_name()[0])
		find_others();
	if (je.ncopies > 1) {
		size_t k;

		where(&je.copies[je.chosen], w, sizeof w);
		k = (size_t)snprintf(je.note, sizeof je.note, "%zu jemalloc copies in this "
				     "process; serving %s because %s; also ", je.ncopies, w, reason);
		for (size_t i = 0; i < je.ncopies && k < sizeof je.note; i++) {
			if ((int)i == je.chosen)
				continue;
			where(&je.copies[i], w, sizeof w);
			k += (size_t)snprintf(je.note + k, sizeof je.note - k, "%s; ", w);
		}
		if (k < sizeof je.note)
			snprintf(je.note + k, sizeof je.note - k, "do not preload libjemalloc.so.2 "
				 "into a program that contains jemalloc (FLAMEKIT_MALLCTL chooses one)");
	}
}

static void ensure(void)
{
	pthread_mutex_lock(&je.mu);
	if (!je.done)
		discover();
	pthread_mutex_unlock(&je.mu);
}

int fk_je_idle(char *buf, size_t size)
{
	uint64_t mine, best = 0;
	size_t k = SIZE_MAX;

	ensure();
	if (!env_name()[0] || je.chosen < 0 || je.nothers == 0)
		return 0;
	mine = copy_allocated(&je.copies[je.chosen]);
	for (size_t i = 0; i < je.nothers; i++) {
		uint64_t a = copy_allocated(&je.others[i]);

		if (a > best) {
			best = a;
			k = i;
		}
	}
	if (k == SIZE_MAX || best < FK_HOOK_IDLE_HELD || best / FK_HOOK_IDLE_RATIO < mine)
		return 0;
	snprintf(buf, size, "FLAMEKIT_MALLCTL=%s chose the jemalloc in %s, which holds %llu "
		 "bytes, while the one in %s (%s) holds %llu: the program allocates through "
		 "that one, and profiles of this one are nearly empty (set FLAMEKIT_MALLCTL=%s)",
		 env_name(), je.copies[je.chosen].module, (unsigned long long)mine,
		 je.others[k].module, je.others[k].symbol, (unsigned long long)best,
		 je.others[k].symbol);
	return 1;
}

enum fk_je_avail fk_je_check(const char **why)
{
	ensure();
	if (why)
		*why = je.why;
	return je.avail;
}

int fk_je_set_api(fk_mallctl_fn fn, struct fk_err *err)
{
	const char *v = NULL;
	size_t sz = sizeof v;

	if (!fn)
		return fk_err_set(err, FK_ESYNTAX, 0, "no mallctl function given");
	if (fn("version", &v, &sz, NULL, 0) != 0 || !v)
		return fk_err_set(err, FK_EUNSUPP, 0, "the function given does not answer "
				  "mallctl(\"version\"): is it jemalloc's mallctl?");
	pthread_mutex_lock(&je.mu);
	je.api = fn;
	je.done = 0;
	pthread_mutex_unlock(&je.mu);
	return 0;
}

const char *fk_je_no_accum(void)
{
	ensure();
	return je.accum;
}

int fk_je_chosen(struct fk_je_copy *c, size_t *ncopies, const char **note)
{
	ensure();
	*ncopies = je.ncopies;
	*note = je.note;
	if (je.chosen < 0)
		return -1;
	*c = je.copies[je.chosen];
	return 0;
}


static int je_ready(struct fk_err *err)
{
	const char *why = "";

	if (fk_je_check(&why) != FK_JE_OK)
		return fk_err_set(err, FK_EUNSUPP, 0, "%s", why);
	return 0;
}

int fk_je_get_active(int *active, struct fk_err *err)
{
	bool b;
	size_t sz = sizeof b;
	int rc;

	if (je_ready(err) < 0)
		return -1;
	rc = je.ctl("prof.active", &b, &sz, NULL, 0);
	if (rc != 0)
		return fk_err_set(err, FK_EIO, 0, "cannot read prof.active: %s", strerror(rc));
	*active = b;
	return 0;
}

int fk_je_set_active(int active, int lg_sample, struct fk_err *err)
{
	bool b = active != 0;
	int rc;

	if (je_ready(err) < 0)
		return -1;
	if (lg_sample >= 0) {
		size_t lg = (size_t)lg_sample;

		if (lg_sample > FK_MAX_PERIOD_LG)
			return fk_err_set(err, FK_ESYNTAX, 0, "lg_sample out of range '%d'", lg_sample);
		rc = je.ctl("prof.reset", NULL, NULL, &lg, sizeof lg);
		if (rc != 0)
			return fk_err_set(err, FK_EIO, 0, "prof.reset failed: %s", strerror(rc));
	}
	rc = je.ctl("prof.active", NULL, NULL, &b, sizeof b);
	if (rc != 0)
		return fk_err_set(err, FK_EIO, 0, "cannot set prof.active: %s", strerror(rc));
	return 0;
}

int fk_je_lg_sample(void)
{
	size_t lg;
	size_t sz = sizeof lg;

	if (fk_je_check(NULL) != FK_JE_OK)
		return -1;
	if (je.ctl("prof.lg_sample", &lg, &sz, NULL, 0) != 0)
		return -1;
	return (int)lg;
}

int fk_je_prof_accum(void)
{
	bool b = false;
	size_t sz = sizeof b;

	if (fk_je_check(NULL) != FK_JE_OK || je.ctl("opt.prof_accum", &b, &sz, NULL, 0) != 0)
		return 0;
	return b;
}

int fk_je_bt_problem(char *buf, size_t size)
{
	unsigned bt = 0;
	size_t sz = sizeof bt;

	/* opt.prof_bt_max exists from jemalloc 5.3.1 on; 128 before. */
	if (fk_je_check(NULL) != FK_JE_OK || je.ctl("opt.prof_bt_max", &bt, &sz, NULL, 0) != 0 ||
	    bt <= FK_MAX_DEPTH)
		return 0;
	snprintf(buf, size, "jemalloc's prof_bt_max is %u, deeper than the %d frames flamekit "
		 "keeps of a stack: deeper stacks are cut to their %d innermost frames under a "
		 "[truncated] root, and jemalloc spends time and memory on frames never shown "
		 "(set prof_bt_max:%d or less in MALLOC_CONF)", bt, FK_MAX_DEPTH, FK_MAX_DEPTH,
		 FK_MAX_DEPTH);
	return 1;
}

int fk_je_holds_stacks(void)
{
	char *raw;
	size_t len, maplen;
	struct fk_err err;
	int rc;

	fk_err_init(&err, NULL);
	fk_je_lock();
	rc = fk_je_dump(&raw, &len, &maplen, &err);
	if (rc == 0) {
		rc = memmem(raw, len, "\n@", 2) != NULL;
		fk_hook_buf_release(raw, maplen);
	}
	fk_je_unlock();
	return rc;
}

int fk_je_thread_active(int active, int *old)
{
	bool b = active != 0, o = false;
	size_t sz = sizeof o;

	if (fk_je_check(NULL) != FK_JE_OK)
		return -1;
	if (je.ctl("thread.prof.active", &o, &sz, &b, sizeof b) != 0)
		return -1;
	if (old)
		*old = o;
	return 0;
}

void fk_hook_buf_release(char *data, size_t maplen)
{
	if (!data)
		return;
	if (maplen)
		munmap(data, maplen);
	else
		free(data);
}

/* Maps the memfd fd with a NUL after its data. Mapping instead of reading
 * saves a copy and the page faults of a fresh buffer: 40 % of serving a
 * 10 MB dump. */
int fk_je_map_fd(int fd, char **data, size_t *len, size_t *maplen, struct fk_err *err)
{
	struct stat st;
	size_t n;
	void *m;

	if (fstat(fd, &st) < 0)
		return fk_err_set(err, FK_EIO, 0, "cannot stat the dump: %s", strerror(errno));
	if (st.st_size <= 0)
		return fk_err_set(err, FK_EIO, 0, "jemalloc wrote an empty dump");
	if ((uint64_t)st.st_size >= FK_MAX_INPUT)
		return fk_err_set(err, FK_ELIMIT, 0, "dump too large (%lld bytes)",
				  (long long)st.st_size);
	n = (size_t)st.st_size;
	/* One more byte, which reads as the NUL the parsers expect. */
	if (ftruncate(fd, (off_t)n + 1) < 0)
		return fk_err_set(err, FK_EIO, 0, "cannot extend the dump: %s", strerror(errno));
	m = mmap(NULL, n + 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	if (m == MAP_FAILED)
		return fk_err_set(err, FK_ENOMEM, 0, "cannot map a %zu-byte dump: %s", n,
				  strerror(errno));
	*data = m;
	*len = n;
	*maplen = n + 1;
	return 0;
}

/* The end of a message for errno e into note[96]: the descriptor limit
 * when e is EMFILE, else nothing. Returns note. */
static const char *fd_limit_note(int e, char *note)
{
	struct rlimit rl;

	note[0] = 0;
	if (e != EMFILE)
		return note;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		snprintf(note, 96, " (the %s holds all %llu descriptors RLIMIT_NOFILE "
			 "allows)", fk_self_private_fds() ? "hook's descriptor table" : "process",
			 (unsigned long long)rl.rlim_cur);
	else
		snprintf(note, 96, " (the process is at its descriptor limit)");
	return note;
}

/* Why prof.dump to path failed: jemalloc says EFAULT for every failure of
 * its own open or write, so the open is tried again here to name the
 * cause (EMFILE at the descriptor limit, ENOENT without /proc). */
static int dump_failed(const char *path, int rc, struct fk_err *err)
{
	int t = open(path, O_WRONLY | O_CLOEXEC), e = errno;
	char note[96];

	if (t >= 0) {
		close(t);
		return fk_err_set(err, FK_EIO, 0, "prof.dump to %s failed: %s", path, strerror(rc));
	}
	if (e == ENOENT && access("/proc/self/fd", F_OK) != 0)
		return fk_err_set(err, FK_EIO, 0, "prof.dump to %s failed: /proc is not mounted",
				  path);
	return fk_err_set(err, FK_EIO, 0, "prof.dump failed: jemalloc cannot open %s: %s%s",
			  path, strerror(e), fd_limit_note(e, note));
}

int fk_je_dump(char **data, size_t *len, size_t *maplen, struct fk_err *err)
{
	char path[64];
	const char *pp = path;
	int fd, rc, ret;

	/* Also while sampling is off: what was sampled stays in jemalloc. */
	if (je_ready(err) < 0)
		return -1;
	fd = memfd_create("flamekit-dump", MFD_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		char note[96];

		return fk_err_set(err, FK_EIO, 0, "memfd_create: %s%s", strerror(e),
				  fd_limit_note(e, note));
	}
	/* thread-self: the memfd is in the calling thread's table, which for
	 * the hook's thread is its own (hook_loop.c), not the process's. */
	snprintf(path, sizeof path, "/proc/thread-self/fd/%d", fd);
	rc = je.ctl("prof.dump", NULL, NULL, &pp, sizeof pp);
	if (rc != 0)
		ret = dump_failed(path, rc, err);
	else
		ret = fk_je_map_fd(fd, data, len, maplen, err);
	close(fd);
	return ret;
}

int fk_je_ctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen)
{
	if (fk_je_check(NULL) == FK_JE_NOTFOUND || !je.ctl)
		return ENOENT;
	return je.ctl(name, oldp, oldlenp, newp, newlen);
}
