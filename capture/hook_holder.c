/* SPDX-License-Identifier: MIT */
/* Who holds the hook's address, for its one line on stderr: the process
 * holding a TCP port this one cannot listen on, and, when a launcher that
 * served the address exits, the server it started, which loaded the hook
 * but left the address to it (pg_ctl start: issue 33). The facts come
 * from /proc (hook_proc.c). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hook_int.h"

/* The advice of both lines when a launcher and its server share the hook. */
#define ALONE "preload the hook into the server alone"

/* Whether pid is an ancestor of this process. */
static int started_us(pid_t pid)
{
	struct fk_proc p;
	pid_t cur = getppid();

	for (int i = 0; i < 64 && cur > 1; i++) {
		if (cur == pid)
			return 1;
		if (fk_proc_info(cur, &p) < 0)
			return 0;
		cur = p.ppid;
	}
	return 0;
}

/* "N (COMMAND)" of pid into buf, the program by its file name alone, so
 * that its arguments fit. */
static const char *who(pid_t pid, char *buf, size_t size)
{
	char cmd[256];
	const char *c = cmd;
	size_t prog;

	if (!fk_proc_cmdline(pid, cmd, sizeof cmd))
		snprintf(cmd, sizeof cmd, "?");
	prog = strcspn(cmd, " ");
	for (size_t i = 0; i < prog; i++)
		if (cmd[i] == '/')
			c = cmd + i + 1;
	snprintf(buf, size, "%ld (%.48s)", (long)pid, c);
	return buf;
}

const char *fk_holder_why(const struct fk_addr *a, char *buf, size_t size)
{
	const struct sockaddr_in *in = (const struct sockaddr_in *)&a->ss;
	const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)&a->ss;
	char w[80];
	pid_t pid;
	uid_t uid;

	buf[0] = '\0';
	if (a->family != AF_INET && a->family != AF_INET6)
		return buf;
	if (fk_proc_port_holder(ntohs(a->family == AF_INET ? in->sin_port : in6->sin6_port),
				&pid, &uid) != 1)
		return buf;
	if (pid <= 0)
		snprintf(buf, size, ": a socket of uid %lu holds it: give this program another "
			 "address", (unsigned long)uid);
	else if (started_us(pid))
		snprintf(buf, size, ": process %s, which started this one, holds it: " ALONE
			 ", or give each its own address", who(pid, w, sizeof w));
	else
		snprintf(buf, size, ": process %s holds it: stop it, or give this program "
			 "another address", who(pid, w, sizeof w));
	return buf;
}

void fk_holder_exit(const char *addr)
{
	char self[512], exe[512], path[64], me[80], it[80];
	pid_t kids[64];
	size_t n = fk_proc_children(getpid(), kids, sizeof kids / sizeof kids[0]);
	ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);

	if (k <= 0)
		return;
	self[k] = '\0';
	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof path, "/proc/%ld/exe", (long)kids[i]);
		k = readlink(path, exe, sizeof exe - 1);
		if (k <= 0)
			continue;
		exe[k] = '\0';
		/* A worker (fork without exec) runs this program; a server the
		 * launcher started by exec runs another, with the hook. */
		if (strcmp(exe, self) == 0 || !fk_proc_maps_has(kids[i], "/libflamekit-hook.so"))
			continue;
		fk_log("process %s exits and stops serving %s; process %s, which it started, has "
		       "the hook but leaves the address to it: " ALONE ", not into the program "
		       "that starts it", who(getpid(), me, sizeof me), addr,
		       who(kids[i], it, sizeof it));
		return;
	}
}
