/* SPDX-License-Identifier: MIT */
/* The grammar of a socket address (see hostport.h). */
#include "hostport.h"

#include <stdint.h>
#include <string.h>

#include "num.h"

int fk_hostport_split(const char *s, size_t n, int unix_ok, struct fk_hostport *hp)
{
	const char *end = s + n, *close, *colon;

	memset(hp, 0, sizeof *hp);
	if (unix_ok && n >= 5 && memcmp(s, "unix:", 5) == 0) {
		hp->path = s + 5;
		hp->pathlen = n - 5;
		return FK_HOSTPORT_OK;
	}
	if (n > 0 && s[0] == '[') {
		hp->bracketed = 1;
		if (!(close = memchr(s, ']', n)))
			return FK_HOSTPORT_NOCLOSE;
		hp->host = s + 1;
		hp->hostlen = (size_t)(close - s - 1);
		if (close + 1 == end)
			return FK_HOSTPORT_OK;
		if (close[1] != ':')
			return FK_HOSTPORT_JUNK;
		hp->port = close + 2;
		hp->portlen = (size_t)(end - close - 2);
		return FK_HOSTPORT_OK;
	}
	hp->host = s;
	if (!(colon = memchr(s, ':', n))) {
		hp->hostlen = n;
		return FK_HOSTPORT_OK;
	}
	hp->hostlen = (size_t)(colon - s);
	hp->port = colon + 1;
	hp->portlen = (size_t)(end - colon - 1);
	return memchr(hp->port, ':', hp->portlen) ? FK_HOSTPORT_COLONS : FK_HOSTPORT_OK;
}

int fk_hostport_port(const struct fk_hostport *hp, unsigned *port)
{
	uint64_t v;

	if (!hp->port || fk_parse_u64(hp->port, hp->portlen, &v) < 0 || v > 65535)
		return -1;
	*port = (unsigned)v;
	return 0;
}
