/* SPDX-License-Identifier: MIT */
/* What the hook's flame pages say of their profile: the origin's
 * KEY=VALUE lines (man/render-flame.1, "Origin"; render/pageinfo.c checks
 * them) that fk_flame_opts.info carries to the page's header, and the
 * stamp that gives a page kept for a later request that request's time. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "serve_int.h"
#include "life.h"

/* Appends "key=VALUE\n" to buf[0..*n) (FK_ORIGIN_SIZE): v[0..vn) cut to
 * FK_MAX_INFO_VALUE bytes (never inside a UTF-8 character), a control
 * byte made '?', so a path or a host name is one line of the page's
 * text whatever it holds. */
static void put_text(char *buf, size_t *n, const char *key, const char *v, size_t vn)
{
	size_t k = strlen(key);

	if (vn > FK_MAX_INFO_VALUE) {
		vn = FK_MAX_INFO_VALUE;
		while (vn > 0 && ((unsigned char)v[vn] & 0xc0) == 0x80)
			vn--;
	}
	if (*n + k + vn + 2 > FK_ORIGIN_SIZE || vn == 0)
		return;
	memcpy(buf + *n, key, k);
	buf[*n + k] = '=';
	*n += k + 1;
	for (size_t i = 0; i < vn; i++) {
		unsigned char c = (unsigned char)v[i];

		buf[(*n)++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
	}
	buf[(*n)++] = '\n';
}

/* Appends "key=" and x with at most `decimals` decimals, its trailing
 * zeros left out ("4", "0.64"). */
static void put_num(char *buf, size_t *n, const char *key, double x, int decimals)
{
	char v[64];
	int len = snprintf(v, sizeof v, "%.*f", decimals, x);

	if (len <= 0 || (size_t)len >= sizeof v)
		return;
	if (memchr(v, '.', (size_t)len)) {
		while (v[len - 1] == '0')
			len--;
		if (v[len - 1] == '.')
			len--;
	}
	put_text(buf, n, key, v, (size_t)len);
}

const char *fk_origin_text(const struct fk_origin *o, char *buf)
{
	char path[FK_MAX_INFO_VALUE + 1], host[256], v[32];
	size_t n = 0;
	ssize_t pn;

	/* The time first: fk_origin_stamp finds it at the start. */
	snprintf(v, sizeof v, "%lld", (long long)(o->time > 0 ? o->time : (double)time(NULL)));
	put_text(buf, &n, "time", v, strlen(v));
	pn = readlink("/proc/self/exe", path, sizeof path);
	if (pn > 0)
		put_text(buf, &n, "program", path, (size_t)pn);
	snprintf(v, sizeof v, "%ld", (long)getpid());
	put_text(buf, &n, "pid", v, strlen(v));
	if (gethostname(host, sizeof host) == 0) {
		host[sizeof host - 1] = '\0';
		put_text(buf, &n, "host", host, strlen(host));
	}
	if (o->sample_type)
		put_text(buf, &n, "sample_type", o->sample_type, strlen(o->sample_type));
	if (o->period)
		put_num(buf, &n, "sample_period", (double)o->period, 0);
	if (o->life) {
		snprintf(v, sizeof v, "%llu", (unsigned long long)o->life->records);
		put_text(buf, &n, "records", v, strlen(v));
		put_num(buf, &n, "span_s", o->life->span_s, 3);
	}
	if (o->clock_ms > 0)
		put_num(buf, &n, "clock_ms", o->clock_ms, 6);
	if (o->waste) {
		/* With the pid: a page proxied from another process links to
		 * that process's. */
		snprintf(v, sizeof v, "%ld", (long)getpid());
		snprintf(path, sizeof path, "/internal/heap/waste?format=flame&pid=%s", v);
		put_text(buf, &n, "waste", path, strlen(path));
	}
	buf[n] = '\0';
	return buf;
}

void fk_origin_stamp(char *page, size_t len)
{
	static const char at[] = "<metadata id=\"fkinfo\">\ntime=";
	char *p = memmem(page, len, at, sizeof at - 1), v[32];
	size_t old = 0;
	int n;

	if (!p)
		return;
	p += sizeof at - 1;
	while (p + old < page + len && p[old] >= '0' && p[old] <= '9')
		old++;
	/* The same number of digits (until the year 2286): in place. */
	n = snprintf(v, sizeof v, "%lld", (long long)time(NULL));
	if (n > 0 && (size_t)n == old)
		memcpy(p, v, old);
}
