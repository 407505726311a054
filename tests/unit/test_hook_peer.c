/* SPDX-License-Identifier: MIT */
/* Unit tests of capture/serve_peer.c: the user at the other end of a unix
 * socket and of a loopback TCP connection (IPv4 and IPv6, from netlink
 * and from /proc/net/tcp), as root and, when the test runs as root, as
 * another user; the /proc/net/tcp line scanner and the sock_diag answer
 * reader on made-up input. */
#include <arpa/inet.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "t.h"
#include "serve_int.h"

/* A connection to a loopback listener of family fam, the client made by
 * a child running as uid (or by this process when uid is -1); the
 * accepted end in *srv. 0, or -1 when the family has no loopback here. */
static int connect_as(int fam, long uid, int *srv, pid_t *child)
{
	struct sockaddr_storage ss;
	socklen_t len = fam == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
	int l = socket(fam, SOCK_STREAM | SOCK_CLOEXEC, 0), c = -1;

	memset(&ss, 0, sizeof ss);
	ss.ss_family = (sa_family_t)fam;
	if (fam == AF_INET)
		((struct sockaddr_in *)&ss)->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	else
		((struct sockaddr_in6 *)&ss)->sin6_addr = in6addr_loopback;
	if (l < 0 || bind(l, (struct sockaddr *)&ss, len) < 0 || listen(l, 4) < 0 ||
	    getsockname(l, (struct sockaddr *)&ss, &len) < 0) {
		if (l >= 0)
			close(l);
		return -1;
	}
	*child = 0;
	if (uid < 0) {
		c = socket(fam, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (connect(c, (struct sockaddr *)&ss, len) < 0)
			return -1;
	} else if ((*child = fork()) == 0) {
		int k;
		char b;

		if (setresgid((gid_t)uid, (gid_t)uid, (gid_t)uid) < 0 ||
		    setresuid((uid_t)uid, (uid_t)uid, (uid_t)uid) < 0)
			_exit(2);
		k = socket(fam, SOCK_STREAM, 0);
		if (connect(k, (struct sockaddr *)&ss, len) < 0)
			_exit(3);
		/* Held open until the parent has looked. */
		if (read(k, &b, 1) < 0)
			_exit(4);
		_exit(0);
	}
	*srv = accept(l, NULL, NULL);
	close(l);
	if (c >= 0) {
		/* The client end stays open for the test's life. */
	}
	return *srv < 0 ? -1 : 0;
}

static void end_child(int srv, pid_t child)
{
	int st;

	close(srv);
	if (child > 0)
		waitpid(child, &st, 0);
}

static void tcp_case(int fam, long uid)
{
	const char *name = fam == AF_INET ? "127.0.0.1" : "[::1]";
	struct sockaddr_storage peer, self;
	socklen_t pl = sizeof peer, sl = sizeof self;
	struct fk_peer p;
	pid_t child;
	uid_t want = uid < 0 ? geteuid() : (uid_t)uid, u = (uid_t)-1;
	int srv;

	if (connect_as(fam, uid, &srv, &child) < 0) {
		T_OK(fam == AF_INET6, "%s: a loopback connection (none for IPv6 is allowed)", name);
		return;
	}
	fk_peer_get(srv, &p);
	T_OK(p.kind == FK_PEER_LOCAL && p.uid == want, "%s: the peer is uid %lu (got kind %d uid %lu)",
	     name, (unsigned long)want, (int)p.kind, (unsigned long)p.uid);
	T_OK(p.key == (uint64_t)want << 1, "%s: the client is its user", name);
	getpeername(srv, (struct sockaddr *)&peer, &pl);
	getsockname(srv, (struct sockaddr *)&self, &sl);
	T_OK(fk_peer_tcp(&peer, &self, 1, &u) == 1 && u == want,
	     "%s: /proc/net/tcp says uid %lu too (got %lu)", name, (unsigned long)want,
	     (unsigned long)u);
	/* The pair the other way round is the listener's own socket: ours. */
	T_OK(fk_peer_tcp(&self, &peer, 0, &u) == 1 && u == geteuid(),
	     "%s: the accepted socket's owner is this process's user", name);
	((struct sockaddr_in *)&peer)->sin_port = htons(1);
	T_OK(fk_peer_tcp(&peer, &self, 0, &u) == 0, "%s: no socket for another port (netlink)", name);
	T_OK(fk_peer_tcp(&peer, &self, 1, &u) == 0, "%s: nor in /proc/net", name);
	end_child(srv, child);
}

static void scan_cases(void)
{
	static const char text[] =
		"  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
		"   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1 0 100 0 0 10 0\n"
		"   1: 0100007F:9C40 0100007F:1F90 01 00000000:00000000 00:00000000 00000000   999        0 2 1 0 20 4 30 10 -1\n"
		"   2: 0100007F:9C41 0100007F:1F90 01 00000000:00000000 00:00000000 00000000  1000        0 3";
	uid_t u = 0;

	T_OK(fk_peer_scan(text, sizeof text - 1, "0100007F:9C40", "0100007F:1F90", &u) == 1 &&
	     u == 999, "scan: the line of the pair gives its uid (%lu)", (unsigned long)u);
	T_OK(fk_peer_scan(text, sizeof text - 1, "0100007F:9C41", "0100007F:1F90", &u) == 0,
	     "scan: a last line without its newline is not read");
	T_OK(fk_peer_scan(text, sizeof text - 1, "0100007F:1F90", "0100007F:9C40", &u) == 0,
	     "scan: the pair the other way round is another socket");
	T_OK(fk_peer_scan(text, sizeof text - 1, "0100007F:9C4", "0100007F:1F90", &u) == 0,
	     "scan: a prefix of an address is not it");
	T_OK(fk_peer_scan("", 0, "a", "b", &u) == 0, "scan: empty input");
	T_OK(fk_peer_scan(" 1: a b 01 x y z 4294967295 0\n", 31, "a", "b", &u) == 0,
	     "scan: uid -1 is not a user");
}

static void diag_cases(void)
{
	union {
		struct nlmsghdr h;
		char b[256];
	} m;
	struct inet_diag_msg d;
	struct nlmsgerr e;
	uid_t u = 0;

	memset(&m, 0, sizeof m);
	memset(&d, 0, sizeof d);
	d.idiag_uid = 4321;
	m.h.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	m.h.nlmsg_len = NLMSG_LENGTH(sizeof d);
	memcpy(NLMSG_DATA(&m.h), &d, sizeof d);
	T_OK(fk_peer_parse_diag(&m, m.h.nlmsg_len, &u) == 1 && u == 4321, "diag: the owner's uid");
	T_OK(fk_peer_parse_diag(&m, m.h.nlmsg_len - 1, &u) == -1, "diag: a message cut short");
	m.h.nlmsg_len = NLMSG_LENGTH(sizeof d) - 4;
	T_OK(fk_peer_parse_diag(&m, sizeof m, &u) == -1, "diag: a message too short for its type");
	memset(&e, 0, sizeof e);
	e.error = -2;
	m.h.nlmsg_type = NLMSG_ERROR;
	m.h.nlmsg_len = NLMSG_LENGTH(sizeof e);
	memcpy(NLMSG_DATA(&m.h), &e, sizeof e);
	T_OK(fk_peer_parse_diag(&m, m.h.nlmsg_len, &u) == 0, "diag: an error is no socket");
	m.h.nlmsg_type = 77;
	T_OK(fk_peer_parse_diag(&m, m.h.nlmsg_len, &u) == -1, "diag: another type");
	T_OK(fk_peer_parse_diag(&m, 3, &u) == -1, "diag: less than a header");
}

int main(void)
{
	int sv[2];
	struct fk_peer p;

	signal(SIGPIPE, SIG_IGN);
	T_OK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "a unix socket pair");
	fk_peer_get(sv[0], &p);
	T_OK(p.kind == FK_PEER_LOCAL && p.uid == geteuid(), "unix: SO_PEERCRED gives this user");
	close(sv[0]);
	close(sv[1]);
	tcp_case(AF_INET, -1);
	tcp_case(AF_INET6, -1);
	if (geteuid() == 0) {
		tcp_case(AF_INET, 65534);
		tcp_case(AF_INET6, 65534);
	}
	fk_peer_get(-1, &p);
	T_OK(p.kind == FK_PEER_UNKNOWN && p.key == 0, "no socket: unknown");
	scan_cases();
	diag_cases();
	return T_DONE();
}
