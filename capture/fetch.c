/* SPDX-License-Identifier: MIT */
/* One GET from libflamekit-hook with libcurl, over TCP or a unix socket,
 * with timeouts and a bound on the body: what jeprof-raw reads. The URL
 * rules are ours (a hook's URL, no proxy, no redirect, no user info), the
 * HTTP is libcurl's. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "fetch.h"
#include "grow.h"
#include "hostport.h"
#include "input.h"
#include "limits.h"
#include "profile.h"

#define DEFAULT_PATH "/internal/heap?format=raw"

struct target {
	int unix_sock;
	char host[256];            /* without brackets */
	char port[8];
	char path[2048];
	char hosthdr[300];         /* Host header value */
	char sockpath[108];
};

static int parse_url(const char *url, struct target *t, struct fk_err *err)
{
	struct fk_hostport hp;
	const char *p, *path;
	unsigned port = 80;
	size_t n;
	int rc;

	memset(t, 0, sizeof *t);
	if (strncmp(url, "unix:", 5) == 0) {
		fk_hostport_split(url, strlen(url), 1, &hp);
		if (hp.pathlen == 0)
			return fk_err_set(err, FK_ESYNTAX, 0, "empty unix socket path");
		if (hp.pathlen >= sizeof t->sockpath)
			return fk_err_set(err, FK_ELIMIT, 0, "unix socket path too long");
		memcpy(t->sockpath, hp.path, hp.pathlen + 1);
		t->unix_sock = 1;
		snprintf(t->hosthdr, sizeof t->hosthdr, "localhost");
		snprintf(t->path, sizeof t->path, DEFAULT_PATH);
		return 0;
	}
	if (strncmp(url, "http://", 7) != 0)
		return fk_err_set(err, FK_ESYNTAX, 0, "not an http:// or unix: URL");
	p = url + 7;
	path = p + strcspn(p, "/?#");
	if (*path == '#' || strchr(path, '#'))
		return fk_err_set(err, FK_ESYNTAX, 0, "fragment in URL");
	if (memchr(p, '@', (size_t)(path - p)))
		return fk_err_set(err, FK_EUNSUPP, 0, "user info in URL is not supported");
	/* The authority: HOST[:PORT] or [V6ADDR][:PORT]. */
	rc = fk_hostport_split(p, (size_t)(path - p), 0, &hp);
	if (rc == FK_HOSTPORT_NOCLOSE)
		return fk_err_set(err, FK_ESYNTAX, 0, "bad IPv6 host in URL");
	if (hp.hostlen == 0 || hp.hostlen >= sizeof t->host || rc == FK_HOSTPORT_JUNK)
		return fk_err_set(err, FK_ESYNTAX, 0, "bad host in URL");
	memcpy(t->host, hp.host, hp.hostlen);
	if (hp.port && (rc == FK_HOSTPORT_COLONS || fk_hostport_port(&hp, &port) < 0 || port == 0))
		return fk_err_set(err, FK_ESYNTAX, 0, "bad port in URL");
	snprintf(t->port, sizeof t->port, "%u", port);
	n = (size_t)(path - p);
	if (n >= sizeof t->hosthdr)
		return fk_err_set(err, FK_ESYNTAX, 0, "host too long in URL");
	memcpy(t->hosthdr, p, n);
	if (*path == '\0' || strcmp(path, "/") == 0) {
		snprintf(t->path, sizeof t->path, DEFAULT_PATH);
	} else if (path[strspn(path, "/")] == '?' && strspn(path, "/") <= 1) {
		/* "HOST/?pid=W" or "HOST?pid=W": the dump, with these parameters
		 * (the raw one unless they name a format). */
		const char *q = path + strspn(path, "/") + 1;
		int fmt = strncmp(q, "format=", 7) == 0 || strstr(q, "&format=");

		if (strlen(q) + sizeof DEFAULT_PATH + 1 > sizeof t->path)
			return fk_err_set(err, FK_ELIMIT, 0, "URL path too long");
		snprintf(t->path, sizeof t->path, "/internal/heap?%s%s%s", fmt ? "" : "format=raw",
			 !fmt && *q ? "&" : "", q);
	} else {
		size_t pl = strlen(path), lead = *path == '?';

		if (pl + lead >= sizeof t->path)
			return fk_err_set(err, FK_ELIMIT, 0, "URL path too long");
		t->path[0] = '/';
		memcpy(t->path + lead, path, pl + 1);
	}
	for (const char *q = t->path; *q; q++)
		if ((unsigned char)*q <= ' ' || *q == 0x7f)
			return fk_err_set(err, FK_ESYNTAX, 0, "space or control byte in URL");
	return 0;
}

/* The body, gathered up to FK_MAX_INPUT bytes. */
struct body {
	char *p;
	size_t len, cap;
	int too_big;
};

static size_t on_data(char *ptr, size_t size, size_t nmemb, void *ud)
{
	struct body *b = ud;
	size_t n = size * nmemb;

	if (n > FK_MAX_INPUT - 1 - b->len) {
		b->too_big = 1;
		return 0;
	}
	if (fk_append(&b->p, &b->len, &b->cap, ptr, n) < 0)
		return 0;
	return n;
}

/* The error of a failed transfer, in the words users saw before. */
static int transfer_error(CURL *h, CURLcode rc, const struct body *b, struct fk_err *err)
{
	long oserr = 0;
	curl_off_t want = -1, got = 0;

	switch (rc) {
	case CURLE_COULDNT_CONNECT:
	case CURLE_COULDNT_RESOLVE_HOST:
		curl_easy_getinfo(h, CURLINFO_OS_ERRNO, &oserr);
		if (rc == CURLE_COULDNT_RESOLVE_HOST)
			return fk_err_set(err, FK_EIO, 0, "cannot resolve the host");
		return fk_err_set(err, FK_EIO, 0, "cannot connect: %s",
				  oserr ? strerror((int)oserr) : "refused");
	case CURLE_OPERATION_TIMEDOUT:
		return fk_err_set(err, FK_EIO, 0, "timed out after %d seconds", FK_FETCH_TIMEOUT);
	case CURLE_WRITE_ERROR:
		if (b->too_big)
			return fk_err_set(err, FK_ELIMIT, 0, "response larger than %llu bytes",
					  (unsigned long long)FK_MAX_INPUT);
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	case CURLE_PARTIAL_FILE:
		curl_easy_getinfo(h, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &want);
		curl_easy_getinfo(h, CURLINFO_SIZE_DOWNLOAD_T, &got);
		if (want < 0)
			return fk_err_set(err, FK_EIO, 0, "truncated HTTP response");
		return fk_err_set(err, FK_EIO, 0, "response truncated after %lld of %lld bytes",
				  (long long)got, (long long)want);
	case CURLE_UNSUPPORTED_PROTOCOL:
		return fk_err_set(err, FK_ESYNTAX, 0, "not an HTTP response");
	case CURLE_GOT_NOTHING:
		return fk_err_set(err, FK_EIO, 0, "the server closed the connection without answering");
	default:
		return fk_err_set(err, FK_EIO, 0, "bad HTTP response (libcurl: %s)",
				  curl_easy_strerror(rc));
	}
}

/* A non-200 answer: its status and the server's sentence. */
static int status_error(long status, const struct body *b, struct fk_err *err)
{
	char q[256];
	size_t m = 0;

	while (m < b->len && m < 200 && b->p[m] != '\n')
		m++;
	snprintf(q, sizeof q, "%.*s", (int)m, b->p ? b->p : "");
	for (char *c = q; *c; c++)
		if ((unsigned char)*c < ' ')
			*c = ' ';
	return fk_err_set(err, FK_EIO, 0, "HTTP %03ld: %s", status, m ? q : "(no message)");
}

int fk_fetch(const char *url, char **data, size_t *len, struct fk_err *err)
{
	struct target t;
	const char *token = getenv("FLAMEKIT_TOKEN");
	struct curl_slist *hdrs = NULL, *h1;
	struct body b = { 0 };
	char full[2600], auth[1100];
	CURLcode rc;
	long status = 0;
	CURL *h;
	int ret = 0;

	if (parse_url(url, &t, err) < 0)
		return -1;
	if (token && (strpbrk(token, "\r\n") || strlen(token) > 1024))
		return fk_err_set(err, FK_ESYNTAX, 0, "bad FLAMEKIT_TOKEN");
	snprintf(full, sizeof full, "http://%s%s", t.unix_sock ? "localhost" : t.hosthdr, t.path);
	if (curl_global_init(CURL_GLOBAL_NOTHING) != CURLE_OK || !(h = curl_easy_init()))
		return fk_err_set(err, FK_ENOMEM, 0, "cannot start libcurl");
	h1 = curl_slist_append(NULL, "Connection: close");
	if (h1 && token && *token) {
		snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
		hdrs = curl_slist_append(h1, auth);
	} else {
		hdrs = h1;
	}
	curl_easy_setopt(h, CURLOPT_URL, full);
	if (t.unix_sock)
		curl_easy_setopt(h, CURLOPT_UNIX_SOCKET_PATH, t.sockpath);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http");
	curl_easy_setopt(h, CURLOPT_NOPROXY, "*");
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, (long)FK_FETCH_CONNECT_TIMEOUT);
	curl_easy_setopt(h, CURLOPT_TIMEOUT, (long)FK_FETCH_TIMEOUT);
	curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)(FK_MAX_INPUT - 1));
	curl_easy_setopt(h, CURLOPT_USERAGENT, "flamekit/" FK_VERSION);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &b);
	rc = curl_easy_perform(h);
	if (rc == CURLE_FILESIZE_EXCEEDED) {
		b.too_big = 1;
		rc = CURLE_WRITE_ERROR;
	}
	if (rc != CURLE_OK)
		ret = transfer_error(h, rc, &b, err);
	else if (curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status), status != 200)
		ret = status_error(status, &b, err);
	curl_easy_cleanup(h);
	curl_slist_free_all(hdrs);
	if (ret < 0) {
		free(b.p);
		return -1;
	}
	if (!b.p && !(b.p = calloc(1, 1)))
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	*data = b.p;
	*len = b.len;
	return 0;
}

int fk_fetch_is_url(const char *s)
{
	return strncmp(s, "http://", 7) == 0 || strncmp(s, "unix:", 5) == 0;
}

struct fk_profile *fk_fetch_profile(const char *url, struct fk_err *err)
{
	struct fk_profile *p = fk_profile_new(url);
	char *data;
	size_t len;

	if (!p)
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory"), NULL;
	if (fk_fetch(url, &data, &len, err) < 0) {
		fk_profile_free(p);
		return NULL;
	}
	fk_profile_own(p, data);
	if (len >= 2 && (unsigned char)data[0] == 0x1f && (unsigned char)data[1] == 0x8b) {
		/* /debug/pprof/heap and ?format=pprof serve pprof, not a dump. */
		fk_err_set(err, FK_EUNSUPP, 0, "this URL serves a pprof profile, not a raw "
			   "dump: give the hook's base URL (http://HOST:PORT), from which "
			   "jeprof-raw fetches /internal/heap?format=raw");
		fk_profile_free(p);
		return NULL;
	}
	if (fk_profile_parse(p, data, len, err) < 0) {
		fk_profile_free(p);
		return NULL;
	}
	return p;
}
