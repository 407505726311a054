/* A minimal HTTP/1.1 client for one GET (RFC 9112: status line, header
 * fields, Content-Length or chunked body, or a body ended by close), over
 * TCP or a unix socket, with a deadline on every wait and a bound on every
 * size. Used by jeprof-raw to read a dump from libflamekit-hook. */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "fetch.h"
#include "limits.h"
#include "num.h"

#define DEFAULT_PATH "/internal/heap?format=raw"
/* The status line and header fields together. */
#define MAX_HEAD (64 * 1024)

struct target {
	int unix_sock;
	char host[256];            /* without brackets */
	char port[8];
	char path[2048];
	char hosthdr[300];         /* Host header value */
	char sockpath[108];
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int parse_url(const char *url, struct target *t, struct fk_err *err)
{
	const char *p, *hend, *path;
	size_t n;

	memset(t, 0, sizeof *t);
	if (strncmp(url, "unix:", 5) == 0) {
		n = strlen(url + 5);
		if (n == 0)
			return fk_err_set(err, FK_ESYNTAX, 0, "empty unix socket path");
		if (n >= sizeof t->sockpath)
			return fk_err_set(err, FK_ELIMIT, 0, "unix socket path too long");
		memcpy(t->sockpath, url + 5, n + 1);
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
	if (*p == '[') {
		const char *close = memchr(p, ']', (size_t)(path - p));

		if (!close)
			return fk_err_set(err, FK_ESYNTAX, 0, "bad IPv6 host in URL");
		n = (size_t)(close - p - 1);
		if (n == 0 || n >= sizeof t->host)
			return fk_err_set(err, FK_ESYNTAX, 0, "bad host in URL");
		memcpy(t->host, p + 1, n);
		hend = close + 1;
	} else {
		hend = memchr(p, ':', (size_t)(path - p));
		if (!hend)
			hend = path;
		n = (size_t)(hend - p);
		if (n == 0 || n >= sizeof t->host)
			return fk_err_set(err, FK_ESYNTAX, 0, "bad host in URL");
		memcpy(t->host, p, n);
	}
	if (hend < path && *hend == ':') {
		uint64_t port;

		n = (size_t)(path - hend - 1);
		if (fk_parse_u64(hend + 1, n, &port) < 0 || port == 0 || port > 65535)
			return fk_err_set(err, FK_ESYNTAX, 0, "bad port in URL");
		snprintf(t->port, sizeof t->port, "%u", (unsigned)port);
	} else if (hend != path) {
		return fk_err_set(err, FK_ESYNTAX, 0, "bad host in URL");
	} else {
		snprintf(t->port, sizeof t->port, "80");
	}
	n = (size_t)(path - p);
	if (n >= sizeof t->hosthdr)
		return fk_err_set(err, FK_ESYNTAX, 0, "host too long in URL");
	memcpy(t->hosthdr, p, n);
	if (*path == '\0' || strcmp(path, "/") == 0) {
		snprintf(t->path, sizeof t->path, DEFAULT_PATH);
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

/* Waits until fd is ready for events or the deadline passes. */
static int wait_fd(int fd, short events, double deadline, const char *what,
		   struct fk_err *err)
{
	for (;;) {
		struct pollfd pf = { .fd = fd, .events = events };
		double left = deadline - now_s();
		int rc;

		if (left <= 0)
			return fk_err_set(err, FK_EIO, 0, "timed out %s", what);
		rc = poll(&pf, 1, (int)(left * 1000.0) + 1);
		if (rc > 0)
			return 0;
		if (rc < 0 && errno != EINTR)
			return fk_err_set(err, FK_EIO, 0, "poll: %s", strerror(errno));
	}
}

static int connect_one(int family, const struct sockaddr *sa, socklen_t len,
		       double deadline, struct fk_err *err)
{
	int fd, e = 0;
	socklen_t elen = sizeof e;

	fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return fk_err_set(err, FK_EIO, 0, "socket: %s", strerror(errno));
	if (connect(fd, sa, len) == 0)
		return fd;
	if (errno != EINPROGRESS && errno != EAGAIN) {
		e = errno;
		goto fail;
	}
	if (wait_fd(fd, POLLOUT, deadline, "connecting", err) < 0) {
		close(fd);
		return -1;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &elen) < 0)
		e = errno;
	if (e == 0)
		return fd;
fail:
	close(fd);
	return fk_err_set(err, FK_EIO, 0, "cannot connect: %s", strerror(e));
}

static int connect_target(const struct target *t, struct fk_err *err)
{
	double deadline = now_s() + FK_FETCH_CONNECT_TIMEOUT;
	struct addrinfo hints, *res, *ai;
	int fd = -1, rc;

	if (t->unix_sock) {
		struct sockaddr_un un;

		memset(&un, 0, sizeof un);
		un.sun_family = AF_UNIX;
		memcpy(un.sun_path, t->sockpath, strlen(t->sockpath) + 1);
		return connect_one(AF_UNIX, (struct sockaddr *)&un, sizeof un, deadline, err);
	}
	memset(&hints, 0, sizeof hints);
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	rc = getaddrinfo(t->host, t->port, &hints, &res);
	if (rc != 0)
		return fk_err_set(err, FK_EIO, 0, "cannot resolve '%s': %s", t->host, gai_strerror(rc));
	for (ai = res; ai; ai = ai->ai_next) {
		fd = connect_one(ai->ai_family, ai->ai_addr, ai->ai_addrlen, deadline, err);
		if (fd >= 0)
			break;
	}
	freeaddrinfo(res);
	return fd;
}

static int send_all(int fd, const char *p, size_t n, double deadline, struct fk_err *err)
{
	while (n > 0) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w > 0) {
			p += w;
			n -= (size_t)w;
		} else if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
			if (wait_fd(fd, POLLOUT, deadline, "sending the request", err) < 0)
				return -1;
		} else {
			return fk_err_set(err, FK_EIO, 0, "send: %s", strerror(errno));
		}
	}
	return 0;
}

/* Reads until EOF into a growing buffer of at most max bytes. */
static int recv_all(int fd, char **buf, size_t *len, size_t max, double deadline,
		    struct fk_err *err)
{
	size_t cap = 65536, n = 0;
	char *b = malloc(cap + 1);

	if (!b)
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	for (;;) {
		ssize_t r;

		if (n == cap) {
			char *nb;

			if (cap >= max) {
				free(b);
				return fk_err_set(err, FK_ELIMIT, 0, "response larger than %zu bytes", max);
			}
			cap = cap > max / 2 ? max : cap * 2;
			nb = realloc(b, cap + 1);
			if (!nb) {
				free(b);
				return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
			}
			b = nb;
		}
		r = recv(fd, b + n, cap - n, 0);
		if (r > 0) {
			n += (size_t)r;
		} else if (r == 0) {
			break;
		} else if (errno == EAGAIN || errno == EINTR) {
			if (wait_fd(fd, POLLIN, deadline, "reading the response", err) < 0) {
				free(b);
				return -1;
			}
		} else {
			int e = errno;

			free(b);
			return fk_err_set(err, FK_EIO, 0, "recv: %s", strerror(e));
		}
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}

/* Decodes a chunked body in place (RFC 9112 section 7.1); trailers ignored. */
static int dechunk(char *b, size_t n, size_t *out, struct fk_err *err)
{
	size_t r = 0, w = 0;

	for (;;) {
		size_t e = r;
		uint64_t sz;

		while (e < n && b[e] != '\r' && b[e] != ';')
			e++;
		if (e >= n || fk_parse_hex(b + r, e - r, 0, &sz) < 0)
			return fk_err_set(err, FK_ESYNTAX, 0, "bad chunk size in response");
		while (e + 1 < n && !(b[e] == '\r' && b[e + 1] == '\n'))
			e++;
		if (e + 1 >= n)
			return fk_err_set(err, FK_ESYNTAX, 0, "truncated chunked response");
		r = e + 2;
		if (sz == 0)
			break;
		if (sz > n - r || n - r - sz < 2)
			return fk_err_set(err, FK_ESYNTAX, 0, "truncated chunked response");
		memmove(b + w, b + r, sz);
		w += sz;
		r += sz + 2;
	}
	*out = w;
	return 0;
}

/* Finds header field name in head[0..n) (lines end with CRLF); returns its
 * value trimmed, not NUL-terminated, or NULL. */
static const char *header(const char *head, size_t n, const char *name, size_t *vlen)
{
	size_t nl = strlen(name);
	const char *p = memchr(head, '\n', n), *end = head + n;

	while (p && p + 1 < end) {
		const char *line = p + 1, *eol = memchr(line, '\n', (size_t)(end - line));

		if (!eol)
			break;
		if ((size_t)(eol - line) > nl && strncasecmp(line, name, nl) == 0 && line[nl] == ':') {
			const char *v = line + nl + 1, *ve = eol;

			while (v < ve && (*v == ' ' || *v == '\t'))
				v++;
			while (ve > v && (ve[-1] == '\r' || ve[-1] == ' ' || ve[-1] == '\t'))
				ve--;
			*vlen = (size_t)(ve - v);
			return v;
		}
		p = eol;
	}
	return NULL;
}

static int parse_response(char *buf, size_t n, char **data, size_t *len, struct fk_err *err)
{
	char *hend = NULL, *body;
	size_t hlen, blen, vlen;
	const char *v;
	uint64_t status, clen;

	for (size_t i = 0; i + 3 < n && i < MAX_HEAD; i++) {
		if (buf[i] == '\r' && memcmp(buf + i, "\r\n\r\n", 4) == 0) {
			hend = buf + i;
			break;
		}
	}
	if (n < 12 || strncmp(buf, "HTTP/1.", 7) != 0)
		return fk_err_set(err, FK_ESYNTAX, 0, "not an HTTP response");
	if (!hend)
		return fk_err_set(err, FK_ESYNTAX, 0, "truncated or oversized HTTP header");
	if (fk_parse_u64(buf + 9, 3, &status) < 0)
		return fk_err_set(err, FK_ESYNTAX, 0, "bad HTTP status line");
	hlen = (size_t)(hend - buf) + 2;
	body = hend + 4;
	blen = n - (size_t)(body - buf);
	if ((v = header(buf, hlen, "Transfer-Encoding", &vlen)) && vlen >= 7 &&
	    strncasecmp(v + vlen - 7, "chunked", 7) == 0) {
		if (dechunk(body, blen, &blen, err) < 0)
			return -1;
	} else if ((v = header(buf, hlen, "Content-Length", &vlen))) {
		if (fk_parse_u64(v, vlen, &clen) < 0)
			return fk_err_set(err, FK_ESYNTAX, 0, "bad Content-Length in response");
		/* An error status is reported even when its body was cut. */
		if (clen > blen && status == 200)
			return fk_err_set(err, FK_EIO, 0, "response truncated after %zu of %llu bytes",
					  blen, (unsigned long long)clen);
		if (clen < blen)
			blen = (size_t)clen;
	}
	if (status != 200) {
		size_t m = strcspn(body, "\r\n");
		char q[256];

		if (m > blen)
			m = blen;
		if (m > 200)
			m = 200;
		snprintf(q, sizeof q, "%.*s", (int)m, body);
		for (char *c = q; *c; c++)
			if ((unsigned char)*c < ' ')
				*c = ' ';
		return fk_err_set(err, FK_EIO, 0, "HTTP %03u: %s", (unsigned)status,
				  m ? q : "(no message)");
	}
	memmove(buf, body, blen);
	buf[blen] = '\0';
	*data = buf;
	*len = blen;
	return 0;
}

int fk_fetch(const char *url, char **data, size_t *len, struct fk_err *err)
{
	struct target t;
	const char *token = getenv("FLAMEKIT_TOKEN");
	char *req = NULL, *buf = NULL;
	size_t n = 0;
	double deadline;
	int fd, rc;

	if (parse_url(url, &t, err) < 0)
		return -1;
	if (token && (strpbrk(token, "\r\n") || strlen(token) > 1024))
		return fk_err_set(err, FK_ESYNTAX, 0, "bad FLAMEKIT_TOKEN");
	fd = connect_target(&t, err);
	if (fd < 0)
		return -1;
	deadline = now_s() + FK_FETCH_TIMEOUT;
	rc = asprintf(&req, "GET %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: flamekit/" FK_VERSION
		      "\r\nAccept: */*\r\nConnection: close\r\n%s%s%s\r\n",
		      t.path, t.hosthdr, token && *token ? "Authorization: Bearer " : "",
		      token && *token ? token : "", token && *token ? "\r\n" : "");
	if (rc < 0) {
		close(fd);
		return fk_err_set(err, FK_ENOMEM, 0, "out of memory");
	}
	rc = send_all(fd, req, strlen(req), deadline, err);
	free(req);
	if (rc == 0) {
		/* No half-close: libmicrohttpd takes it for an aborted request. */
		rc = recv_all(fd, &buf, &n, FK_MAX_INPUT, deadline, err);
	}
	close(fd);
	if (rc < 0)
		return -1;
	if (parse_response(buf, n, data, len, err) < 0) {
		free(buf);
		return -1;
	}
	return 0;
}
