/* SPDX-License-Identifier: MIT */
/* FLAMEKIT_DUMP_SIGNAL: a signal that writes a heap dump. jemalloc is not
 * async-signal-safe, so the handler only marks the dump as wanted and,
 * when it runs on a host thread, sends the signal on to the hook's thread
 * (tgkill), which waits with that one signal unblocked (hook_loop.c) and
 * makes the dump into FLAMEKIT_DUMP_DIR. No descriptor is involved: the
 * hook's pipe lives in the hook thread's own table, which a handler
 * running on a host thread cannot reach. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "hook_int.h"

static struct {
	int num;                   /* the signal; 0 none */
	atomic_int pending;
	atomic_int tid;            /* the hook's thread, 0 when none */
	unsigned long seq;
} ds;

void fk_sig_atfork_child(void)
{
	/* The parent's thread does not exist here; the child's own thread,
	 * once it runs, takes the signals the child gets. */
	atomic_store(&ds.tid, 0);
	atomic_store(&ds.pending, 0);
	ds.seq = 0;
}

void fk_sig_attach(void)
{
	if (ds.num > 0)
		atomic_store(&ds.tid, (int)syscall(SYS_gettid));
}

void fk_sig_detach(void)
{
	atomic_store(&ds.tid, 0);
}

int fk_sig_take(void)
{
	return atomic_exchange(&ds.pending, 0);
}

static void on_signal(int sig)
{
	int e = errno, tid = atomic_load(&ds.tid);

	atomic_store(&ds.pending, 1);
	/* On a host thread: wake the hook's thread, which is waiting with the
	 * signal unblocked; on the hook's thread the wait returns by itself. */
	if (tid > 0 && tid != (int)syscall(SYS_gettid))
		syscall(SYS_tgkill, getpid(), tid, sig);
	errno = e;
}
int fk_sig_install(struct fk_err *err)
{
	int sig = fk_env_get()->dump_signal;
	struct sigaction sa;

	if (sig <= 0)
		return -1;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(sig, &sa, NULL) < 0)
		return fk_err_set(err, FK_EIO, 0, "sigaction: %s", strerror(errno));
	ds.num = sig;
	return sig;
}

void fk_sig_dump(void)
{
	const char *dir = fk_env_get()->dump_dir;
	char path[4096 + 64];

	snprintf(path, sizeof path, "%s/flamekit.%ld.%lu.heap", dir, (long)getpid(), ds.seq++);
	fk_dump_to_file(path, "signal dump");
}
