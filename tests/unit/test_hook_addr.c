/* SPDX-License-Identifier: MIT */
/* Unit tests of capture/hook_addr.c: the listen-address syntax, the
 * loopback rule for addresses and for Host headers. */
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "t.h"
#include "hook_int.h"

static int parses(const char *s, int names, int *family, int *loop)
{
	struct fk_addr a;
	struct fk_err err;

	fk_err_init(&err, NULL);
	if (fk_addr_parse(s, names, &a, &err) < 0)
		return 0;
	*family = a.family;
	*loop = a.loopback;
	return 1;
}

static const char *parse_error(const char *s)
{
	static struct fk_err err;
	struct fk_addr a;

	fk_err_init(&err, NULL);
	if (fk_addr_parse(s, 0, &a, &err) == 0)
		return "(parsed)";
	return err.msg;
}

int main(void)
{
	int fam = 0, loop = 0;

	T_OK(parses("127.0.0.1:6060", 0, &fam, &loop) && fam == AF_INET && loop,
	     "127.0.0.1:6060 is loopback IPv4");
	T_OK(parses("127.8.9.10:1", 0, &fam, &loop) && loop, "all of 127/8 is loopback");
	T_OK(parses("[::1]:6060", 0, &fam, &loop) && fam == AF_INET6 && loop,
	     "[::1]:6060 is loopback IPv6");
	T_OK(parses("[::ffff:127.0.0.1]:6060", 0, &fam, &loop) && loop,
	     "v4-mapped loopback is loopback");
	T_OK(parses("localhost:6060", 0, &fam, &loop) && fam == AF_INET && loop,
	     "localhost is 127.0.0.1");
	T_OK(parses("unix:/tmp/x.sock", 0, &fam, &loop) && fam == AF_UNIX && loop,
	     "unix:/path counts as loopback");
	T_OK(parses("0.0.0.0:6060", 0, &fam, &loop) && !loop, "0.0.0.0 is not loopback");
	T_OK(parses("[::]:6060", 0, &fam, &loop) && !loop, ":: is not loopback");
	T_OK(parses("10.1.2.3:80", 0, &fam, &loop) && !loop, "10.1.2.3 is not loopback");
	T_OK(parses("[::ffff:10.0.0.1]:80", 0, &fam, &loop) && !loop,
	     "v4-mapped non-loopback is not loopback");

	T_EQ_STR(parse_error("127.0.0.1"),
		 "bad address '127.0.0.1': want HOST:PORT, [V6ADDR]:PORT or unix:/PATH", "no port");
	T_EQ_STR(parse_error("127.0.0.1:0"), "bad port in '127.0.0.1:0'", "port 0");
	T_EQ_STR(parse_error("127.0.0.1:65536"), "bad port in '127.0.0.1:65536'", "port too big");
	T_EQ_STR(parse_error("127.0.0.1:+80"), "bad port in '127.0.0.1:+80'", "signed port");
	T_EQ_STR(parse_error("::1:6060"),
		 "bad address '::1:6060': want HOST:PORT, [V6ADDR]:PORT or unix:/PATH",
		 "bare IPv6 needs brackets");
	T_EQ_STR(parse_error("[::1]6060"), "bad address '[::1]6060': want [V6ADDR]:PORT",
		 "bracket without colon");
	T_EQ_STR(parse_error(":6060"), "bad host in ':6060'", "empty host");
	T_EQ_STR(parse_error("unix:"), "empty unix socket path in 'unix:'", "empty unix path");
	T_OK(strstr(parse_error("example.invalid:80"), "use a numeric address") != NULL,
	     "names other than localhost are refused for listening");
	{
		char longp[200];

		memset(longp, 'a', sizeof longp);
		memcpy(longp, "unix:/", 6);
		longp[sizeof longp - 1] = '\0';
		T_OK(strstr(parse_error(longp), "too long") != NULL, "unix path over 107 bytes");
	}

#define HOST(s, want) T_EQ_INT(fk_host_is_loopback(s, strlen(s)), want, "Host '" s "'")
	HOST("localhost", 1);
	HOST("LocalHost:6060", 1);
	HOST("127.0.0.1", 1);
	HOST("127.0.0.1:6060", 1);
	HOST("127.255.0.9:1", 1);
	HOST("[::1]", 1);
	HOST("[::1]:6060", 1);
	HOST("[::ffff:127.0.0.1]:80", 1);
	HOST("evil.example", 0);
	HOST("evil.example:6060", 0);
	HOST("127.0.0.1.evil.example", 0);
	HOST("localhost.evil.example", 0);
	HOST("10.0.0.1:6060", 0);
	HOST("[::2]:6060", 0);
	HOST("[::1]x", 0);
	/* The port after a bracketed address is checked like any other. */
	HOST("[::1]:abc", 0);
	HOST("[::1]:", 0);
	HOST("[::1]:70000", 0);
	HOST("[::1]:6060x", 0);
	HOST("[::1]:65535", 1);
	HOST("127.0.0.1:99999", 0);
	HOST("127.0.0.1:", 0);
	HOST(":6060", 0);
	HOST("", 0);
	HOST("0x7f000001", 0);

	/* Listening: a live unix socket is not stolen; a stale one is replaced. */
	{
		char dir[] = "/tmp/fk-addr-XXXXXX", spec[128];
		struct fk_addr a;
		struct fk_err err;
		int fd1, fd2, fd3;

		if (mkdtemp(dir)) {
			snprintf(spec, sizeof spec, "unix:%s/s", dir);
			fk_err_init(&err, NULL);
			fk_addr_parse(spec, 0, &a, &err);
			fd1 = fk_addr_listen(&a, 4, &err);
			T_OK(fd1 >= 0, "listen on %s", spec);
			fd2 = fk_addr_listen(&a, 4, &err);
			T_OK(fd2 < 0 && strstr(err.msg, "Address already in use"),
			     "a live socket is not replaced (%s)", err.msg);
			close(fd1);
			fd3 = fk_addr_listen(&a, 4, &err);
			T_OK(fd3 >= 0, "a stale socket file is replaced");
			if (fd3 >= 0)
				close(fd3);
			snprintf(spec, sizeof spec, "%s/s", dir);
			unlink(spec);
			rmdir(dir);
		}
	}
	return T_DONE();
}
