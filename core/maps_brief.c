/* SPDX-License-Identifier: MIT */
/* The "--- Memory map: ---" section of Google's legacy profiles (pprof's
 * profile/legacy_profile.go, parseProcMapsFromScanner): /proc/PID/maps
 * lines, brief "START-END: PATH [(@OFFSET)] [BUILDID]" lines, and
 * "NAME=VALUE" lines whose $NAME later lines use. */
#include "maps.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "grow.h"
#include "limits.h"
#include "num.h"
#include "strtab.h"

#define MAX_VARS 16

struct var {
	const char *name, *value;
	size_t nlen, vlen;
};

static int bad(uint64_t lineno, struct fk_err *err, const char *what,
	       const char *s, size_t n)
{
	char q[64];

	return fk_err_set(err, FK_ESYNTAX, lineno, "bad memory map line: %s '%s'", what,
			  fk_err_quote(q, sizeof q, s, n));
}

static int is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Copies s[0..n) into buf with every $NAME of vars replaced; returns the
 * length, or -1 when it does not fit. */
static long expand(const char *s, size_t n, const struct var *vars, size_t nvars,
		   char *buf, size_t size)
{
	size_t i = 0, o = 0, k;

	while (i < n) {
		if (s[i] == '$') {
			for (k = 0; k < nvars; k++)
				if (n - i - 1 >= vars[k].nlen &&
				    memcmp(s + i + 1, vars[k].name, vars[k].nlen) == 0)
					break;
			if (k < nvars) {
				if (vars[k].vlen > size - o)
					return -1;
				memcpy(buf + o, vars[k].value, vars[k].vlen);
				o += vars[k].vlen;
				i += 1 + vars[k].nlen;
				continue;
			}
		}
		if (o == size)
			return -1;
		buf[o++] = s[i++];
	}
	return (long)o;
}

/* A brief line: "[0x]START-[0x]END[:] PATH [(@OFFSET)] [BUILDID]". */
static int parse_brief(struct fk_profile *p, const char *s, size_t n, uint64_t lineno,
		       struct fk_mapping *m, struct fk_err *err)
{
	const char *end = s + n, *t, *path;
	size_t plen;

	memset(m, 0, sizeof *m);
	for (t = s; t < end && *t != '-'; t++)
		;
	if (t == end || fk_parse_hex(s, (size_t)(t - s), 0, &m->start) < 0)
		return bad(lineno, err, "address range", s, n);
	s = t + 1;
	for (t = s; t < end && is_hex(*t); t++)
		;
	if (t < end && (*t == 'x' || *t == 'X') && t == s + 1)
		for (t++; t < end && is_hex(*t); t++)
			;
	if (fk_parse_hex(s, (size_t)(t - s), 0, &m->limit) < 0 || m->limit <= m->start)
		return bad(lineno, err, "address range", s, (size_t)(t - s));
	if (t < end && *t == ':')
		t++;
	if (t < end && *t != ' ' && *t != '\t')
		return bad(lineno, err, "address range", s, n);
	while (t < end && (*t == ' ' || *t == '\t'))
		t++;
	path = t;
	while (t < end && *t != ' ' && *t != '\t')
		t++;
	plen = (size_t)(t - path);
	while (t < end && (*t == ' ' || *t == '\t'))
		t++;
	if (t < end && *t == '(') {
		const char *c = memchr(t, ')', (size_t)(end - t));

		if (!c || c - t < 3 || t[1] != '@' ||
		    fk_parse_hex(t + 2, (size_t)(c - t - 2), 0, &m->offset) < 0)
			return bad(lineno, err, "offset", t, (size_t)(end - t));
		t = c + 1;
		while (t < end && (*t == ' ' || *t == '\t'))
			t++;
	}
	/* A build id may follow; it is hex, and not kept (dumps carry none). */
	while (t < end && is_hex(*t))
		t++;
	while (t < end && (*t == ' ' || *t == '\t'))
		t++;
	if (t != end)
		return bad(lineno, err, "unexpected text", t, (size_t)(end - t));
	if (plen > FK_MAX_NAME)
		return bad(lineno, err, "path too long", path, plen);
	memcpy(m->perms, "r-xp", 4);
	m->kind = plen == 0 ? FK_MAP_ANON : path[0] == '[' ? FK_MAP_SPECIAL : FK_MAP_FILE;
	m->path = fk_strtab_intern(p->strs, path, plen);
	if (!m->path)
		return fk_err_set(err, FK_ENOMEM, lineno, "out of memory");
	return 0;
}

/* Appends to *text (malloc'd) the /proc/PID/maps line of m. */
static int add_text(char **text, size_t *len, size_t *cap, const struct fk_mapping *m,
		    struct fk_err *err, uint64_t lineno)
{
	char line[96];
	int k = snprintf(line, sizeof line, "%llx-%llx %.4s %08llx %02x:%02x %llu ",
			 (unsigned long long)m->start, (unsigned long long)m->limit, m->perms,
			 (unsigned long long)m->offset, m->dev_major, m->dev_minor,
			 (unsigned long long)m->inode);

	if (fk_append(text, len, cap, line, (size_t)k) < 0 ||
	    fk_append(text, len, cap, m->path, strlen(m->path)) < 0 ||
	    fk_append(text, len, cap, "\n", 1) < 0)
		return fk_err_set(err, FK_ENOMEM, lineno, "out of memory");
	return 0;
}

int fk_maps_parse_pprof(struct fk_profile *p, const char *s, size_t n,
			uint64_t first_line, struct fk_err *err)
{
	const char *end = s + n;
	uint64_t lineno = first_line;
	struct var vars[MAX_VARS];
	size_t nvars = 0, cap = p->nmaps, tlen = 0, tcap = 0;
	char *text = NULL, *kept, *buf = malloc(FK_MAX_LINE);
	int rc = -1;

	if (!buf)
		return fk_err_set(err, FK_ENOMEM, first_line, "out of memory");

	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t len = nl ? (size_t)(nl - s) : (size_t)(end - s);
		const char *a = s, *b = s + len, *eq;
		long xl;
		void *grown;

		if (len > FK_MAX_LINE) {
			fk_err_set(err, FK_ELIMIT, lineno, "line longer than %d bytes", FK_MAX_LINE);
			goto out;
		}
		while (a < b && (*a == ' ' || *a == '\t'))
			a++;
		while (b > a && (b[-1] == ' ' || b[-1] == '\t' || b[-1] == '\r'))
			b--;
		eq = memchr(a, '=', (size_t)(b - a));
		if (a == b) {
			/* blank */
		} else if (eq && eq > a && !memchr(a, ' ', (size_t)(eq - a))) {
			if (nvars == MAX_VARS) {
				fk_err_set(err, FK_ELIMIT, lineno, "more than %d variables", MAX_VARS);
				goto out;
			}
			vars[nvars].name = fk_arena_strndup(p->arena, a, (size_t)(eq - a));
			vars[nvars].value = fk_arena_strndup(p->arena, eq + 1, (size_t)(b - eq - 1));
			if (!vars[nvars].name || !vars[nvars].value) {
				fk_err_set(err, FK_ENOMEM, lineno, "out of memory");
				goto out;
			}
			vars[nvars].nlen = (size_t)(eq - a);
			vars[nvars].vlen = (size_t)(b - eq - 1);
			nvars++;
		} else {
			struct fk_mapping *m;
			const char *colon;

			xl = expand(a, (size_t)(b - a), vars, nvars, buf, FK_MAX_LINE);
			if (xl < 0) {
				fk_err_set(err, FK_ELIMIT, lineno, "line longer than %d bytes",
					   FK_MAX_LINE);
				goto out;
			}
			if (p->nmaps == FK_MAX_MAPPINGS) {
				fk_err_set(err, FK_ELIMIT, lineno, "more than %d mappings",
					   FK_MAX_MAPPINGS);
				goto out;
			}
			grown = fk_grow(p->maps, &cap, p->nmaps, sizeof *p->maps, 64);
			if (!grown) {
				fk_err_set(err, FK_ENOMEM, lineno, "out of memory");
				goto out;
			}
			p->maps = grown;
			m = &p->maps[p->nmaps];
			/* The brief form puts a ':' right after the range. */
			colon = memchr(buf, ' ', (size_t)xl);
			colon = colon ? colon : buf + xl;
			if (colon > buf && colon[-1] == ':') {
				if (parse_brief(p, buf, (size_t)xl, lineno, m, err) < 0)
					goto out;
			} else if (fk_maps_parse_line(p, buf, (size_t)xl, lineno, m, err) < 0) {
				goto out;
			}
			if (add_text(&text, &tlen, &tcap, m, err, lineno) < 0)
				goto out;
			p->nmaps++;
		}
		lineno++;
		s = nl ? nl + 1 : end;
	}
	/* Writers copy maps_text: make it the /proc/PID/maps form. */
	kept = tlen ? fk_arena_strndup(p->arena, text, tlen) : NULL;
	if (tlen && !kept) {
		fk_err_set(err, FK_ENOMEM, lineno, "out of memory");
		goto out;
	}
	p->maps_text = kept;
	p->maps_len = tlen;
	rc = fk_profile_index_maps(p, err);
out:
	free(buf);
	free(text);
	return rc;
}
