/* SPDX-License-Identifier: MIT */
/* Finding every jemalloc in the process: its mallctl among the exported
 * symbols (dlsym), then in the ELF symbol tables of each loaded object, the
 * executable first (a static jemalloc, prefixed `_rjem_` by Rust's
 * jemalloc-sys or not, exports nothing), including .gnu_debugdata and
 * build-id debug files (hook_elf.c reads a file's own tables; the serving
 * half's symbolize/symfind.c the rest). Each address found
 * is checked to lie in an executable segment of its object at the load
 * bias dl_iterate_phdr gives. */
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grow.h"
#include "hook_int.h"

/* A loaded object, copied out of dl_iterate_phdr (no work is done under
 * the loader's lock). */
struct obj {
	char path[512];
	uintptr_t bias;
	const ElfW(Phdr) *phdr;
	size_t nphdr;
	int is_exe;
};

struct objs {
	struct obj *v;
	size_t n, cap;
	uintptr_t self;            /* an address in this library */
};

static int in_exec_segment(const struct obj *o, uintptr_t addr)
{
	for (size_t i = 0; i < o->nphdr; i++) {
		const ElfW(Phdr) *ph = &o->phdr[i];
		uintptr_t lo = o->bias + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && addr >= lo &&
		    addr - lo < ph->p_memsz)
			return 1;
	}
	return 0;
}

static int collect(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct objs *os = arg;
	struct obj o;

	(void)size;
	memset(&o, 0, sizeof o);
	o.bias = info->dlpi_addr;
	o.phdr = info->dlpi_phdr;
	o.nphdr = info->dlpi_phnum;
	if (os->n == 0 && (!info->dlpi_name || !info->dlpi_name[0])) {
		o.is_exe = 1;
		snprintf(o.path, sizeof o.path, "/proc/self/exe");
	} else if (info->dlpi_name && info->dlpi_name[0] == '/') {
		snprintf(o.path, sizeof o.path, "%s", info->dlpi_name);
	} else {
		return 0;              /* the vDSO: no file */
	}
	/* This library holds no jemalloc; the executable may, also when
	 * the hook is linked into it (libflamekit-hook.a: a Rust program
	 * with its static jemalloc). */
	if (!o.is_exe && in_exec_segment(&o, os->self))
		return 0;
	if (fk_reserve((void **)&os->v, &os->cap, os->n + 1, sizeof *os->v, 32) < 0)
		return 1;
	os->v[os->n++] = o;
	return 0;
}

/* Adds a copy unless its function is known already (the first way it was
 * found is kept: exported before .symtab). */
static size_t add(struct fk_je_copy *out, size_t n, size_t max, fk_mallctl_fn fn,
		  const char *sym, const char *module, const char *source, int in_exe)
{
	for (size_t i = 0; i < n; i++)
		if (out[i].ctl == fn)
			return n;
	if (n == max)
		return n;
	memset(&out[n], 0, sizeof out[n]);
	out[n].ctl = fn;
	snprintf(out[n].symbol, sizeof out[n].symbol, "%s", sym);
	snprintf(out[n].module, sizeof out[n].module, "%s", module);
	out[n].source = source;
	out[n].in_exe = in_exe;
	return n + 1;
}

/* The executable's path as users know it (the link /proc/self/exe names). */
static void exe_name(char *buf, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", buf, size - 1);

	if (n <= 0)
		snprintf(buf, size, "the executable");
	else
		buf[n] = '\0';
}

size_t fk_find_jemalloc(const char *const *names, size_t nnames,
			struct fk_je_copy *out, size_t max)
{
	struct objs os;
	size_t n = 0;
	char exe[512];
	Dl_info di;

	exe_name(exe, sizeof exe);
	memset(&os, 0, sizeof os);
	os.self = (uintptr_t)(void *)fk_find_jemalloc;
	dl_iterate_phdr(collect, &os);
	for (size_t i = 0; i < nnames; i++) {
		void *p = dlsym(RTLD_DEFAULT, names[i]);
		const char *mod = "?";
		int is_exe = 0;

		if (!p)
			continue;
		if (dladdr(p, &di) && di.dli_fname && di.dli_fname[0])
			mod = di.dli_fname;
		for (size_t k = 0; k < os.n; k++)
			if (os.v[k].is_exe && in_exec_segment(&os.v[k], (uintptr_t)p))
				is_exe = 1;
		n = add(out, n, max, (fk_mallctl_fn)(uintptr_t)p, names[i],
			is_exe ? exe : mod, "dynamic", is_exe);
	}
	for (size_t k = 0; k < os.n; k++) {
		const struct obj *o = &os.v[k];
		uint64_t vaddr;
		const char *table;
		int which = fk_elf_find_func(o->path, names, nnames, &vaddr, &table);

		if (which == FK_ELF_ASK) {
			/* minidebuginfo or a debug file: libdw's reader decides. */
			struct fk_err err;
			const struct fk_serve_ops *ops;

			fk_err_init(&err, NULL);
			ops = fk_serve_load(&err);
			which = ops ? ops->find_func(o->path, names, nnames, &vaddr, &table, &err) : -1;
		}
		if (which < 0)
			continue;
		uintptr_t addr = o->bias + (uintptr_t)vaddr;
		if (!in_exec_segment(o, addr))
			continue;
		n = add(out, n, max, (fk_mallctl_fn)addr, names[which],
			o->is_exe ? exe : o->path, table, o->is_exe);
	}
	free(os.v);
	return n;
}

/* Whether a segment of the executable holds addr (an executable one
 * when code). */
static int in_exe(uintptr_t addr, int code)
{
	struct objs os;
	int r = 0;

	memset(&os, 0, sizeof os);
	os.self = (uintptr_t)(void *)fk_find_exe_alloc;
	dl_iterate_phdr(collect, &os);
	for (size_t k = 0; k < os.n; k++) {
		const struct obj *o = &os.v[k];

		if (!o->is_exe)
			continue;
		for (size_t i = 0; i < o->nphdr && !r; i++) {
			const ElfW(Phdr) *ph = &o->phdr[i];
			uintptr_t lo = o->bias + ph->p_vaddr;

			r = ph->p_type == PT_LOAD && (!code || (ph->p_flags & PF_X)) &&
			    addr >= lo && addr - lo < ph->p_memsz;
		}
	}
	free(os.v);
	return r;
}

int fk_find_conf(char *module, size_t msize, char *value, size_t vsize)
{
	const char *const *p = dlsym(RTLD_DEFAULT, "malloc_conf");
	Dl_info di, self;

	snprintf(module, msize, "?");
	value[0] = '\0';
	if (!p)
		return -1;
	if (in_exe((uintptr_t)p, 0))
		exe_name(module, msize);
	else if (dladdr(p, &di) && di.dli_fname && di.dli_fname[0])
		snprintf(module, msize, "%s", di.dli_fname);
	/* The definition jemalloc reads is a pointer to the program's own
	 * constant string: shown bounded, and its control bytes as '?'. */
	if (*p) {
		size_t k = 0;

		for (const char *c = *p; *c && k + 1 < vsize && k < 200; c++)
			value[k++] = (unsigned char)*c < 0x20 || *c == '"' ? '?' : *c;
		value[k] = '\0';
	}
	if (dladdr(p, &di) && dladdr((void *)(uintptr_t)fk_find_conf, &self) &&
	    di.dli_fbase == self.dli_fbase)
		return 1;
	return 0;
}

int fk_find_exe_alloc(char *exe, size_t size)
{
	void *m = dlsym(RTLD_DEFAULT, "malloc");
	struct stat st;
	int r = 0, fd;

	exe_name(exe, size);
	if (m && in_exe((uintptr_t)m, 1))
		r |= FK_FIND_OWN_MALLOC;
	/* jemalloc's messages are in every build of it, stripped or not: the
	 * one sign left of a jemalloc whose symbols are all gone. */
	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return r;
	if (fstat(fd, &st) == 0 && st.st_size > 0 && (uint64_t)st.st_size < SIZE_MAX) {
		size_t n = (size_t)st.st_size;
		void *f = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0);

		if (f != MAP_FAILED) {
			if (memmem(f, n, "<jemalloc>:", 11))
				r |= FK_FIND_HAS_JEMALLOC;
			if (memmem(f, n, "_RJEM_MALLOC_CONF", 17))
				r |= FK_FIND_RJEM;
			munmap(f, n);
		}
	}
	close(fd);
	return r;
}
