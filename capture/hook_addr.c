/* SPDX-License-Identifier: MIT */
/* Socket addresses as flamekit spells them: "127.0.0.1:6060",
 * "[::1]:6060", "localhost:6060", "unix:/path"; the listening socket of the
 * hook, and the loopback test applied to addresses and Host headers. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "hook_int.h"
#include "hostport.h"

static int sa_loopback(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)ss;

		return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
	}
	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)ss;
		const uint8_t *b = in6->sin6_addr.s6_addr;

		if (IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr))
			return 1;
		return IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr) && b[12] == 127;
	}
	return ss->ss_family == AF_UNIX;
}

static int parse_unix(const char *path, size_t n, struct fk_addr *a, struct fk_err *err)
{
	struct sockaddr_un *un = (struct sockaddr_un *)&a->ss;

	if (n == 0)
		return fk_err_set(err, FK_ESYNTAX, 0, "empty unix socket path in '%s'", a->text);
	if (n >= sizeof un->sun_path)
		return fk_err_set(err, FK_ELIMIT, 0, "unix socket path too long in '%s'", a->text);
	un->sun_family = AF_UNIX;
	memcpy(un->sun_path, path, n + 1);
	a->len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 1);
	a->family = AF_UNIX;
	a->loopback = 1;
	return 0;
}

int fk_addr_parse(const char *s, int allow_names, struct fk_addr *a,
		  struct fk_err *err)
{
	char host[256], port[12];
	struct fk_hostport hp;
	struct addrinfo hints, *res = NULL;
	unsigned pn;
	int rc;

	memset(a, 0, sizeof *a);
	snprintf(a->text, sizeof a->text, "%s", s);
	rc = fk_hostport_split(s, strlen(s), 1, &hp);
	if (hp.path)
		return parse_unix(hp.path, hp.pathlen, a, err);
	if (hp.bracketed && (rc != FK_HOSTPORT_OK || !hp.port))
		return fk_err_set(err, FK_ESYNTAX, 0, "bad address '%s': want [V6ADDR]:PORT", s);
	if (rc != FK_HOSTPORT_OK || !hp.port)
		return fk_err_set(err, FK_ESYNTAX, 0,
				  "bad address '%s': want HOST:PORT, [V6ADDR]:PORT or unix:/PATH", s);
	if (hp.hostlen == 0 || hp.hostlen >= sizeof host)
		return fk_err_set(err, FK_ESYNTAX, 0, "bad host in '%s'", s);
	if (fk_hostport_port(&hp, &pn) < 0 || pn == 0)
		return fk_err_set(err, FK_ESYNTAX, 0, "bad port in '%s'", s);
	memcpy(host, hp.host, hp.hostlen);
	host[hp.hostlen] = '\0';
	snprintf(port, sizeof port, "%u", pn);

	memset(&hints, 0, sizeof hints);
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
	if (strcmp(host, "localhost") == 0) {
		snprintf(host, sizeof host, "127.0.0.1");
	} else if (allow_names) {
		hints.ai_flags = AI_NUMERICSERV;
	}
	rc = getaddrinfo(host, port, &hints, &res);
	if (rc != 0 || !res)
		return fk_err_set(err, FK_ESYNTAX, 0, "bad host in '%s': %s%s", s,
				  gai_strerror(rc), allow_names ? "" : " (use a numeric address)");
	if (res->ai_addrlen > sizeof a->ss) {
		freeaddrinfo(res);
		return fk_err_set(err, FK_ESYNTAX, 0, "bad address '%s'", s);
	}
	memcpy(&a->ss, res->ai_addr, res->ai_addrlen);
	a->len = (socklen_t)res->ai_addrlen;
	a->family = res->ai_family;
	freeaddrinfo(res);
	a->loopback = sa_loopback(&a->ss);
	return 0;
}

/* A unix socket file left by a dead process would make bind fail; remove it
 * only if it is a socket and nobody accepts on it. */
static void unlink_stale(const struct fk_addr *a)
{
	const struct sockaddr_un *un = (const struct sockaddr_un *)&a->ss;
	struct stat st;
	int fd;

	if (lstat(un->sun_path, &st) < 0 || !S_ISSOCK(st.st_mode))
		return;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (connect(fd, (const struct sockaddr *)&a->ss, a->len) < 0 && errno == ECONNREFUSED)
		unlink(un->sun_path);
	close(fd);
}

int fk_addr_listen(const struct fk_addr *a, int backlog, struct fk_err *err)
{
	int fd, one = 1;

	if (a->family == AF_UNIX)
		unlink_stale(a);
	fd = socket(a->family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return fk_err_set(err, FK_EIO, 0, "socket: %s", strerror(errno));
	if (a->family != AF_UNIX)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (a->family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
	if (bind(fd, (const struct sockaddr *)&a->ss, a->len) < 0) {
		int e = errno;
		char why[200] = "";

		close(fd);
		if (e == EADDRINUSE)
			fk_holder_why(a, why, sizeof why);
		return fk_err_set(err, FK_EIO, 0, "cannot listen on %s: %s%s", a->text, strerror(e),
				  why);
	}
	if (listen(fd, backlog) < 0) {
		int e = errno;

		close(fd);
		return fk_err_set(err, FK_EIO, 0, "cannot listen on %s: %s", a->text, strerror(e));
	}
	return fd;
}

int fk_host_is_loopback(const char *h, size_t n)
{
	char host[64];
	struct fk_hostport hp;
	struct in_addr in4;
	struct in6_addr in6;
	unsigned port;

	if (fk_hostport_split(h, n, 0, &hp) != FK_HOSTPORT_OK ||
	    (hp.port && fk_hostport_port(&hp, &port) < 0) ||
	    (!hp.bracketed && hp.hostlen == 0) || hp.hostlen >= sizeof host)
		return 0;
	memcpy(host, hp.host, hp.hostlen);
	host[hp.hostlen] = '\0';
	if (hp.bracketed) {
		if (inet_pton(AF_INET6, host, &in6) != 1)
			return 0;
		if (IN6_IS_ADDR_LOOPBACK(&in6))
			return 1;
		return IN6_IS_ADDR_V4MAPPED(&in6) && in6.s6_addr[12] == 127;
	}
	if (strcasecmp(host, "localhost") == 0)
		return 1;
	if (inet_pton(AF_INET, host, &in4) != 1)
		return 0;
	return (ntohl(in4.s_addr) >> 24) == 127;
}
