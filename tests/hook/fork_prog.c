/* SPDX-License-Identifier: MIT */
/* A test host in the shapes real services have (tests/hook/fork.t,
 * closefds.t, workers.t, daemon.t, state.t): it forks often, keeps
 * pre-forked workers, daemonizes, closes every inherited descriptor or
 * execs itself. It allocates in named, non-inlined functions that the
 * tests look for in profiles. Run it preloaded with the hook and jemalloc.
 * Every mode that takes commands prints "ready PID" first and answers each
 * command (one a line on stdin) on stdout, so a test waits for events:
 *   storm SECONDS RATE  after one line on stdin, allocates (storm_alloc)
 *           and forks RATE times a second for SECONDS; the children in
 *           turn _exit at once, exec /bin/true, or allocate for 0.3 s
 *           (storm_child_alloc) and exit; prints "forks N" each second and
 *           "done forks=N reaped=N bad=N stuck=N" at the end (bad: a child
 *           that did not exit 0; stuck: one still there 10 s after the end),
 *           then stays, still served, until stdin closes
 *   prefork N  forks N workers that allocate in worker_churn until their
 *           parent goes (the first forks one more worker itself); each
 *           prints "worker PID PPID". Commands: grow N (master_grow),
 *           spawn (one more worker), shell (fork and exec /bin/sleep 30:
 *           "shell PID"), quit (TERM the workers, wait, exit 0)
 *   daemon | daemon1  after one line on stdin, daemonizes: fork, the
 *           parent exit(3)s, setsid, fork again (daemon), or daemon(3)
 *           (daemon1: one fork, the parent _exits); the daemon prints
 *           "daemon PID" and allocates in daemon_churn until SIGTERM
 *           (at most 300 s); with "stop" after the mode, the daemon stops
 *           itself (SIGSTOP) right after that line, before its hook
 *           thread starts (100 ms after the fork), until continued
 *   closefds DIR  commands: close range|loop (close every descriptor from
 *           3 up with close_range(2), or one by one from /proc/self/fd,
 *           then reuse the numbers for files in DIR, a pipe and a
 *           listening socket: "reused FD..."), check ("intact" or
 *           "broken fd N: why"), fork (a child checks the same:
 *           "child intact" or "child broken STATUS"), grow N
 *           (closefds_alloc), quit
 *   reexec [GEN]  prints "ready PID gen GEN"; commands: system (runs
 *           "fdcheck" through system(3) without LD_PRELOAD: "system
 *           STATUS"), exec (execs itself in the same pid, GEN + 1),
 *           grow N (reexec_grow), quit
 *   forkexec MS  forks one worker (as prefork's: "worker PID PPID", it
 *           allocates in worker_churn until its parent goes), then MS
 *           milliseconds later execs itself in the same pid as "reexec 2",
 *           as haproxy -W's master does at every start and reload
 *   fdcheck  prints "fd N LINK" for every descriptor it inherited, then
 *           "flamekit-fds N tampered N": it overwrites every descriptor
 *           named flamekit after its first 16 bytes with zeros, as a
 *           hostile child could. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Blocks kept by the grow commands, each under its own name. */
#define KEEP_FIRST 256
#include "prog_keep.h"

#define BLOCK (64 * 1024)
#define RING 64

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Fills a fresh block so it is really used. */
static void *touch(size_t n)
{
	char *p = malloc(n);

	if (p)
		memset(p, 7, n);
	return p;
}


__attribute__((noinline)) void *master_grow(size_t n);
__attribute__((noinline)) void *master_grow(size_t n) { return touch(n); }
__attribute__((noinline)) void *closefds_alloc(size_t n);
__attribute__((noinline)) void *closefds_alloc(size_t n) { return touch(n); }
__attribute__((noinline)) void *reexec_grow(size_t n);
__attribute__((noinline)) void *reexec_grow(size_t n) { return touch(n); }

static void grow(void *(*fn)(size_t), long n)
{
	for (long i = 0; i < n; i++)
		if (keep(fn(BLOCK)) < 0) {
			printf("failed %zu\n", nkept);
			return;
		}
	printf("grown %zu\n", nkept);
}

/* Answers the commands on stdin until "quit" or the end of input: each
 * line goes first to own (a mode's commands, with its arg; 0 when it took
 * the line), then "grow N" keeps N blocks allocated in fn, and anything
 * else is "unknown". */
static void commands(int (*own)(const char *line, void *arg), void *arg,
		     void *(*fn)(size_t))
{
	char line[128];
	long k;

	while (fgets(line, sizeof line, stdin)) {
		if (own(line, arg) == 0)
			continue;
		if (sscanf(line, "grow %ld", &k) == 1)
			grow(fn, k);
		else if (strcmp(line, "quit\n") == 0)
			break;
		else
			printf("unknown\n");
	}
}

/* A ring of blocks, one replaced each call: a steady heap that keeps
 * being sampled afresh. */
__attribute__((noinline)) void worker_churn(void **ring, unsigned *i);
__attribute__((noinline)) void worker_churn(void **ring, unsigned *i)
{
	free(ring[*i % RING]);
	ring[*i % RING] = touch(BLOCK);
	(*i)++;
}

__attribute__((noinline)) void daemon_churn(void **ring, unsigned *i);
__attribute__((noinline)) void daemon_churn(void **ring, unsigned *i)
{
	free(ring[*i % RING]);
	ring[*i % RING] = touch(BLOCK);
	(*i)++;
}

/* ---- storm ---- */

__attribute__((noinline)) void storm_alloc(void **slots, unsigned *seed);
__attribute__((noinline)) void storm_alloc(void **slots, unsigned *seed)
{
	for (int i = 0; i < 200; i++) {
		unsigned r = (unsigned)rand_r(seed);
		unsigned k = r % 256;

		free(slots[k]);
		slots[k] = touch(16 + (r >> 8) % 16384);
	}
}

__attribute__((noinline)) void storm_child_alloc(void);
__attribute__((noinline)) void storm_child_alloc(void)
{
	void *ring[RING] = { 0 };
	unsigned i = 0;
	double end = now() + 0.3;

	while (now() < end) {
		free(ring[i % RING]);
		ring[i % RING] = touch(4096 + i % 8192);
		i++;
		nap_ms(2);
	}
	for (i = 0; i < RING; i++)
		free(ring[i]);
}

static void storm_child(long n)
{
	switch (n % 3) {
	case 0:
		_exit(0);
	case 1:
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	default:
		storm_child_alloc();
		_exit(0);
	}
}

/* The storm's children not reaped yet, so that stuck ones can be killed. */
static pid_t live[4096];

static void track(pid_t p)
{
	for (int i = 0; i < 4096; i++)
		if (live[i] == 0) {
			live[i] = p;
			return;
		}
}

static int reap(int *bad)
{
	int st, n = 0;
	pid_t p;

	while ((p = waitpid(-1, &st, WNOHANG)) > 0) {
		n++;
		for (int i = 0; i < 4096; i++)
			if (live[i] == p)
				live[i] = 0;
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			(*bad)++;
	}
	return n;
}

static int run_storm(double seconds, double rate)
{
	static void *slots[256];
	char line[64];
	unsigned seed = 1;
	long forks = 0;
	int reaped = 0, bad = 0, failed = 0;
	double start, next, tick, end;

	printf("ready %ld\n", (long)getpid());
	if (!fgets(line, sizeof line, stdin))
		return 1;
	start = now();
	end = start + seconds;
	next = start;
	tick = start + 1;
	while (now() < end) {
		storm_alloc(slots, &seed);
		if (now() >= next) {
			pid_t p = fork();

			if (p == 0)
				storm_child(forks);
			if (p < 0) {
				failed++;
			} else {
				forks++;
				track(p);
			}
			next += 1 / rate;
		}
		reaped += reap(&bad);
		if (now() >= tick) {
			printf("forks %ld\n", forks);
			tick += 1;
		}
		nap_ms(1);
	}
	/* The children that live a while end within 0.3 s; give them 10. */
	for (double t = now() + 10; reaped < forks && now() < t; nap_ms(10))
		reaped += reap(&bad);
	printf("done forks=%ld reaped=%d bad=%d stuck=%ld failed=%d\n", forks, reaped, bad,
	       forks - reaped, failed);
	for (int i = 0; i < 4096; i++)
		if (live[i] > 0)
			kill(live[i], SIGKILL);
	/* Still served after the storm, until the test closes stdin. */
	while (fgets(line, sizeof line, stdin))
		;
	return 0;
}

/* ---- prefork ---- */

static volatile sig_atomic_t got_term;

static void on_term(int sig)
{
	(void)sig;
	got_term = 1;
}

static void on_chld(int sig)
{
	int e = errno;

	(void)sig;
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	errno = e;
}

static void worker_main(int sub);

static pid_t spawn_worker(int sub)
{
	pid_t parent = getpid();
	pid_t p = fork();

	if (p == 0) {
		/* Leave with the parent, as a pool's workers do. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(0);
		worker_main(sub);
		_exit(0);
	}
	return p;
}

static void worker_main(int sub)
{
	void *ring[RING] = { 0 };
	unsigned i = 0;
	pid_t parent = getppid();
	struct sigaction sa;
	double end = now() + 300;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	printf("worker %ld %ld\n", (long)getpid(), (long)parent);
	if (sub)
		spawn_worker(0);
	while (!got_term && getppid() == parent && now() < end) {
		worker_churn(ring, &i);
		nap_ms(10);
	}
	for (i = 0; i < RING; i++)
		free(ring[i]);
}

/* The master's workers, and its own commands: spawn, shell. */
struct workers {
	pid_t pids[256];
	int np;
};

static int master_cmd(const char *line, void *arg)
{
	struct workers *w = arg;
	pid_t p;

	if (strcmp(line, "spawn\n") == 0) {
		p = w->np < 256 ? spawn_worker(0) : -1;
		if (p > 0)
			w->pids[w->np++] = p;
		printf("spawned %ld\n", (long)p);
	} else if (strcmp(line, "shell\n") == 0) {
		p = fork();
		if (p == 0) {
			execl("/bin/sleep", "sleep", "30", (char *)NULL);
			_exit(127);
		}
		if (p > 0 && w->np < 256)
			w->pids[w->np++] = p;
		printf("shell %ld\n", (long)p);
	} else {
		return -1;
	}
	return 0;
}

static int run_prefork(long n)
{
	struct workers w = { .np = 0 };
	struct sigaction sa;

	if (n < 1 || n > 64)
		return 2;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_chld;
	sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, NULL);
	printf("ready %ld\n", (long)getpid());
	for (long i = 0; i < n; i++)
		w.pids[w.np++] = spawn_worker(i == 0);
	commands(master_cmd, &w, master_grow);
	for (int i = 0; i < w.np; i++)
		if (w.pids[i] > 0)
			kill(w.pids[i], SIGTERM);
	printf("bye\n");
	return 0;
}

/* ---- daemon ---- */

static int run_daemon(int glibc, int stop)
{
	void *ring[RING] = { 0 };
	unsigned i = 0;
	char line[64];
	struct sigaction sa;
	double end;

	printf("ready %ld\n", (long)getpid());
	if (!fgets(line, sizeof line, stdin))
		return 1;
	fflush(stdout);
	if (glibc) {
		/* Keep the directory and the descriptors: the test reads stdout. */
		if (daemon(1, 1) < 0)
			return 1;
	} else {
		pid_t p = fork();

		if (p < 0)
			return 1;
		if (p > 0)
			exit(0);
		if (setsid() < 0)
			_exit(1);
		p = fork();
		if (p < 0)
			_exit(1);
		if (p > 0)
			_exit(0);
	}
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	printf("daemon %ld\n", (long)getpid());
	if (stop)
		raise(SIGSTOP);
	for (end = now() + 300; !got_term && now() < end; nap_ms(10))
		daemon_churn(ring, &i);
	printf("daemon ends\n");
	return 0;
}

/* ---- closefds ---- */

#define NOWN 9

struct own {
	int fd;
	int kind; /* 0 file, 1 pipe read end, 2 pipe write end, 3 socket */
	dev_t dev;
	ino_t ino;
	int port;
};

static struct own owns[NOWN];
static int nown;

static void close_all(int by_range)
{
	if (by_range && syscall(SYS_close_range, 3U, ~0U, 0) == 0)
		return;
	if (by_range) {
		for (int fd = 3; fd < 65536; fd++)
			close(fd);
		return;
	}
	/* As daemons without close_range do: every number /proc lists. */
	int fds[4096], n = 0;
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)) != NULL && n < 4096) {
		int fd = atoi(e->d_name);

		if (fd >= 3 && fd != dirfd(d))
			fds[n++] = fd;
	}
	closedir(d);
	for (int i = 0; i < n; i++)
		close(fds[i]);
}

static int note(int fd, int kind, int port)
{
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0 || nown == NOWN)
		return -1;
	owns[nown].fd = fd;
	owns[nown].kind = kind;
	owns[nown].dev = st.st_dev;
	owns[nown].ino = st.st_ino;
	owns[nown].port = port;
	nown++;
	return 0;
}

static int reuse(const char *dir)
{
	char path[4096], text[32];
	int p[2], s, one = 1;
	struct sockaddr_in a;
	socklen_t al = sizeof a;

	nown = 0;
	for (int i = 0; i < 6; i++) {
		int fd;

		snprintf(path, sizeof path, "%s/own.%d", dir, i);
		fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
		snprintf(text, sizeof text, "own file %d\n", i);
		if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
			return -1;
		if (note(fd, 0, i) < 0)
			return -1;
	}
	if (pipe(p) < 0 || note(p[0], 1, 0) < 0 || note(p[1], 2, 0) < 0)
		return -1;
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	s = socket(AF_INET, SOCK_STREAM, 0);
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (s < 0 || setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
	    bind(s, (struct sockaddr *)&a, sizeof a) < 0 || listen(s, 8) < 0 ||
	    getsockname(s, (struct sockaddr *)&a, &al) < 0)
		return -1;
	return note(s, 3, ntohs(a.sin_port));
}

/* 0 when every descriptor the program reused is still its own and works;
 * else writes why into why. */
static int check_own(char *why, size_t n)
{
	for (int i = 0; i < nown; i++) {
		struct own *o = &owns[i];
		struct stat st;
		char buf[64], want[32];
		ssize_t r;

		if (fstat(o->fd, &st) < 0) {
			snprintf(why, n, "fd %d: closed (%s)", o->fd, strerror(errno));
			return -1;
		}
		if (st.st_dev != o->dev || st.st_ino != o->ino) {
			snprintf(why, n, "fd %d: now another file", o->fd);
			return -1;
		}
		switch (o->kind) {
		case 0:
			snprintf(want, sizeof want, "own file %d\n", o->port);
			r = pread(o->fd, buf, sizeof buf, 0);
			if (r != (ssize_t)strlen(want) || memcmp(buf, want, (size_t)r) != 0) {
				snprintf(why, n, "fd %d: content changed", o->fd);
				return -1;
			}
			break;
		case 1:
			if (i + 1 >= nown || write(owns[i + 1].fd, "x", 1) != 1) {
				snprintf(why, n, "fd %d: pipe not writable", owns[i + 1].fd);
				return -1;
			}
			r = read(o->fd, buf, sizeof buf);
			if (r != 1 || buf[0] != 'x') {
				snprintf(why, n, "fd %d: pipe lost its byte (read %zd)", o->fd, r);
				return -1;
			}
			break;
		case 3: {
			struct sockaddr_in a;
			socklen_t al = sizeof a;
			int acc = 0;
			socklen_t accl = sizeof acc;

			if (getsockname(o->fd, (struct sockaddr *)&a, &al) < 0 ||
			    ntohs(a.sin_port) != o->port ||
			    getsockopt(o->fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &accl) < 0 || !acc) {
				snprintf(why, n, "fd %d: no longer the listening socket", o->fd);
				return -1;
			}
			break;
		}
		default:
			break;
		}
	}
	return 0;
}

static void fork_check(void)
{
	char why[256];
	pid_t p = fork();
	int st = 0;

	if (p == 0) {
		if (check_own(why, sizeof why) < 0) {
			printf("in child: broken %s\n", why);
			_exit(3);
		}
		_exit(0);
	}
	if (p < 0) {
		printf("child broken fork failed\n");
		return;
	}
	for (double t = now() + 10; now() < t; nap_ms(10))
		if (waitpid(p, &st, WNOHANG) == p) {
			if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
				printf("child intact\n");
			else
				printf("child broken %d\n", st);
			return;
		}
	kill(p, SIGKILL);
	waitpid(p, NULL, 0);
	printf("child broken stuck\n");
}

/* closefds' own commands (arg: the folder of the files it reopens). */
static int closefds_cmd(const char *line, void *arg)
{
	char why[256];

	if (strcmp(line, "close range\n") == 0 || strcmp(line, "close loop\n") == 0) {
		close_all(line[6] == 'r');
		if (reuse(arg) < 0) {
			printf("reuse failed: %s\n", strerror(errno));
			return 0;
		}
		printf("reused");
		for (int i = 0; i < nown; i++)
			printf(" %d", owns[i].fd);
		printf("\n");
	} else if (strcmp(line, "check\n") == 0) {
		if (check_own(why, sizeof why) == 0)
			printf("intact\n");
		else
			printf("broken %s\n", why);
	} else if (strcmp(line, "fork\n") == 0) {
		fork_check();
	} else {
		return -1;
	}
	return 0;
}

static int run_closefds(const char *dir)
{
	printf("ready %ld\n", (long)getpid());
	commands(closefds_cmd, (void *)dir, closefds_alloc);
	printf("bye\n");
	return 0;
}

/* ---- forkexec ---- */

static int run_forkexec(long ms)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);

	if (n <= 0 || ms < 0)
		return 2;
	self[n] = '\0';
	printf("ready %ld\n", (long)getpid());
	if (spawn_worker(0) < 0)
		return 1;
	nap_ms(ms);
	fflush(stdout);
	execl(self, self, "reexec", "2", (char *)NULL);
	printf("exec failed: %s\n", strerror(errno));
	return 1;
}

/* ---- reexec and fdcheck ---- */

/* The program's own path and this image's generation: reexec's
 * commands system and exec. */
struct image {
	char self[4096];
	long gen;
};

static int reexec_cmd(const char *line, void *arg)
{
	const struct image *im = arg;
	char cmd[8192], g[32];
	int rc;

	if (strcmp(line, "system\n") == 0) {
		snprintf(cmd, sizeof cmd, "exec env -u LD_PRELOAD '%s' fdcheck", im->self);
		fflush(stdout);
		rc = system(cmd);
		printf("system %d\n", rc);
	} else if (strcmp(line, "exec\n") == 0) {
		snprintf(g, sizeof g, "%ld", im->gen + 1);
		fflush(stdout);
		execl(im->self, im->self, "reexec", g, (char *)NULL);
		printf("exec failed: %s\n", strerror(errno));
	} else {
		return -1;
	}
	return 0;
}

static int run_reexec(long gen)
{
	static struct image im;
	ssize_t n = readlink("/proc/self/exe", im.self, sizeof im.self - 1);

	if (n <= 0)
		return 1;
	im.self[n] = '\0';
	im.gen = gen;
	printf("ready %ld gen %ld\n", (long)getpid(), gen);
	commands(reexec_cmd, &im, reexec_grow);
	printf("bye\n");
	return 0;
}

static int run_fdcheck(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int found = 0, tampered = 0;

	if (!d)
		return 1;
	while ((e = readdir(d)) != NULL) {
		char path[64], link[256];
		ssize_t n;
		int fd;
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		fd = atoi(e->d_name);
		if (fd == dirfd(d))
			continue;
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
		n = readlink(path, link, sizeof link - 1);
		if (n < 0)
			continue;
		link[n] = '\0';
		printf("fd %d %s\n", fd, link);
		if (!strstr(link, "flamekit"))
			continue;
		found++;
		if (fstat(fd, &st) == 0 && st.st_size > 16) {
			size_t len = (size_t)st.st_size - 16;
			char *z = calloc(1, len);

			if (z && pwrite(fd, z, len, 16) == (ssize_t)len)
				tampered++;
			free(z);
		}
	}
	closedir(d);
	printf("flamekit-fds %d tampered %d\n", found, tampered);
	return 0;
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (strcmp(m, "storm") == 0 && argc == 4)
		return run_storm(atof(argv[2]), atof(argv[3]));
	if (strcmp(m, "prefork") == 0 && argc == 3)
		return run_prefork(atol(argv[2]));
	if (strcmp(m, "daemon") == 0 || strcmp(m, "daemon1") == 0)
		return run_daemon(m[6] == '1', argc > 2 && strcmp(argv[2], "stop") == 0);
	if (strcmp(m, "closefds") == 0 && argc == 3)
		return run_closefds(argv[2]);
	if (strcmp(m, "reexec") == 0)
		return run_reexec(argc > 2 ? atol(argv[2]) : 1);
	if (strcmp(m, "fdcheck") == 0)
		return run_fdcheck();
	if (strcmp(m, "forkexec") == 0 && argc == 3)
		return run_forkexec(atol(argv[2]));
	fprintf(stderr, "usage: hook-fork-prog storm SECONDS RATE | prefork N | daemon|daemon1 [stop] | "
			"closefds DIR | reexec [GEN] | forkexec MS | fdcheck\n");
	return 2;
}
