/* SPDX-License-Identifier: MIT */
/* The hook's one line on the host's standard error, from any thread. The
 * hook's own thread keeps a descriptor table of its own (hook_loop.c), in
 * which fd 2 is /dev/null: it borrows the host's current fd 2 for the
 * write (pidfd_getfd(2) on its own process, else reopening
 * /proc/self/fd/2 for appending), so that a host redirecting its stderr
 * later is followed, and none of its files is held open by the hook. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "hook_int.h"

/* Which thread this is: the hook's (or a thread it started for work),
 * and whether its table is its own. */
static __thread int self_hook, self_private;
/* The process's pidfd, in the hook's table (pidfd_getfd borrows fd 2 of
 * the process through it); -1 when none. */
static int log_pidfd = -1;

void fk_self_mark(int private_fds)
{
	self_hook = 1;
	self_private = private_fds;
#ifdef SYS_pidfd_open
	/* Made once per hook thread start: a forked worker's thread makes its
	 * own (the parent's is in a table the child does not have). */
	if (private_fds)
		log_pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
#endif
}

int fk_self_is_hook(void)
{
	return self_hook;
}

int fk_self_private_fds(void)
{
	return self_private;
}

/* The host's fd 2 as a descriptor of the calling thread's table: 2 itself
 * when the thread shares the host's table, else a borrowed copy (*borrowed
 * set) or -1. At the descriptor limit the hook's own fd 2 (/dev/null)
 * makes room (*freed2 set: put it back with fd 0's /dev/null). */
static int host_stderr(int *borrowed, int *freed2)
{
	int fd = -1;

	*borrowed = *freed2 = 0;
	if (!self_hook || !self_private)
		return 2;
	for (int pass = 0; pass < 2 && fd < 0; pass++) {
#ifdef SYS_pidfd_getfd
		if (log_pidfd >= 0)
			fd = (int)syscall(SYS_pidfd_getfd, log_pidfd, 2, 0);
#endif
		if (fd < 0)
			fd = open("/proc/self/fd/2", O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY);
		if (fd < 0 && errno == EMFILE && pass == 0) {
			close(2);
			*freed2 = 1;
		} else {
			break;
		}
	}
	*borrowed = fd >= 0;
	return fd;
}

void fk_log(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n, fd, borrowed, freed2, e = errno;

	memcpy(line, "flamekit-hook: ", 15);
	va_start(ap, fmt);
	n = vsnprintf(line + 15, sizeof line - 16, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	n += 15;
	if (n > (int)sizeof line - 2)
		n = (int)sizeof line - 2;
	line[n++] = '\n';
	fd = host_stderr(&borrowed, &freed2);
	if (fd >= 0) {
		/* One write, so that the line is not interleaved. */
		if (write(fd, line, (size_t)n) < 0) {
			/* Nowhere left to say it. */
		}
		if (borrowed)
			close(fd);
	}
	if (freed2 && fcntl(2, F_GETFD) < 0)
		dup2(0, 2);
	errno = e;
}
