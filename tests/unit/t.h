/* SPDX-License-Identifier: MIT */
/* A tiny assert header for unit tests: prints TAP-style "ok"/"not ok" lines
 * that tests/run-all counts. */
#ifndef FK_T_H
#define FK_T_H

#include <stdio.h>
#include <string.h>

static int t_n, t_failed;

#define T_OK(cond, ...) do { \
	t_n++; \
	if (cond) { printf("ok %d - ", t_n); } \
	else { t_failed++; printf("not ok %d - %s:%d: ", t_n, __FILE__, __LINE__); } \
	printf(__VA_ARGS__); putchar('\n'); \
} while (0)

#define T_EQ_INT(a, b, name) do { long long t_a = (long long)(a), t_b = (long long)(b); \
	T_OK(t_a == t_b, "%s (%lld == %lld)", name, t_a, t_b); } while (0)

#define T_EQ_STR(a, b, name) do { const char *t_a = (a), *t_b = (b); \
	T_OK(t_a && t_b && strcmp(t_a, t_b) == 0, "%s ('%s' == '%s')", name, \
	     t_a ? t_a : "(null)", t_b ? t_b : "(null)"); } while (0)

#define T_DONE() (fflush(stdout), t_failed ? 1 : 0)

#endif
