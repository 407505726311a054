/* SPDX-License-Identifier: MIT */
/* Helpers shared by the tools' main functions: the program name, dying
 * allocation, the one-line error format of STYLE.md. Tools only; library
 * code (core/, the folders' libraries, the hook) never prints. */
#ifndef FK_CLI_H
#define FK_CLI_H

#include <stddef.h>
#include <stdio.h>

#include "err.h"

/* The program name used in messages ("jeprof-raw"). Set by fk_cli_init. */
extern const char *fk_progname;

/* Records argv[0]'s base name as fk_progname. */
void fk_cli_init(const char *argv0);

/* Prints "PROG: MSG" on stderr. */
void fk_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints "PROG: PATH: line N: MSG" for err on stderr. */
void fk_warn_err(const struct fk_err *err);

/* Prints like fk_warn and exits with status 1. */
void fk_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* fk_warn_err as a library's warning callback (ctx unused). */
void fk_warn_cb(void *ctx, const struct fk_err *err);

/* Prints err like fk_warn_err and exits with status 1. */
void fk_die_err(const struct fk_err *err) __attribute__((noreturn));

/* Prints a tool's usage text on fp (stdout for --help, stderr for bad
 * usage) and exits with status (0 or 2). */
void fk_usage(const char *text, FILE *fp, int status) __attribute__((noreturn));

/* Prints "PROG: MSG" and the usage text on stderr and exits 2. */
void fk_bad_usage(const char *text, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

/* Prints "PROG VERSION" on stdout and exits 0. */
void fk_print_version(void) __attribute__((noreturn));

/* The rows every tool's getopt_long table ends with (<getopt.h>):
 * --help as 'h', --version as 'V', the end. */
#define FK_CLI_OPTIONS_END                                                      \
	{ "help", no_argument, NULL, 'h' }, { "version", no_argument, NULL, 'V' }, \
	{ NULL, 0, NULL, 0 }

/* The options no case of a tool's own took: 'h' prints usage_text on
 * stdout and exits 0, 'V' prints the version, any other is bad usage
 * (usage_text on stderr, exit 2). */
void fk_cli_option(int c, const char *usage_text) __attribute__((noreturn));

/* A tool's one input after its options (getopt's optind): argv[optind],
 * or "-" (stdin) when there is none; a second is bad usage (exit 2). */
const char *fk_cli_operand(int argc, char **argv, const char *usage_text);

struct fk_out;
struct fk_profile;

/* Reads and parses a raw or symbolized profile from path ("-" or NULL =
 * stdin), mapping regular files; prints the error and exits 1 on failure.
 * The caller frees the result with fk_profile_free. */
struct fk_profile *fk_cli_load(const char *path);

/* For tools that name frames: one line on stderr when p is a raw,
 * unsymbolized profile, saying that symbolize gives names. */
void fk_cli_note_unsymbolized(const struct fk_profile *p);

/* Opens the all-or-nothing output (io.h) for path (NULL or "-" = stdout);
 * exits 1 on failure. */
void fk_cli_open_out(struct fk_out *out, const char *path);

/* Finishes out after a writer returned rc (0, or -1 with err, which names
 * what the writer was given): commits, or removes the partial file, prints
 * the error (a failed commit names the output) and exits 1. */
void fk_cli_commit_out(struct fk_out *out, int rc, struct fk_err *err);

/* The modules a tool warned about, so that each is told once. */
struct fk_cli_warned {
	char **mods;
	size_t n;
};

/* The symbolize library's warning callback: "PROG: MODULE: WHAT" on stderr,
 * once per module in ctx (a struct fk_cli_warned). */
void fk_cli_warn_module(void *ctx, const char *module, const char *what);

/* Frees what w holds. */
void fk_cli_warned_release(struct fk_cli_warned *w);

/* Allocation that dies with a message when out of memory. */
void *fk_xmalloc(size_t n);
void *fk_xrealloc(void *p, size_t n);

#endif
