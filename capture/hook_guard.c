/* SPDX-License-Identifier: MIT */
/* Request admission for the hook's server: which requests may reach a
 * route at all. Rules (libflamekit-hook(3), SECURITY): only GET, HEAD and
 * POST; bounded URL; the bearer token when one is configured; a Host header
 * naming a loopback address unless remote access was allowed (defeats DNS
 * rebinding); POST carries "X-Flamekit: 1", a header no web page can send
 * cross-site without a CORS preflight, which we never grant (defeats CSRF).
 * Exactly one Host header: none, or two that could be read differently by
 * a proxy and by us, is refused. */
#include <microhttpd.h>
#include <string.h>
#include <strings.h>

#include "hook_int.h"

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

static enum MHD_Result count_host(void *cls, enum MHD_ValueKind kind,
				  const char *key, const char *value)
{
	unsigned *n = cls;

	(void)kind;
	(void)value;
	if (key && strcasecmp(key, MHD_HTTP_HEADER_HOST) == 0)
		(*n)++;
	return MHD_YES;
}

unsigned fk_guard_check(struct MHD_Connection *c, const char *method,
			const char *url, size_t urilen, const char **msg)
{
	const char *h;
	unsigned nhost = 0;
	int post = strcmp(method, "POST") == 0;

	if (!post && strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
		*msg = "method not allowed: use GET, or POST for settings";
		return MHD_HTTP_METHOD_NOT_ALLOWED;
	}
	if (urilen > FK_HOOK_MAX_URL || strlen(url) > FK_HOOK_MAX_URL) {
		*msg = "request URL too long";
		return MHD_HTTP_URI_TOO_LONG;
	}
	if (fk_guard.token[0]) {
		h = bearer_token(MHD_lookup_connection_value(c, MHD_HEADER_KIND,
							     MHD_HTTP_HEADER_AUTHORIZATION));
		if (!h || !same_secret(h, fk_guard.token)) {
			*msg = "missing or wrong token: send 'Authorization: Bearer "
			       "TOKEN' with the value of FLAMEKIT_TOKEN";
			return MHD_HTTP_UNAUTHORIZED;
		}
	}
	MHD_get_connection_values(c, MHD_HEADER_KIND, count_host, &nhost);
	if (nhost != 1) {
		*msg = nhost ? "more than one Host header" : "a Host header is required";
		return MHD_HTTP_BAD_REQUEST;
	}
	if (!fk_guard.remote) {
		h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
		if (!h || !fk_host_is_loopback(h, strlen(h))) {
			*msg = "the Host header must name a loopback address "
			       "(localhost, 127.0.0.1 or [::1])";
			return MHD_HTTP_FORBIDDEN;
		}
	}
	if (post) {
		h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-Flamekit");
		if (!h || strcmp(h, "1") != 0) {
			*msg = "a POST needs the header 'X-Flamekit: 1'";
			return MHD_HTTP_FORBIDDEN;
		}
	}
	return 0;
}
