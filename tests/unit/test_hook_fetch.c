/* SPDX-License-Identifier: MIT */
/* Unit tests of capture/fetch.c against a canned one-shot server in a
 * thread: the request it sends, bodies by length, chunks and close, error
 * statuses with the server's sentence, truncation, garbage, URL errors. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "t.h"
#include "fetch.h"

struct canned {
	int lfd;
	const char *reply;
	char request[4096];
};

static void *serve_once(void *arg)
{
	struct canned *c = arg;
	size_t n = 0;
	int fd = accept(c->lfd, NULL, NULL);

	if (fd < 0)
		return NULL;
	while (n < sizeof c->request - 1) {
		ssize_t r = read(fd, c->request + n, sizeof c->request - 1 - n);

		if (r <= 0)
			break;
		n += (size_t)r;
		c->request[n] = '\0';
		if (strstr(c->request, "\r\n\r\n"))
			break;
	}
	if (write(fd, c->reply, strlen(c->reply)) < 0) {
		/* the client went away: its test reports it */
	}
	close(fd);
	return NULL;
}

static int tcp_listener(int *port)
{
	struct sockaddr_in in;
	socklen_t len = sizeof in;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	memset(&in, 0, sizeof in);
	in.sin_family = AF_INET;
	in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&in, sizeof in) < 0 || listen(fd, 4) < 0)
		return -1;
	getsockname(fd, (struct sockaddr *)&in, &len);
	*port = ntohs(in.sin_port);
	return fd;
}

/* Fetches url from a server answering reply; returns fk_fetch's result
 * with the body or the error message in out. */
static int fetch_canned(const char *path, const char *reply, char *out, size_t outsz,
			struct canned *c)
{
	char url[256];
	pthread_t th;
	struct fk_err err;
	char *data = NULL;
	size_t len = 0;
	int port = 0, rc;

	memset(c, 0, sizeof *c);
	c->reply = reply;
	c->lfd = tcp_listener(&port);
	if (c->lfd < 0)
		return -2;
	snprintf(url, sizeof url, "http://127.0.0.1:%d%s", port, path);
	pthread_create(&th, NULL, serve_once, c);
	fk_err_init(&err, url);
	rc = fk_fetch(url, &data, &len, &err);
	pthread_join(th, NULL);
	close(c->lfd);
	if (rc == 0) {
		snprintf(out, outsz, "%.*s", (int)len, data);
		if (strlen(out) != len)
			snprintf(out, outsz, "(length %zu differs)", len);
		free(data);
	} else {
		snprintf(out, outsz, "%s", err.msg);
	}
	return rc;
}

static const char *url_error(const char *url)
{
	static struct fk_err err;
	char *data;
	size_t len;

	fk_err_init(&err, url);
	if (fk_fetch(url, &data, &len, &err) == 0) {
		free(data);
		return "(fetched)";
	}
	return err.msg;
}

int main(void)
{
	struct canned c;
	char out[512];
	int rc;

	unsetenv("FLAMEKIT_TOKEN");
	rc = fetch_canned("", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", out, sizeof out, &c);
	T_OK(rc == 0 && strcmp(out, "hello") == 0, "body by Content-Length ('%s')", out);
	T_OK(strncmp(c.request, "GET /internal/heap?format=raw HTTP/1.1\r\n", 40) == 0,
	     "no path asks for the raw dump");
	T_OK(strstr(c.request, "\r\nHost: 127.0.0.1:") != NULL, "Host header sent");
	T_OK(strstr(c.request, "\r\nConnection: close\r\n") != NULL, "Connection: close sent");
	T_OK(strstr(c.request, "Authorization") == NULL, "no token, no Authorization");

	rc = fetch_canned("/", "HTTP/1.1 200 OK\r\ncontent-length:  3 \r\n\r\nabcdef", out, sizeof out, &c);
	T_OK(rc == 0 && strcmp(out, "abc") == 0, "lowercase header, extra bytes ignored ('%s')", out);
	T_OK(strncmp(c.request, "GET /internal/heap?format=raw ", 30) == 0, "'/' asks for the raw dump");

	setenv("FLAMEKIT_TOKEN", "tok3n", 1);
	rc = fetch_canned("/debug/pprof/heap?seconds=1",
			  "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
			  "4\r\nheap\r\n6;ext=1\r\n_v2/16\r\n0\r\n\r\n", out, sizeof out, &c);
	T_OK(rc == 0 && strcmp(out, "heap_v2/16") == 0, "chunked body ('%s')", out);
	T_OK(strncmp(c.request, "GET /debug/pprof/heap?seconds=1 HTTP/1.1", 40) == 0,
	     "explicit path and query kept");
	T_OK(strstr(c.request, "\r\nAuthorization: Bearer tok3n\r\n") != NULL,
	     "FLAMEKIT_TOKEN sent as a bearer token");
	unsetenv("FLAMEKIT_TOKEN");

	rc = fetch_canned("?format=raw", "HTTP/1.0 200 OK\r\n\r\nuntil close", out, sizeof out, &c);
	T_OK(rc == 0 && strcmp(out, "until close") == 0, "body ended by close ('%s')", out);
	T_OK(strncmp(c.request, "GET /internal/heap?format=raw ", 30) == 0,
	     "a bare query asks the dump route ('%.29s')", c.request);
	rc = fetch_canned("/?pid=12", "HTTP/1.0 200 OK\r\n\r\nw", out, sizeof out, &c);
	T_OK(rc == 0 && strncmp(c.request, "GET /internal/heap?format=raw&pid=12 ", 37) == 0,
	     "'/?pid=W' asks for that process's raw dump ('%.36s')", c.request);

	rc = fetch_canned("", "HTTP/1.1 409 Conflict\r\nContent-Length: 57\r\n\r\n"
			  "sampling is not active: turn it on with curl -X POST ...\n", out, sizeof out, &c);
	T_OK(rc < 0, "409 fails");
	T_EQ_STR(out, "HTTP 409: sampling is not active: turn it on with curl -X POST ...",
		 "409 carries the server's sentence");
	rc = fetch_canned("", "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort", out, sizeof out, &c);
	T_OK(rc < 0, "truncated body fails");
	T_EQ_STR(out, "response truncated after 5 of 100 bytes", "truncation message");
	/* Answers that fail, each with its one message. */
	{
		static const struct { const char *answer, *msg, *what; } bad[] = {
			{ "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n",
			  "HTTP 503: (no message)", "an empty error body" },
			{ "SSH-2.0-OpenSSH_9.2\r\n", "not an HTTP response", "garbage answer" },
			{ "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n", "truncated HTTP response",
			  "header never ends" },
			{ "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nab\r\n0\r\n\r\n",
			  "bad HTTP response (libcurl: Failure when receiving data from the peer)",
			  "bad chunk size" },
			{ "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nab",
			  "truncated HTTP response", "truncated chunk" },
			{ "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\nab",
			  "bad HTTP response (libcurl: Weird server reply)", "negative Content-Length" },
		};

		for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
			fetch_canned("", bad[i].answer, out, sizeof out, &c);
			T_EQ_STR(out, bad[i].msg, bad[i].what);
		}
	}

	/* A unix socket. */
	{
		char dir[] = "/tmp/fk-fetch-XXXXXX", url[200];
		struct sockaddr_un un;
		struct fk_err err;
		pthread_t th;
		char *data = NULL;
		size_t len = 0;

		if (mkdtemp(dir)) {
			memset(&c, 0, sizeof c);
			memset(&un, 0, sizeof un);
			un.sun_family = AF_UNIX;
			snprintf(un.sun_path, sizeof un.sun_path, "%s/s", dir);
			c.lfd = socket(AF_UNIX, SOCK_STREAM, 0);
			bind(c.lfd, (struct sockaddr *)&un, sizeof un);
			listen(c.lfd, 4);
			c.reply = "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nunix";
			pthread_create(&th, NULL, serve_once, &c);
			snprintf(url, sizeof url, "unix:%s", un.sun_path);
			fk_err_init(&err, url);
			rc = fk_fetch(url, &data, &len, &err);
			pthread_join(th, NULL);
			T_OK(rc == 0 && len == 4 && memcmp(data, "unix", 4) == 0, "unix socket fetch");
			T_OK(strstr(c.request, "\r\nHost: localhost\r\n") != NULL, "unix: Host localhost");
			free(data);
			close(c.lfd);
			unlink(un.sun_path);
			rmdir(dir);
		}
	}

	T_EQ_STR(url_error("ftp://x/"), "not an http:// or unix: URL", "other scheme");
	T_EQ_STR(url_error("http://"), "bad host in URL", "no host");
	T_EQ_STR(url_error("http://127.0.0.1:0/"), "bad port in URL", "port 0");
	T_EQ_STR(url_error("http://127.0.0.1:x/"), "bad port in URL", "port not a number");
	T_EQ_STR(url_error("http://[::1/"), "bad IPv6 host in URL", "unclosed bracket");
	T_EQ_STR(url_error("http://[::1]x/"), "bad host in URL", "junk after bracket");
	T_EQ_STR(url_error("http://u:p@127.0.0.1:1/"), "user info in URL is not supported", "user info");
	T_EQ_STR(url_error("http://127.0.0.1:1/a b"), "space or control byte in URL", "space in path");
	T_EQ_STR(url_error("http://127.0.0.1:1/#x"), "fragment in URL", "fragment");
	T_EQ_STR(url_error("unix:"), "empty unix socket path", "empty unix path");
	T_EQ_STR(url_error("http://127.0.0.1:1/"), "cannot connect: Connection refused", "refused");
	T_EQ_STR(url_error("unix:/nonexistent/sock"), "cannot connect: No such file or directory",
		 "missing unix socket");
	return T_DONE();
}
