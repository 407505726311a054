/* SPDX-License-Identifier: MIT */
/* FLAMEKIT_DUMP_SIGNAL: a signal that writes a heap dump. jemalloc is not
 * async-signal-safe, so the handler only writes a byte to a self-pipe; the
 * hook's loop thread reads it and dumps into FLAMEKIT_DUMP_DIR. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hook_int.h"

static int sig_pipe[2] = { -1, -1 };
static unsigned long sig_seq;

void fk_sig_atfork_child(void)
{
	int p[2];

	if (sig_pipe[0] < 0)
		return;
	sig_seq = 0;
	/* dup3 swaps each end in one step: a signal arriving meanwhile writes
	 * to the old pipe or the new one, never to an unrelated descriptor. */
	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0) {
		/* No pipe of our own: the child's signals go nowhere rather
		 * than to the parent. */
		int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

		if (fd >= 0) {
			dup3(fd, sig_pipe[1], O_CLOEXEC);
			close(fd);
		}
		return;
	}
	dup3(p[0], sig_pipe[0], O_CLOEXEC);
	dup3(p[1], sig_pipe[1], O_CLOEXEC);
	close(p[0]);
	close(p[1]);
}

static void on_signal(int sig)
{
	int e = errno;
	char b = (char)sig;

	/* Non-blocking: when the pipe is full a dump is pending anyway. */
	if (write(sig_pipe[1], &b, 1) < 0) {
		/* nothing to do in a handler */
	}
	errno = e;
}

static int sig_number(const char *s)
{
	static const struct { const char *name; int sig; } sigs[] = {
		{ "USR1", SIGUSR1 }, { "USR2", SIGUSR2 }, { "HUP", SIGHUP },
		{ "WINCH", SIGWINCH }, { "URG", SIGURG },
	};

	if (strncmp(s, "SIG", 3) == 0)
		s += 3;
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		if (strcmp(s, sigs[i].name) == 0)
			return sigs[i].sig;
	return -1;
}

int fk_sig_install(struct fk_err *err)
{
	const char *name = getenv("FLAMEKIT_DUMP_SIGNAL");
	struct sigaction sa;
	int sig;

	if (!name || !*name)
		return -1;
	sig = sig_number(name);
	if (sig < 0)
		return fk_err_set(err, FK_ESYNTAX, 0,
				  "bad FLAMEKIT_DUMP_SIGNAL '%.20s': want USR1, USR2, HUP, WINCH or URG", name);
	if (sig_pipe[0] < 0 && pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		return fk_err_set(err, FK_EIO, 0, "pipe: %s", strerror(errno));
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(sig, &sa, NULL) < 0)
		return fk_err_set(err, FK_EIO, 0, "sigaction: %s", strerror(errno));
	return sig_pipe[0];
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

void fk_sig_dump(int fd)
{
	const char *dir = getenv("FLAMEKIT_DUMP_DIR");
	char buf[64], path[4096], tmp[4200];
	char *data = NULL;
	size_t len = 0, maplen = 0;
	struct fk_err err;
	int out, rc;

	while (read(fd, buf, sizeof buf) > 0)
		;
	if (!dir || !*dir)
		dir = ".";
	fk_err_init(&err, NULL);
	rc = fk_serve_produce(FK_OUT_RAW, NULL, &data, &len, &maplen, &err);
	if (rc != 0) {
		fprintf(stderr, "flamekit-hook: signal dump: %s\n",
			rc > 0 ? FK_HOOK_NOTHING_SAMPLED : err.msg);
		return;
	}
	snprintf(path, sizeof path, "%s/flamekit.%ld.%lu.heap", dir, (long)getpid(), sig_seq++);
	snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", path);
	/* Written beside and renamed, so a reader never sees half a dump. The
	 * temporary file is new and unpredictably named (mkostemp: O_EXCL, so
	 * a planted symlink is never followed); rename replaces a link planted
	 * at the final name, not its target. */
	out = mkostemp(tmp, O_CLOEXEC);
	rc = out < 0 ? -1 : write_all(out, data, len);
	if (out >= 0 && close(out) < 0)
		rc = -1;
	if (rc == 0 && rename(tmp, path) < 0)
		rc = -1;
	if (rc < 0) {
		fprintf(stderr, "flamekit-hook: signal dump: %s: %s\n", path, strerror(errno));
		if (out >= 0)
			unlink(tmp);
	}
	fk_hook_buf_release(data, maplen);
}
