/* SPDX-License-Identifier: MIT */
/* The one grammar of a socket address as flamekit spells it: "HOST:PORT",
 * "[V6ADDR]:PORT" or "unix:PATH" (the hook's FLAMEKIT_HTTP, its Host header
 * check, and the authority of the URLs jeprof-raw fetches). */
#ifndef FK_HOSTPORT_H
#define FK_HOSTPORT_H

#include <stddef.h>

/* An address split into its parts, each pointing into the text split. */
struct fk_hostport {
	const char *path;          /* after "unix:", NULL when not a unix address */
	size_t pathlen;
	const char *host;          /* HOST or V6ADDR without brackets */
	size_t hostlen;
	const char *port;          /* after the colon, NULL when there is none */
	size_t portlen;
	int bracketed;             /* host was "[V6ADDR]" */
};

enum fk_hostport_rc {
	FK_HOSTPORT_OK,
	FK_HOSTPORT_NOCLOSE,       /* "[" without "]" */
	FK_HOSTPORT_JUNK,          /* after "]" neither the end nor ":" */
	FK_HOSTPORT_COLONS,        /* a ':' in an unbracketed host's port */
};

/* Splits s[0..n) into *hp: with unix_ok, "unix:PATH" fills path (possibly
 * empty; without, "unix" is a host like any other); else
 * host and, after the first ':' (after "]" when bracketed), port. Returns an
 * fk_hostport_rc; hp holds what was found even when it is not FK_HOSTPORT_OK
 * (with FK_HOSTPORT_COLONS, host is before the first ':' and port the rest),
 * so that callers check host and port in their order. Lengths (the host may
 * be empty) are the callers' to check. */
int fk_hostport_split(const char *s, size_t n, int unix_ok, struct fk_hostport *hp);

/* The port of hp as a number into *port; -1 when there is none or it is
 * not decimal digits (fk_parse_u64) of a value at most 65535. */
int fk_hostport_port(const struct fk_hostport *hp, unsigned *port);

#endif
