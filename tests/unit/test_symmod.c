/* SPDX-License-Identifier: MIT */
/* Unit tests of one module's life cycle (symbolize/smod.c: open, the lazy
 * steps of enum fk_smod_state, lookups, release) and of phase one of
 * resolving (modpool.c), on the committed fixture program fk-inline and
 * its dump, under --sysroot fixtures/sysroot: the same lookups on the pool
 * and on this thread, with and without the libelf-internals path. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t.h"
#include "symbolize.h"
#include "symbolize_int.h"
#include "input.h"

#define DUMP "fixtures/dumps/fk-inline.prof"
#define PROG "/opt/fk/bin/fk-inline"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *s = NULL;
	long n;
	if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (s = malloc((size_t)n + 1)) &&
	    fread(s, 1, (size_t)n, f) == (size_t)n) {
		s[n] = '\0';
		*len = (size_t)n;
	} else {
		free(s);
		s = NULL;
	}
	if (f)
		fclose(f);
	return s;
}

static struct fk_profile *load(void)
{
	size_t len;
	char *text = slurp(DUMP, &len);
	struct fk_err err;
	fk_err_init(&err, DUMP);
	struct fk_profile *p = text ? fk_profile_new(DUMP) : NULL;
	if (!p) {
		free(text);
		return NULL;
	}
	fk_profile_own(p, text);
	if (fk_profile_parse(p, text, len, &err) != 0) {
		fk_profile_free(p);
		return NULL;
	}
	return p;
}

static const struct fk_symbolize_opts opts = { .sysroot = "fixtures/sysroot" };
static char debug_dir[] = "fixtures/sysroot/usr/lib/debug";
static char *debug_dirs[] = { debug_dir };

static int setup(struct fk_symctx *c, struct fk_profile *p, int internals)
{
	memset(c, 0, sizeof *c);
	c->p = p;
	c->o = &opts;
	c->debug_dirs = debug_dirs;
	c->ndebug_dirs = 1;
	c->elf_internals = internals;
	return fk_modmap_init(c);
}

/* Releases the modules, then the list; the debug folders are ours. */
static void teardown(struct fk_symctx *c)
{
	for (size_t i = 0; i < c->nmods; i++)
		fk_smod_release(&c->mods[i]);
	fk_modmap_release(c);
}

static struct fk_smod *module(struct fk_symctx *c, const char *path)
{
	for (size_t i = 0; i < c->nmods; i++)
		if (strcmp(c->mods[i].path, path) == 0)
			return &c->mods[i];
	return NULL;
}

static int same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static int same_raw(const struct fk_rawres *a, const struct fk_rawres *b)
{
	if (a->kind != b->kind || a->n != b->n || !same_str(a->sym, b->sym) ||
	    !same_str(a->file, b->file) || a->line != b->line || a->start != b->start)
		return 0;
	for (int i = 0; i < a->n; i++)
		if (!same_str(a->dw[i].name, b->dw[i].name) ||
		    !same_str(a->dw[i].linkage, b->dw[i].linkage) ||
		    !same_str(a->dw[i].file, b->dw[i].file) || a->dw[i].line != b->dw[i].line)
			return 0;
	return 1;
}

static void test_states(struct fk_profile *p)
{
	struct fk_symctx c;
	char why[512];
	struct fk_rawres raw;
	T_OK(setup(&c, p, fk_zsect_internals()) == 0, "modules listed");
	struct fk_smod *m = module(&c, PROG), *libc = module(&c,
		"/usr/lib/x86_64-linux-gnu/libc.so.6");
	T_OK(m && libc, "the program and libc are modules");
	if (!m || !libc) {
		teardown(&c);
		return;
	}
	T_EQ_INT(m->state, FK_SMOD_NEW, "a module starts unopened");
	T_EQ_INT(fk_smod_lookup(m, 0x1306, &raw), -1, "no lookup before opening");
	T_EQ_INT(raw.kind, FK_RAW_NONE, "and no result");
	T_EQ_INT(fk_smod_open(m, why, sizeof why), 0, "the program opens");
	T_EQ_INT(m->state, FK_SMOD_OPEN, "opened");
	T_EQ_STR(m->build_id, "45a9b10ec0284cbc000be5ac9356c6d90dec3997", "its build-id");
	T_EQ_INT(fk_smod_reach(m, FK_SMOD_LISTED), 0, "debug file step");
	T_OK(m->state == FK_SMOD_LISTED && m->dw_opened, "DWARF file opened, not begun");
	T_EQ_INT(fk_smod_reach(m, FK_SMOD_TABLED), 0, "symbol table step");
	T_OK(m->state == FK_SMOD_TABLED && m->funcs.n > 0, "symbol table built");
	T_EQ_INT(fk_smod_reach(m, FK_SMOD_READY), 0, "DWARF step");
	T_OK(m->state == FK_SMOD_READY && m->dw && !m->dw_opened, "DWARF index open");
	T_EQ_INT(fk_smod_reach(m, FK_SMOD_READY), 0, "reaching it again is a no-op");
	T_EQ_INT(m->state, FK_SMOD_READY, "still ready");

	/* fk_outer_a's call, inlined twice (fk-inline.c:35, 26, 17). */
	T_EQ_INT(fk_smod_lookup(m, 0x1306, &raw), 0, "lookup in the inline chain");
	T_OK(raw.kind == FK_RAW_DWARF && raw.n == 3, "a DWARF chain of three frames");
	if (raw.kind == FK_RAW_DWARF && raw.n == 3) {
		T_EQ_STR(raw.dw[0].name, "fk_leaf_alloc", "innermost frame");
		T_EQ_STR(raw.dw[1].name, "fk_mid_alloc", "middle frame");
		T_EQ_STR(raw.dw[2].name, "fk_outer_a", "outermost frame");
		T_EQ_INT(raw.dw[0].line, 17, "innermost line from the line table");
		T_EQ_INT(raw.dw[2].line, 35, "outer line from the call site");
	}
	free(raw.dw);
	/* _start has no DWARF: its symbol. */
	T_EQ_INT(fk_smod_lookup(m, 0x120f, &raw), 0, "lookup in _start");
	T_OK(raw.kind == FK_RAW_SYMBOL && same_str(raw.sym, "_start") && !raw.file,
	     "the symbol, without a line");

	/* A module whose file is missing under the root is unusable. */
	T_EQ_INT(fk_smod_open(libc, why, sizeof why), -1, "libc is not in the sysroot");
	T_OK(strstr(why, "no such file") != NULL, "and says so (%s)", why);
	T_EQ_INT(libc->state, FK_SMOD_BAD, "unusable");
	T_EQ_INT(fk_smod_reach(libc, FK_SMOD_READY), -1, "an unusable module takes no step");
	T_EQ_INT(fk_smod_lookup(libc, 0x27249, &raw), -1, "nor lookups");
	teardown(&c);
}

/* Every address of the program in the dump, as module addresses. */
static size_t program_addrs(const struct fk_profile *p, uint64_t *v, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < p->nstacks; i++) {
		for (uint32_t j = 0; j < p->stacks[i].depth && n < max; j++) {
			uint64_t a = p->stacks[i].addrs[j] - (j > 0);
			if (a >= 0x555555554000 && a < 0x555555559000)
				v[n++] = a - 0x555555554000;
		}
	}
	return n;
}

static void test_phases(struct fk_profile *p)
{
	uint64_t addrs[64];
	size_t n = program_addrs(p, addrs, 64);
	T_OK(n >= 8, "addresses of the program (%zu)", n);
	struct fk_rawres pooled[64], here[64];
	memset(pooled, 0, sizeof pooled);
	struct fk_modaddr v[64];
	struct fk_symctx a, b;
	char why[512];
	T_OK(setup(&a, p, fk_zsect_internals()) == 0 && setup(&b, p, 0) == 0, "two contexts");
	struct fk_smod *ma = module(&a, PROG), *mb = module(&b, PROG);
	T_OK(ma && mb && fk_smod_open(ma, why, sizeof why) == 0 &&
	     fk_smod_open(mb, why, sizeof why) == 0, "the program opens twice");
	if (ma && mb && ma->state == FK_SMOD_OPEN && mb->state == FK_SMOD_OPEN) {
		for (size_t i = 0; i < n; i++)
			v[i] = (struct fk_modaddr){ ma, addrs[i], &pooled[i] };
		T_EQ_INT(fk_modpool_lookup(v, n, NULL), 0, "phase one on the pool");
		T_EQ_INT(ma->state, FK_SMOD_READY, "which leaves the module ready");
		size_t same = 0, found = 0;
		for (size_t i = 0; i < n; i++) {
			int rc = fk_smod_lookup(mb, addrs[i], &here[i]);
			found += pooled[i].kind != FK_RAW_NONE;
			same += rc == 0 && same_raw(&pooled[i], &here[i]);
			free(here[i].dw);
		}
		T_EQ_INT(found, n, "the pool looked every address up");
		T_EQ_INT(same, n, "same results on this thread, without libelf internals");
	}
	for (size_t i = 0; i < n; i++)
		free(pooled[i].dw);
	teardown(&a);
	teardown(&b);
}

int main(void)
{
	struct fk_profile *p = load();
	T_OK(p != NULL, "%s parses", DUMP);
	if (p) {
		test_states(p);
		test_phases(p);
		fk_profile_free(p);
	}
	return T_DONE();
}
