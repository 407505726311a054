/* SPDX-License-Identifier: MIT */
/* Fetching a raw heap dump from a running process's hook over HTTP/1.1
 * (libcurl): what `jeprof-raw URL` reads. */
#ifndef FK_FETCH_H
#define FK_FETCH_H

#include <stddef.h>

#include "err.h"

/* Seconds allowed to connect, and for the whole exchange. */
#define FK_FETCH_CONNECT_TIMEOUT 10
#define FK_FETCH_TIMEOUT 300

/* Fetches url into a new malloc'd buffer (*data, *len, NUL after the data;
 * the caller frees it). url is "http://HOST[:PORT][/PATH[?QUERY]]" (HOST a
 * name, an IPv4 address or [IPv6]; PORT 80 by default) or "unix:/SOCKET".
 * Without a path, or with "/", it asks for /internal/heap?format=raw. When
 * FLAMEKIT_TOKEN is set it is sent as "Authorization: Bearer TOKEN".
 * At most FK_MAX_INPUT bytes of body. Returns 0, or -1 with err (a refused
 * connection, a timeout, a non-200 status with the server's sentence). */
int fk_fetch(const char *url, char **data, size_t *len, struct fk_err *err);

struct fk_profile;

/* Whether operand s names a hook ("http://", "unix:") rather than a file. */
int fk_fetch_is_url(const char *s);

/* Fetches url (fk_fetch) and parses the raw dump it serves into a new
 * profile named url, which owns the data (free it with fk_profile_free).
 * NULL with err (err->path should name url) when the fetch fails, the URL
 * serves pprof instead of a dump, or the dump is malformed. */
struct fk_profile *fk_fetch_profile(const char *url, struct fk_err *err);

#endif
