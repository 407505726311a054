/* SPDX-License-Identifier: MIT */
/* The allocator-frame table: fk_alloc_is_frame and the drop_frames regex
 * built from the same table agree on every name (the regex checked with
 * POSIX extended regexes, whose syntax covers what it uses of RE2's). */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "allocframes.h"
#include "t.h"

int main(void)
{
	static const char *const yes[] = {
		"malloc", "calloc", "free", "posix_memalign", "mallocx", "sdallocx",
		"je_malloc", "_rjem_mallocx", "_rjem_je_prof_backtrace", "imalloc_body",
		"__libc_malloc", "__interceptor_malloc", "___interceptor_calloc",
		"tc_malloc", "tc_newarray", "operator new(unsigned long)",
		"operator new[](unsigned long, std::nothrow_t const&)",
		"__rust_alloc", "__rustc::__rust_alloc", "__rdl_alloc",
		"alloc::alloc::exchange_malloc", "alloc::raw_vec::finish_grow",
		"<alloc::raw_vec::RawVecInner>::grow_one",
		"<alloc::alloc::Global as core::alloc::Allocator>::allocate",
		"<fk_rust::Jem as core::alloc::global::GlobalAlloc>::alloc",
		"fk_rust::<impl core::alloc::global::GlobalAlloc for fk_rust::Jem>::alloc",
		"std::sys::alloc::unix::<impl core::alloc::global::GlobalAlloc for std::alloc::System>::alloc",
	};
	static const char *const no[] = {
		"main", "hog_grow_cache", "mallocate", "my_malloc", "free_list_push",
		"alloc::vec::Vec<T,A>::push", "std::collections::hash::map::HashMap<K,V,S>::insert",
		"tc_helper", "je", "operator delete(void*)", "_start",
		"<fk_rust::Jem as core::alloc::global::GlobalAlloc>::dealloc",
	};
	char rx[2048], anchored[2100];
	regex_t re;

	T_OK(fk_alloc_regex(rx, sizeof rx) == 0, "the regex fits in 2048 bytes (%zu)", strlen(rx));
	T_OK(fk_alloc_regex(rx, 16) < 0, "a short buffer is refused");
	T_OK(fk_alloc_regex(rx, sizeof rx) == 0, "built again");
	snprintf(anchored, sizeof anchored, "^(%s)$", rx);
	T_OK(regcomp(&re, anchored, REG_EXTENDED | REG_NOSUB) == 0, "the regex compiles");
	for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
		T_OK(fk_alloc_is_frame(NULL, yes[i], NULL), "allocator frame: %s", yes[i]);
		T_OK(regexec(&re, yes[i], 0, NULL, 0) == 0, "and the regex matches it: %s", yes[i]);
	}
	for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
		T_OK(!fk_alloc_is_frame(NULL, no[i], NULL), "program frame: %s", no[i]);
		T_OK(regexec(&re, no[i], 0, NULL, 0) != 0, "and the regex leaves it: %s", no[i]);
	}
	T_OK(fk_alloc_is_frame("libjemalloc.so.2", NULL, NULL), "any frame of libjemalloc");
	T_OK(regexec(&re, "libjemalloc.so.2+0x1a2b0", 0, NULL, 0) == 0,
	     "and the regex matches its placeholder names");
	regfree(&re);
	return T_DONE();
}
