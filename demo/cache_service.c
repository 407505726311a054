/* SPDX-License-Identifier: MIT */
/* The demo's "service": a key-value cache that keeps growing, a session
 * table with churn, a request log grown by realloc, and short-lived request
 * parsing buffers. It allocates in rounds until stopped, so a profile taken
 * at any moment shows a few clear allocation sites. Built by scripts/demo;
 * it knows nothing of flamekit: the hook is preloaded into it. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CACHE_MAX   40000               /* entries: about 60 MB at most */
#define SESSIONS    4096

struct entry {
	char *key;
	char *value;
	size_t len;
	struct entry *next;
};

static struct entry *cache[8192];
static size_t cache_count;
static void *sessions[SESSIONS];
static char *request_log;
static size_t log_len, log_cap;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static unsigned hash(const char *s)
{
	unsigned h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

__attribute__((noinline)) static char *copy_value(size_t len, unsigned seed)
{
	char *v = malloc(len);

	if (v)
		memset(v, (int)(seed & 0x7f), len);
	return v;
}

__attribute__((noinline)) static void cache_put(const char *key, size_t len, unsigned seed)
{
	struct entry *e;
	unsigned b = hash(key) % (sizeof cache / sizeof cache[0]);

	if (cache_count >= CACHE_MAX)
		return;
	e = malloc(sizeof *e);
	if (!e)
		return;
	e->key = strdup(key);
	e->value = copy_value(len, seed);
	e->len = len;
	e->next = cache[b];
	cache[b] = e;
	cache_count++;
}

__attribute__((noinline)) static void session_touch(unsigned id)
{
	unsigned slot = id % SESSIONS;

	/* Sessions are replaced now and then: churn without growth. */
	free(sessions[slot]);
	sessions[slot] = calloc(1, 256 + (id % 7) * 64);
}

__attribute__((noinline)) static void log_append(const char *line)
{
	size_t n = strlen(line);

	if (log_len + n + 1 > log_cap) {
		size_t cap = log_cap ? log_cap * 2 : 4096;
		char *nl = realloc(request_log, cap);

		if (!nl)
			return;
		request_log = nl;
		log_cap = cap;
	}
	memcpy(request_log + log_len, line, n + 1);
	log_len += n;
	if (log_len > (8u << 20))
		log_len = 0;           /* rotate: the buffer stays, the text restarts */
}

__attribute__((noinline)) static size_t parse_request(unsigned id, char *key, size_t keylen)
{
	/* Scratch memory freed at once: it must not show as in use. */
	char *scratch = malloc(16384);
	size_t len = 512 + (id * 7919u) % 3072;

	if (scratch) {
		snprintf(scratch, 16384, "GET /item/%u HTTP/1.1", id);
		snprintf(key, keylen, "item:%u", id);
		free(scratch);
	}
	return len;
}

static void handle_request(unsigned id)
{
	char key[64], line[128];
	size_t len = parse_request(id, key, sizeof key);

	pthread_mutex_lock(&lock);
	cache_put(key, len, id);
	session_touch(id);
	snprintf(line, sizeof line, "%u %s %zu\n", id, key, len);
	log_append(line);
	pthread_mutex_unlock(&lock);
}

static void *worker(void *arg)
{
	unsigned base = (unsigned)(size_t)arg, i = 0;

	while (!stop) {
		handle_request(base + i++ * 2);
		if (i % 200 == 0) {
			struct timespec ts = { 0, 2 * 1000 * 1000 };

			nanosleep(&ts, NULL);
		}
	}
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	size_t i;

	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	for (i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return 0;
}
