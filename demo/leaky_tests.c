/* SPDX-License-Identifier: MIT */
/* The test run behind `make gate-demo` (scripts/gate-demo): a small unit
 * test binary whose tests leave memory in use at exit. Two of them keep
 * what the program means to keep for its life (a configuration, a string
 * intern table, both in demo/heap.budget); one leaks the tokens a parser
 * returns, which is what heap-check must catch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *config;
static char **interned;
static size_t ninterned;

__attribute__((noinline)) static char *config_load(size_t n)
{
	char *c = malloc(n);

	if (c)
		memset(c, 'c', n);
	return c;
}

__attribute__((noinline)) static const char *intern_string(const char *s)
{
	char **t = realloc(interned, (ninterned + 1) * sizeof *t);

	if (!t)
		return NULL;
	interned = t;
	interned[ninterned] = malloc(1024);
	if (!interned[ninterned])
		return NULL;
	snprintf(interned[ninterned], 1024, "%s", s);
	return interned[ninterned++];
}

/* Returns a token the caller must free: the bug is a caller that doesn't. */
__attribute__((noinline)) static char *parse_token(const char *text, size_t i)
{
	char *t = malloc(2048);

	if (t)
		snprintf(t, 2048, "%s#%zu", text, i);
	return t;
}

static int test_config(void)
{
	config = config_load(32 * 1024);
	return config != NULL;
}

static int test_intern(void)
{
	char name[32];

	for (int i = 0; i < 100; i++) {
		snprintf(name, sizeof name, "name-%d", i);
		if (!intern_string(name))
			return 0;
	}
	return 1;
}

static int test_parse(void)
{
	size_t ok = 0;

	for (size_t i = 0; i < 400; i++) {
		char *t = parse_token("key=value", i);

		ok += t && strchr(t, '=') != NULL;
		/* free(t) forgotten */
	}
	return ok == 400;
}

int main(void)
{
	static const struct { const char *name; int (*fn)(void); } tests[] = {
		{ "config", test_config }, { "intern", test_intern }, { "parse", test_parse },
	};
	int failed = 0;

	for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
		int ok = tests[i].fn();

		printf("%s %s\n", ok ? "ok" : "FAIL", tests[i].name);
		failed += !ok;
	}
	return failed != 0;
}
