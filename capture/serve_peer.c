/* SPDX-License-Identifier: MIT */
/* Who is at the other end of a connection to the hook: the user owning
 * the peer's socket (libflamekit-hook(3), SECURITY). A unix socket's peer
 * is told by SO_PEERCRED. A loopback TCP peer is a socket of this machine
 * whose owner the kernel's socket diagnostics give for the exact address
 * pair (netlink sock_diag, inet_diag_req_v2 without NLM_F_DUMP: one
 * lookup in the kernel's table, whatever the number of sockets);
 * /proc/net/tcp and tcp6 list it too (hook_proc.c), read only when
 * netlink is refused (a seccomp filter, a kernel without inet_diag). A peer on another host
 * has no user here. No descriptor outlives the call. */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "hash.h"
#include "serve_int.h"

/* An address as the kernel's /proc/net/tcp prints it: each 32-bit word
 * of the address as it lies in memory, in hex, then ':' and the port. */
static void proc_name(const struct sockaddr_storage *ss, char *out, size_t size)
{
	uint32_t w[4];

	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)ss;

		memcpy(w, &in->sin_addr, 4);
		snprintf(out, size, "%08X:%04X", w[0], ntohs(in->sin_port));
	} else {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)ss;

		memcpy(w, &in6->sin6_addr, 16);
		snprintf(out, size, "%08X%08X%08X%08X:%04X", w[0], w[1], w[2], w[3],
			 ntohs(in6->sin6_port));
	}
}

/* The socket whose local and remote addresses read exactly these. */
struct pair {
	const char *local, *remote;
	size_t nl, nr;
};

static int pair_match(const struct fk_tcp_line *l, void *ctx)
{
	const struct pair *w = ctx;

	return l->len[1] == w->nl && l->len[2] == w->nr && memcmp(l->f[1], w->local, w->nl) == 0 &&
	       memcmp(l->f[2], w->remote, w->nr) == 0;
}

int fk_peer_scan(const char *buf, size_t len, const char *local, const char *remote,
		 uid_t *uid)
{
	struct pair w = { local, remote, strlen(local), strlen(remote) };

	return fk_proc_tcp_scan(buf, len, pair_match, &w, uid);
}

/* The owner of the socket whose own end is peer and whose other end is
 * self, from /proc/net/tcp or tcp6: 1 with *uid, 0 not listed, -1. */
static int proc_lookup(const struct sockaddr_storage *peer,
		       const struct sockaddr_storage *self, uid_t *uid)
{
	char local[48], remote[48];
	struct pair w;

	proc_name(peer, local, sizeof local);
	proc_name(self, remote, sizeof remote);
	w = (struct pair){ local, remote, strlen(local), strlen(remote) };
	return fk_proc_tcp(peer->ss_family == AF_INET6, pair_match, &w, uid);
}

int fk_peer_parse_diag(const void *buf, size_t len, uid_t *uid)
{
	const struct nlmsghdr *h = buf;

	if (len < sizeof *h || h->nlmsg_len < sizeof *h || h->nlmsg_len > len)
		return -1;
	if (h->nlmsg_type == NLMSG_ERROR)
		return 0;
	if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY ||
	    h->nlmsg_len < NLMSG_LENGTH(sizeof(struct inet_diag_msg)))
		return -1;
	{
		struct inet_diag_msg m;

		memcpy(&m, NLMSG_DATA(h), sizeof m);
		*uid = (uid_t)m.idiag_uid;
	}
	return 1;
}

/* The owner of the TCP socket whose own end is peer and whose other end
 * is self, from the kernel's socket diagnostics: 1 with *uid, 0 when no
 * such socket exists, -1 when netlink cannot be asked. */
static int diag_lookup(const struct sockaddr_storage *peer,
		       const struct sockaddr_storage *self, uid_t *uid)
{
	struct {
		struct nlmsghdr h;
		struct inet_diag_req_v2 r;
	} req;
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_sec = 1 };
	union {
		struct nlmsghdr h;
		char b[1024];
	} ans;
	ssize_t n;
	int fd, rc;

	memset(&req, 0, sizeof req);
	req.h.nlmsg_len = sizeof req;
	req.h.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	req.h.nlmsg_flags = NLM_F_REQUEST;
	req.r.sdiag_family = (uint8_t)peer->ss_family;
	req.r.sdiag_protocol = IPPROTO_TCP;
	req.r.idiag_states = ~0u;
	req.r.id.idiag_cookie[0] = req.r.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
	if (peer->ss_family == AF_INET) {
		const struct sockaddr_in *p = (const void *)peer, *s = (const void *)self;

		req.r.id.idiag_sport = p->sin_port;
		req.r.id.idiag_dport = s->sin_port;
		memcpy(req.r.id.idiag_src, &p->sin_addr, 4);
		memcpy(req.r.id.idiag_dst, &s->sin_addr, 4);
	} else {
		const struct sockaddr_in6 *p = (const void *)peer, *s = (const void *)self;

		req.r.id.idiag_sport = p->sin6_port;
		req.r.id.idiag_dport = s->sin6_port;
		memcpy(req.r.id.idiag_src, &p->sin6_addr, 16);
		memcpy(req.r.id.idiag_dst, &s->sin6_addr, 16);
	}
	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0)
		return -1;
	/* The kernel answers at once; the bound only guards the hook's
	 * thread against the unforeseen. */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	if (sendto(fd, &req, sizeof req, 0, (struct sockaddr *)&kernel, sizeof kernel) !=
	    (ssize_t)sizeof req) {
		close(fd);
		return -1;
	}
	do
		n = recv(fd, &ans, sizeof ans, 0);
	while (n < 0 && errno == EINTR);
	close(fd);
	if (n <= 0)
		return -1;
	rc = fk_peer_parse_diag(&ans, (size_t)n, uid);
	if (rc == 0) {
		/* NLMSG_ERROR: ENOENT is "no such socket"; anything else
		 * (EPERM, EINVAL from a kernel without the family) says to
		 * look elsewhere. */
		const struct nlmsgerr *e = NLMSG_DATA(&ans.h);

		if ((size_t)n < NLMSG_LENGTH(sizeof *e) || e->error != -ENOENT)
			return -1;
	}
	return rc;
}

int fk_peer_tcp(const struct sockaddr_storage *peer, const struct sockaddr_storage *self,
		int proc_only, uid_t *uid)
{
	int rc = proc_only ? -1 : diag_lookup(peer, self, uid);

	return rc < 0 ? proc_lookup(peer, self, uid) : rc;
}

/* An IPv4 peer reached through an IPv6 socket (::ffff:a.b.c.d): its own
 * socket may be either kind; the kernel's table finds both by the IPv4
 * pair. */
static void unmap(struct sockaddr_storage *ss)
{
	struct sockaddr_in6 in6;
	struct sockaddr_in *in = (struct sockaddr_in *)ss;

	if (ss->ss_family != AF_INET6)
		return;
	memcpy(&in6, ss, sizeof in6);
	if (!IN6_IS_ADDR_V4MAPPED(&in6.sin6_addr))
		return;
	memset(ss, 0, sizeof *ss);
	in->sin_family = AF_INET;
	in->sin_port = in6.sin6_port;
	memcpy(&in->sin_addr, in6.sin6_addr.s6_addr + 12, 4);
}

static int is_loopback(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ((const uint8_t *)&((const struct sockaddr_in *)ss)->sin_addr)[0] == 127;
	return ss->ss_family == AF_INET6 &&
	       IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)ss)->sin6_addr);
}

void fk_peer_get(int fd, struct fk_peer *p)
{
	struct sockaddr_storage peer, self;
	socklen_t pl = sizeof peer, sl = sizeof self;

	memset(p, 0, sizeof p[0]);
	p->kind = FK_PEER_UNKNOWN;
	if (fd < 0 || getpeername(fd, (struct sockaddr *)&peer, &pl) < 0 ||
	    getsockname(fd, (struct sockaddr *)&self, &sl) < 0)
		return;
	if (peer.ss_family == AF_UNIX) {
		struct ucred cr;
		socklen_t cl = sizeof cr;

		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &cl) == 0 && cl == sizeof cr) {
			p->kind = FK_PEER_LOCAL;
			p->uid = cr.uid;
			p->key = (uint64_t)cr.uid << 1;
		}
		return;
	}
	fk_peer_pair(&peer, &self, p);
}

void fk_peer_pair(const struct sockaddr_storage *peer_in, const struct sockaddr_storage *self_in,
		  struct fk_peer *p)
{
	struct sockaddr_storage peer = *peer_in, self = *self_in;
	int rc;

	memset(p, 0, sizeof p[0]);
	p->kind = FK_PEER_UNKNOWN;
	if (peer.ss_family != AF_INET && peer.ss_family != AF_INET6)
		return;
	unmap(&peer);
	unmap(&self);
	/* A remote client is its address, whatever its port. */
	if (peer.ss_family == AF_INET)
		p->key = fk_hash_long(&((struct sockaddr_in *)&peer)->sin_addr, 4);
	else
		p->key = fk_hash_long(&((struct sockaddr_in6 *)&peer)->sin6_addr, 16);
	p->key |= 1;
	if (!is_loopback(&peer) || peer.ss_family != self.ss_family) {
		p->kind = FK_PEER_REMOTE;
		return;
	}
	rc = fk_peer_tcp(&peer, &self, 0, &p->uid);
	if (rc == 1) {
		p->kind = FK_PEER_LOCAL;
		p->key = (uint64_t)p->uid << 1;
	}
}
