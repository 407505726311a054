/* SPDX-License-Identifier: MIT */
/* Request admission for the hook's server: which requests may reach a
 * route at all. Rules (libflamekit-hook(3), SECURITY): only GET, HEAD and
 * POST; bounded URL; the bearer token when one is configured, else a peer
 * that is root, the program's user or a user FLAMEKIT_ALLOW names (the
 * peer's user comes from its socket, serve_peer.c); a Host header naming a
 * loopback address unless remote access was allowed (defeats DNS
 * rebinding); a POST is refused when a browser sent it from another
 * origin, as Go's CrossOriginProtection refuses it (defeats CSRF).
 * Exactly one Host header: none, or two that could be read differently by
 * a proxy and by us, is refused. */
#include <microhttpd.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "serve_int.h"

/* Compares without leaking the position of the first difference. */
static int same_secret(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	unsigned char diff = (unsigned char)(na != nb);

	for (size_t i = 0; i < na; i++)
		diff |= (unsigned char)(a[i] ^ b[i % (nb ? nb : 1)]);
	return diff == 0 && nb > 0;
}

/* The credentials of "Authorization: Bearer TOKEN": the scheme matched
 * without case and followed by one or more spaces (RFC 7235, 2.1), or NULL. */
static const char *bearer_token(const char *h)
{
	static const char scheme[] = "Bearer";

	if (!h || strncasecmp(h, scheme, sizeof scheme - 1) != 0 || h[sizeof scheme - 1] != ' ')
		return NULL;
	h += sizeof scheme - 1;
	while (*h == ' ')
		h++;
	return h;
}

/* count_name's state: the header looked for, how many times it came. */
struct counting {
	const char *name;
	unsigned n;
};

static enum MHD_Result count_name(void *cls, enum MHD_ValueKind kind,
				  const char *key, const char *value)
{
	struct counting *k = cls;

	(void)kind;
	(void)value;
	if (key && strcasecmp(key, k->name) == 0)
		k->n++;
	return MHD_YES;
}

/* A connection's headers as fk_guard_admit reads them. */
static const char *conn_get(void *ctx, const char *name)
{
	return MHD_lookup_connection_value(ctx, MHD_HEADER_KIND, name);
}

static unsigned conn_count(void *ctx, const char *name)
{
	struct counting k = { .name = name, .n = 0 };

	MHD_get_connection_values(ctx, MHD_HEADER_KIND, count_name, &k);
	return k.n;
}

int fk_guard_uid_ok(uid_t uid)
{
	const struct fk_guard *g = &fk_env_get()->guard;

	if (uid == 0 || uid == geteuid() || uid == getuid())
		return 1;
	for (unsigned i = 0; i < g->nallow; i++)
		if (g->allow[i] == uid)
			return 1;
	return 0;
}

/* Whether the peer may ask without the token; else why says who may. */
static int peer_ok(const struct fk_peer *peer, char *why, size_t size)
{
	unsigned nallow = fk_env_get()->guard.nallow;
	char others[64] = "";

	if (peer->kind == FK_PEER_LOCAL && fk_guard_uid_ok(peer->uid))
		return 1;
	if (nallow)
		snprintf(others, sizeof others, " and the %u user%s of FLAMEKIT_ALLOW",
			 nallow, nallow > 1 ? "s" : "");
	if (peer->kind == FK_PEER_LOCAL)
		snprintf(why, size, "uid %lu may not use this endpoint: only root, the "
			 "program's user (uid %lu)%s may; FLAMEKIT_ALLOW lets others in",
			 (unsigned long)peer->uid, (unsigned long)geteuid(), others);
	else
		snprintf(why, size, "cannot tell which user is asking (%s): only root, the "
			 "program's user (uid %lu)%s may use this endpoint",
			 peer->kind == FK_PEER_REMOTE ? "a client on another host" :
			 "its socket was not found", (unsigned long)geteuid(), others);
	return 0;
}

/* A browser's request from another origin, refused the way Go's net/http
 * CrossOriginProtection refuses it: Sec-Fetch-Site (sent by every current
 * browser) must say "same-origin" or "none" (typed by the user); without
 * it, an Origin header must name the Host the request went to. A request
 * with neither is not a browser's (curl, scrapers, scripts) and passes. */
static int cross_origin(const struct fk_headers *hd, char *why, size_t size)
{
	const char *site = hd->get(hd->ctx, "Sec-Fetch-Site");
	const char *origin, *host, *o;

	if (site) {
		if (strcmp(site, "same-origin") == 0 || strcmp(site, "none") == 0)
			return 0;
		snprintf(why, size, "cross-origin request refused: Sec-Fetch-Site is '%.20s' "
			 "(a POST must come from the hook's own pages, or from a client that "
			 "is not a browser)", site);
		return 1;
	}
	origin = hd->get(hd->ctx, MHD_HTTP_HEADER_ORIGIN);
	if (!origin)
		return 0;
	host = hd->get(hd->ctx, MHD_HTTP_HEADER_HOST);
	o = strstr(origin, "://");
	if (o && host && strcasecmp(o + 3, host) == 0)
		return 0;
	snprintf(why, size, "cross-origin request refused: its Origin is not the Host it was "
		 "sent to (a POST must come from the hook's own pages, or from a client that "
		 "is not a browser)");
	return 1;
}

static unsigned refuse(unsigned status, const char *msg, char *why, size_t size)
{
	snprintf(why, size, "%s", msg);
	return status;
}

unsigned fk_guard_admit(const struct fk_headers *hd, const struct fk_peer *peer,
			const char *method, const char *url, size_t urilen,
			char *why, size_t size)
{
	const char *h;
	unsigned nhost;
	int post = strcmp(method, "POST") == 0;

	if (!post && strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
		return refuse(MHD_HTTP_METHOD_NOT_ALLOWED,
			      "method not allowed: use GET, or POST for settings", why, size);
	if (urilen > FK_HOOK_MAX_URL || strlen(url) > FK_HOOK_MAX_URL)
		return refuse(MHD_HTTP_URI_TOO_LONG, "request URL too long", why, size);
	if (fk_env_get()->guard.token[0]) {
		/* The token is the owner's grant: whoever holds it may ask. */
		h = bearer_token(hd->get(hd->ctx, MHD_HTTP_HEADER_AUTHORIZATION));
		if (!h || !same_secret(h, fk_env_get()->guard.token))
			return refuse(MHD_HTTP_UNAUTHORIZED, "missing or wrong token: send "
				      "'Authorization: Bearer TOKEN' with the value of "
				      "FLAMEKIT_TOKEN", why, size);
	} else if (peer && !peer_ok(peer, why, size)) {
		return MHD_HTTP_FORBIDDEN;
	}
	nhost = hd->count(hd->ctx, MHD_HTTP_HEADER_HOST);
	if (nhost != 1)
		return refuse(MHD_HTTP_BAD_REQUEST, nhost ? "more than one Host header" :
			      "a Host header is required", why, size);
	if (!fk_env_get()->guard.remote) {
		h = hd->get(hd->ctx, MHD_HTTP_HEADER_HOST);
		if (!h || !fk_host_is_loopback(h, strlen(h)))
			return refuse(MHD_HTTP_FORBIDDEN, "the Host header must name a loopback "
				      "address (localhost, 127.0.0.1 or [::1])", why, size);
	}
	if (post && cross_origin(hd, why, size))
		return MHD_HTTP_FORBIDDEN;
	return 0;
}

unsigned fk_guard_check(struct MHD_Connection *c, const struct fk_peer *peer,
			const char *method, const char *url, size_t urilen,
			char *why, size_t size)
{
	struct fk_headers hd = { .get = conn_get, .count = conn_count, .ctx = c };

	return fk_guard_admit(&hd, peer, method, url, urilen, why, size);
}
