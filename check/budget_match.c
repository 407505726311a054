/* SPDX-License-Identifier: MIT */
/* The budget line a stack counts toward: the first line whose fnmatch(3)
 * glob matches one of its frames (man/heap-check.1, "Budget files"). That
 * is the least of its frames' first lines, so each distinct frame name is
 * matched once and remembered; a pattern without wildcards matches only
 * its own text, so those lines are found by hash and only the glob lines
 * are tried against a new name. */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "heapcheck.h"
#include "strtab.h"
#include "u64map.h"

/* A glob line, with the bytes every name it matches starts and ends with,
 * and holds between them: most names fail those before fnmatch is asked. */
struct glob {
	const char *pattern;
	const char *prefix, *suffix, *mid;
	size_t plen, slen, mlen;
	uint32_t line;
};

struct fk_budget_match {
	uint32_t n;                    /* the budget's lines; also "no line" */
	struct fk_arena *arena;
	struct fk_strtab *text;        /* literal lines' texts and frame names */
	struct fk_u64map literal;      /* interned text -> the first literal line of it */
	struct fk_u64map first;        /* interned frame name -> its first line, or n */
	struct glob *globs;            /* in line order */
	size_t nglobs;
};

/* Writes to out what pattern p matches literally before its first
 * wildcard, with the backslashes that quote a character removed, and its
 * length to *len. Returns 1 when that is the whole pattern (p then matches
 * exactly that text), 0 when '*', '?', '[' or a last backslash (which
 * never matches) ends it. In the C locale fnmatch compares the other
 * bytes as they are. */
static int literal_part(const char *p, char *out, size_t *len)
{
	size_t n = 0;
	int whole = 0;

	for (;; p++) {
		if (*p == '\0') {
			whole = 1;
			break;
		}
		if (*p == '*' || *p == '?' || *p == '[' || (*p == '\\' && *++p == '\0'))
			break;
		out[n++] = *p;
	}
	*len = n;
	return whole;
}

/* The length of the pattern p's last run of bytes that are none of
 * '*', '?', '[', ']' and '\\': every name p matches ends with it (a run
 * that a backslash starts is that escape's character and what follows it;
 * no bracket expression is open at the end of a pattern, and an unclosed
 * '[' matches itself). */
static size_t literal_tail(const char *p, size_t len)
{
	size_t n = 0;

	while (n < len && !strchr("*?[]\\", p[len - n - 1]))
		n++;
	return n;
}

/* When the glob g has no wildcard but '*' (and no backslash), its longest
 * run of bytes between two '*'s: the runs of such a pattern appear in a
 * name it matches in their order, between its prefix and its suffix. */
static void middle(struct glob *g, size_t len)
{
	const char *p = g->pattern;
	size_t i = g->plen, b;

	if (strpbrk(p, "?[]\\"))
		return;
	while (i < len - g->slen) {
		for (b = i; i < len - g->slen && p[i] != '*'; i++)
			;
		if (i - b > g->mlen) {
			g->mid = p + b;
			g->mlen = i - b;
		}
		i++;
	}
}

void fk_budget_match_free(struct fk_budget_match *m)
{
	if (!m)
		return;
	fk_u64map_release(&m->literal);
	fk_u64map_release(&m->first);
	fk_strtab_free(m->text);
	fk_arena_free(m->arena);
	free(m->globs);
	free(m);
}

struct fk_budget_match *fk_budget_match_new(const struct fk_budget *b)
{
	struct fk_budget_match *m = calloc(1, sizeof *m);
	size_t i, len;

	if (!m)
		return NULL;
	m->n = (uint32_t)b->n;
	fk_u64map_init(&m->literal);
	fk_u64map_init(&m->first);
	if (!(m->arena = fk_arena_new()) || !(m->text = fk_strtab_new(m->arena)) ||
	    !(m->globs = malloc((b->n ? b->n : 1) * sizeof *m->globs)))
		goto fail;
	for (i = 0; i < b->n; i++) {
		const char *pat = b->v[i].pattern, *t;
		size_t plen = strlen(pat), tail;
		char *lit = fk_arena_alloc(m->arena, plen + 1);

		if (!lit)
			goto fail;
		if (literal_part(pat, lit, &len)) {
			/* Two lines can quote one text differently: the first
			 * keeps it. */
			if (!(t = fk_strtab_intern(m->text, lit, len)) ||
			    fk_u64map_add(&m->literal, (uintptr_t)t, (uint32_t)i, NULL) < 0)
				goto fail;
			continue;
		}
		tail = literal_tail(pat, plen);
		m->globs[m->nglobs] = (struct glob){ pat, lit, pat + plen - tail, NULL, len, tail,
						     0, (uint32_t)i };
		middle(&m->globs[m->nglobs++], plen);
	}
	return m;
fail:
	fk_budget_match_free(m);
	return NULL;
}

/* Whether name[0..n) has what every name g matches has. Most fail at a
 * first or last byte, before any call. */
static int may_match(const struct glob *g, const char *name, size_t n)
{
	if (g->plen + g->slen > n)
		return 0;
	if (g->plen && (name[0] != g->prefix[0] || memcmp(name, g->prefix, g->plen) != 0))
		return 0;
	if (g->slen && (name[n - 1] != g->suffix[g->slen - 1] ||
			memcmp(name + n - g->slen, g->suffix, g->slen) != 0))
		return 0;
	return !g->mlen || memmem(name + g->plen, n - g->plen - g->slen, g->mid, g->mlen);
}

/* The first line matching the frame name s[0..n), m->n when none does, or
 * -2 when out of memory. */
static long first_line(struct fk_budget_match *m, const char *s, size_t n)
{
	const char *name, *nul = memchr(s, '\0', n);
	uint32_t line;
	size_t i;

	/* fnmatch reads a name up to a NUL byte: so does the lookup. */
	if (nul)
		n = (size_t)(nul - s);
	if (!(name = fk_strtab_intern(m->text, s, n)))
		return -2;
	if ((line = fk_u64map_get(&m->first, (uintptr_t)name)) != UINT32_MAX)
		return line;
	if ((line = fk_u64map_get(&m->literal, (uintptr_t)name)) == UINT32_MAX)
		line = m->n;
	for (i = 0; i < m->nglobs && m->globs[i].line < line; i++) {
		const struct glob *g = &m->globs[i];

		if (may_match(g, name, n) && fnmatch(g->pattern, name, 0) == 0) {
			line = g->line;
			break;
		}
	}
	if (fk_u64map_put(&m->first, (uintptr_t)name, line) < 0)
		return -2;
	return line;
}

long fk_budget_match_stack(struct fk_budget_match *m, const char *stack, size_t len)
{
	long best = m->n, l;
	size_t s = 0, e;

	/* Every frame, an empty one before, between or after ';' too. */
	while (best > 0) {
		const char *semi = memchr(stack + s, ';', len - s);

		e = semi ? (size_t)(semi - stack) : len;
		if ((l = first_line(m, stack + s, e - s)) == -2)
			return -2;
		if (l < best)
			best = l;
		if (e == len)
			break;
		s = e + 1;
	}
	return best < (long)m->n ? best : -1;
}
