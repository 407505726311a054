/* Finding and driving jemalloc's profiling through mallctl (jemalloc(3),
 * "MALLCTL NAMESPACE": config.prof, opt.prof, prof.active, prof.reset,
 * prof.dump, prof.lg_sample, thread.prof.active). Dumps go through a memfd,
 * so no temporary file is ever created. */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hook_int.h"
#include "limits.h"

typedef int (*fk_mallctl_fn)(const char *, void *, size_t *, void *, size_t);

static pthread_once_t je_once = PTHREAD_ONCE_INIT;
static fk_mallctl_fn je_ctl;
static const char *je_fname;
static enum fk_je_avail je_avail = FK_JE_NOTFOUND;
static char je_name_buf[128];

/* One dump at a time: jemalloc serialises prof.dump itself, but the
 * parsing and encoding that follow are memory-hungry. */
static pthread_mutex_t dump_lock = PTHREAD_MUTEX_INITIALIZER;

void fk_je_lock(void)
{
	pthread_mutex_lock(&dump_lock);
}

void fk_je_unlock(void)
{
	pthread_mutex_unlock(&dump_lock);
}

void fk_je_atfork_child(void)
{
	/* The thread that held it does not exist in the child. */
	pthread_mutex_init(&dump_lock, NULL);
}

double fk_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void je_find(void)
{
	static const char *const names[] = { "mallctl", "je_mallctl", "_rjem_mallctl" };
	const char *env = getenv("FLAMEKIT_MALLCTL");
	bool b;
	size_t sz;

	if (env && *env) {
		snprintf(je_name_buf, sizeof je_name_buf, "%s", env);
		je_ctl = (fk_mallctl_fn)(uintptr_t)dlsym(RTLD_DEFAULT, je_name_buf);
		if (je_ctl)
			je_fname = je_name_buf;
	} else {
		for (size_t i = 0; i < sizeof names / sizeof names[0] && !je_ctl; i++) {
			je_ctl = (fk_mallctl_fn)(uintptr_t)dlsym(RTLD_DEFAULT, names[i]);
			if (je_ctl)
				je_fname = names[i];
		}
	}
	if (!je_ctl)
		return;
	sz = sizeof b;
	if (je_ctl("config.prof", &b, &sz, NULL, 0) != 0 || !b) {
		je_avail = FK_JE_NOTCOMPILED;
		return;
	}
	sz = sizeof b;
	if (je_ctl("opt.prof", &b, &sz, NULL, 0) != 0 || !b) {
		je_avail = FK_JE_NOTSTARTED;
		return;
	}
	je_avail = FK_JE_OK;
}

enum fk_je_avail fk_je_check(const char **why)
{
	pthread_once(&je_once, je_find);
	if (why) {
		switch (je_avail) {
		case FK_JE_OK:
			*why = "";
			break;
		case FK_JE_NOTFOUND:
			*why = "jemalloc not found in this process: start it with "
			       "LD_PRELOAD=\"libjemalloc.so.2 libflamekit-hook.so\", or set "
			       "FLAMEKIT_MALLCTL to the name of its mallctl function "
			       "(for example _rjem_mallctl, exported with -rdynamic)";
			break;
		case FK_JE_NOTCOMPILED:
			*why = "this jemalloc was built without profiling: use a build "
			       "configured with --enable-prof (Debian's libjemalloc2 is one)";
			break;
		case FK_JE_NOTSTARTED:
			*why = "jemalloc profiling was not enabled at startup: restart the "
			       "program with MALLOC_CONF=prof:true,prof_active:false "
			       "(_RJEM_MALLOC_CONF for Rust's tikv-jemallocator), or put "
			       "libflamekit-hook.so before libjemalloc.so.2 in LD_PRELOAD";
			break;
		}
	}
	return je_avail;
}

const char *fk_je_name(void)
{
	pthread_once(&je_once, je_find);
	return je_fname;
}

static int je_ready(struct fk_err *err)
{
	const char *why = "";

	if (fk_je_check(&why) != FK_JE_OK)
		return fk_err_set(err, FK_EUNSUPP, 0, "%s", why);
	return 0;
}

int fk_je_get_active(int *active, struct fk_err *err)
{
	bool b;
	size_t sz = sizeof b;
	int rc;

	if (je_ready(err) < 0)
		return -1;
	rc = je_ctl("prof.active", &b, &sz, NULL, 0);
	if (rc != 0)
		return fk_err_set(err, FK_EIO, 0, "cannot read prof.active: %s", strerror(rc));
	*active = b;
	return 0;
}

int fk_je_set_active(int active, int lg_sample, struct fk_err *err)
{
	bool b = active != 0;
	int rc;

	if (je_ready(err) < 0)
		return -1;
	if (lg_sample >= 0) {
		size_t lg = (size_t)lg_sample;

		if (lg_sample > FK_MAX_PERIOD_LG)
			return fk_err_set(err, FK_ESYNTAX, 0, "lg_sample out of range '%d'", lg_sample);
		rc = je_ctl("prof.reset", NULL, NULL, &lg, sizeof lg);
		if (rc != 0)
			return fk_err_set(err, FK_EIO, 0, "prof.reset failed: %s", strerror(rc));
	}
	rc = je_ctl("prof.active", NULL, NULL, &b, sizeof b);
	if (rc != 0)
		return fk_err_set(err, FK_EIO, 0, "cannot set prof.active: %s", strerror(rc));
	return 0;
}

int fk_je_lg_sample(void)
{
	size_t lg;
	size_t sz = sizeof lg;

	if (fk_je_check(NULL) != FK_JE_OK)
		return -1;
	if (je_ctl("prof.lg_sample", &lg, &sz, NULL, 0) != 0)
		return -1;
	return (int)lg;
}

int fk_je_thread_active(int active, int *old)
{
	bool b = active != 0, o = false;
	size_t sz = sizeof o;

	if (fk_je_check(NULL) != FK_JE_OK)
		return -1;
	if (je_ctl("thread.prof.active", &o, &sz, &b, sizeof b) != 0)
		return -1;
	if (old)
		*old = o;
	return 0;
}

void fk_hook_buf_release(char *data, size_t maplen)
{
	if (!data)
		return;
	if (maplen)
		munmap(data, maplen);
	else
		free(data);
}

/* Maps the memfd fd with a NUL after its data. Mapping instead of reading
 * saves a copy and the page faults of a fresh buffer: 40 % of serving a
 * 10 MB dump. */
static int map_fd(int fd, char **data, size_t *len, size_t *maplen, struct fk_err *err)
{
	struct stat st;
	size_t n;
	void *m;

	if (fstat(fd, &st) < 0)
		return fk_err_set(err, FK_EIO, 0, "cannot stat the dump: %s", strerror(errno));
	if (st.st_size <= 0)
		return fk_err_set(err, FK_EIO, 0, "jemalloc wrote an empty dump");
	if ((uint64_t)st.st_size >= FK_MAX_INPUT)
		return fk_err_set(err, FK_ELIMIT, 0, "dump too large (%lld bytes)",
				  (long long)st.st_size);
	n = (size_t)st.st_size;
	/* One more byte, which reads as the NUL the parsers expect. */
	if (ftruncate(fd, (off_t)n + 1) < 0)
		return fk_err_set(err, FK_EIO, 0, "cannot extend the dump: %s", strerror(errno));
	m = mmap(NULL, n + 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	if (m == MAP_FAILED)
		return fk_err_set(err, FK_ENOMEM, 0, "cannot map a %zu-byte dump: %s", n,
				  strerror(errno));
	*data = m;
	*len = n;
	*maplen = n + 1;
	return 0;
}

int fk_je_dump(char **data, size_t *len, size_t *maplen, struct fk_err *err)
{
	char path[64];
	const char *pp = path;
	int active, fd, rc, ret;

	if (fk_je_get_active(&active, err) < 0)
		return -1;
	if (!active)
		return fk_err_set(err, FK_EUNSUPP, 0, "sampling is not active");
	fd = memfd_create("flamekit-dump", MFD_CLOEXEC);
	if (fd < 0)
		return fk_err_set(err, FK_EIO, 0, "memfd_create: %s", strerror(errno));
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	rc = je_ctl("prof.dump", NULL, NULL, &pp, sizeof pp);
	if (rc != 0)
		ret = fk_err_set(err, FK_EIO, 0, "prof.dump to %s failed: %s (is /proc mounted?)",
				 path, strerror(rc));
	else
		ret = map_fd(fd, data, len, maplen, err);
	close(fd);
	return ret;
}
