/* Request admission for the hook's server: which requests may reach a
 * route at all. Rules (libflamekit-hook(3), SECURITY): only GET, HEAD and
 * POST; bounded URL; the bearer token when one is configured; a Host header
 * naming a loopback address unless remote access was allowed (defeats DNS
 * rebinding); POST carries "X-Flamekit: 1", a header no web page can send
 * cross-site without a CORS preflight, which we never grant (defeats CSRF). */
#include <microhttpd.h>
#include <string.h>

#include "hook_int.h"

struct fk_guard fk_guard;

/* Compares without leaking the position of the first difference. */
static int same_secret(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	unsigned char diff = (unsigned char)(na != nb);

	for (size_t i = 0; i < na; i++)
		diff |= (unsigned char)(a[i] ^ b[i % (nb ? nb : 1)]);
	return diff == 0 && nb > 0;
}

unsigned fk_guard_check(struct MHD_Connection *c, const char *method,
			const char *url, size_t urilen, const char **msg)
{
	const char *h;
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
		static const char bearer[] = "Bearer ";

		h = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						MHD_HTTP_HEADER_AUTHORIZATION);
		if (!h || strncmp(h, bearer, sizeof bearer - 1) != 0 ||
		    !same_secret(h + sizeof bearer - 1, fk_guard.token)) {
			*msg = "missing or wrong token: send 'Authorization: Bearer "
			       "TOKEN' with the value of FLAMEKIT_TOKEN";
			return MHD_HTTP_UNAUTHORIZED;
		}
	}
	if (!fk_guard.remote) {
		h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
		if (h && !fk_host_is_loopback(h, strlen(h))) {
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
