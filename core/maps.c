/* SPDX-License-Identifier: MIT */
/* The /proc/PID/maps format of proc(5): "start-end perms offset dev inode
 * [path]", path possibly with spaces and a " (deleted)" suffix. */
#include "maps.h"

#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "limits.h"
#include "num.h"
#include "strtab.h"

static const char *next_field(const char **pp, const char *end, size_t *len)
{
	const char *p = *pp, *start;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	start = p;
	while (p < end && *p != ' ' && *p != '\t')
		p++;
	*len = (size_t)(p - start);
	*pp = p;
	return start;
}

static int bad(uint64_t lineno, struct fk_err *err, const char *what,
	       const char *s, size_t n)
{
	char q[64];

	return fk_err_set(err, FK_ESYNTAX, lineno, "bad maps line: %s '%s'", what,
			  fk_err_quote(q, sizeof q, s, n));
}

int fk_maps_parse_line(struct fk_profile *p, const char *s, size_t n,
		       uint64_t lineno, struct fk_mapping *m, struct fk_err *err)
{
	const char *end = s + n, *cur = s, *f, *dash, *colon;
	size_t len;
	uint64_t major, minor;

	memset(m, 0, sizeof *m);
	f = next_field(&cur, end, &len);
	dash = memchr(f, '-', len);
	if (!dash || fk_parse_hex(f, (size_t)(dash - f), 0, &m->start) < 0 ||
	    fk_parse_hex(dash + 1, (size_t)(f + len - dash - 1), 0, &m->limit) < 0)
		return bad(lineno, err, "address range", f, len);
	if (m->limit <= m->start)
		return bad(lineno, err, "empty or inverted range", f, len);

	/* gperftools writes '-' for a mapping that is not private ("rw--")
	 * where the kernel writes 's'. */
	f = next_field(&cur, end, &len);
	if (len != 4 || !strchr("r-", f[0]) || !strchr("w-", f[1]) ||
	    !strchr("x-", f[2]) || !strchr("ps-", f[3]))
		return bad(lineno, err, "permissions", f, len);
	memcpy(m->perms, f, 4);

	f = next_field(&cur, end, &len);
	if (fk_parse_hex(f, len, 0, &m->offset) < 0)
		return bad(lineno, err, "offset", f, len);

	f = next_field(&cur, end, &len);
	colon = memchr(f, ':', len);
	if (!colon || fk_parse_hex(f, (size_t)(colon - f), 0, &major) < 0 ||
	    fk_parse_hex(colon + 1, (size_t)(f + len - colon - 1), 0, &minor) < 0 ||
	    major > UINT32_MAX || minor > UINT32_MAX)
		return bad(lineno, err, "device", f, len);
	m->dev_major = (uint32_t)major;
	m->dev_minor = (uint32_t)minor;

	f = next_field(&cur, end, &len);
	if (fk_parse_u64(f, len, &m->inode) < 0)
		return bad(lineno, err, "inode", f, len);

	/* The path is the rest of the line after the blanks: it may hold
	 * spaces of its own. Trailing blanks are padding. */
	while (cur < end && (*cur == ' ' || *cur == '\t'))
		cur++;
	while (end > cur && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	len = (size_t)(end - cur);
	if (len >= 10 && memcmp(end - 10, " (deleted)", 10) == 0) {
		m->deleted = 1;
		len -= 10;
	}
	if (len > FK_MAX_NAME)
		return bad(lineno, err, "path too long", cur, len);
	if (len == 0)
		m->kind = FK_MAP_ANON;
	else if (cur[0] == '/')
		m->kind = FK_MAP_FILE;
	else	/* "[vdso]", "[heap]", "anon_inode:[perf_event]", ... */
		m->kind = FK_MAP_SPECIAL;
	m->path = fk_strtab_intern(p->strs, cur, len);
	if (!m->path)
		return fk_err_set(err, FK_ENOMEM, lineno, "out of memory");
	return 0;
}

int fk_maps_parse(struct fk_profile *p, const char *s, size_t n,
		  uint64_t first_line, struct fk_err *err)
{
	const char *end = s + n;
	uint64_t lineno = first_line;
	size_t cap = p->nmaps;
	void *grown;

	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t len = nl ? (size_t)(nl - s) : (size_t)(end - s);

		if (len > FK_MAX_LINE)
			return fk_err_set(err, FK_ELIMIT, lineno,
					  "line longer than %d bytes", FK_MAX_LINE);
		if (len > 0 && s[len - 1] == '\r')
			return fk_err_set(err, FK_ESYNTAX, lineno,
					  "carriage return at end of line (CRLF line endings)");
		if (len > 0) {
			if (p->nmaps == FK_MAX_MAPPINGS)
				return fk_err_set(err, FK_ELIMIT, lineno,
						  "more than %d mappings", FK_MAX_MAPPINGS);
			grown = fk_grow(p->maps, &cap, p->nmaps, sizeof *p->maps, 64);
			if (!grown)
				return fk_err_set(err, FK_ENOMEM, lineno, "out of memory");
			p->maps = grown;
			if (fk_maps_parse_line(p, s, len, lineno, &p->maps[p->nmaps], err) < 0)
				return -1;
			p->nmaps++;
		}
		lineno++;
		s = nl ? nl + 1 : end;
	}
	return fk_profile_index_maps(p, err);
}

const char *fk_maps_basename(const char *path)
{
	const char *slash;

	if (!path || !*path)
		return "[anon]";
	if (path[0] == '[')
		return path;
	slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}
