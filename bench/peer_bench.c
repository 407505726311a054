/* SPDX-License-Identifier: MIT */
/* What the hook's "who is asking" costs a connection (bench/peer.sh):
 * opens EXTRA idle loopback connections, so the kernel's socket table is
 * as full as a busy host's, then times the lookup of one loopback peer's
 * user REPS times through netlink sock_diag and through /proc/net/tcp
 * (capture/serve_peer.c, fk_peer_tcp), and prints the median of each in
 * microseconds: "netlink_us N proc_us N sockets N". */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "serve_int.h"

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median time of reps lookups, in microseconds. */
static double time_lookups(const struct sockaddr_storage *peer,
			   const struct sockaddr_storage *self, int proc_only, int reps)
{
	double *t = calloc((size_t)reps, sizeof *t), m;
	uid_t uid;

	if (!t)
		exit(1);
	for (int i = 0; i < reps; i++) {
		double t0 = now_us();

		if (fk_peer_tcp(peer, self, proc_only, &uid) != 1) {
			fprintf(stderr, "peer-bench: the lookup failed\n");
			exit(1);
		}
		t[i] = now_us() - t0;
	}
	qsort(t, (size_t)reps, sizeof *t, cmp);
	m = t[reps / 2];
	free(t);
	return m;
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct sockaddr_storage peer, self;
	socklen_t len = sizeof a, pl = sizeof peer, sl = sizeof self;
	struct rlimit rl;
	int extra = argc > 1 ? atoi(argv[1]) : 0, reps = argc > 2 ? atoi(argv[2]) : 1000;
	int l = socket(AF_INET, SOCK_STREAM, 0), c, s;

	if (argc > 3 || extra < 0 || reps < 1) {
		fprintf(stderr, "usage: peer-bench [EXTRA [REPS]]\n");
		return 2;
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) < 0 || listen(l, 4096) < 0 ||
	    getsockname(l, (struct sockaddr *)&a, &len) < 0)
		return 1;
	for (int i = 0; i <= extra; i++) {
		c = socket(AF_INET, SOCK_STREAM, 0);
		if (c < 0 || connect(c, (struct sockaddr *)&a, sizeof a) < 0 ||
		    (s = accept(l, NULL, NULL)) < 0) {
			fprintf(stderr, "peer-bench: %d connections only\n", i);
			return 1;
		}
	}
	/* The last pair: s is the accepted end, as the hook holds it. */
	getpeername(s, (struct sockaddr *)&peer, &pl);
	getsockname(s, (struct sockaddr *)&self, &sl);
	printf("netlink_us %.1f proc_us %.1f sockets %d\n",
	       time_lookups(&peer, &self, 0, reps), time_lookups(&peer, &self, 1, reps),
	       2 * (extra + 1) + 1);
	return 0;
}
