/* SPDX-License-Identifier: MIT */
/* Linked with hook_alloc_prog.o and -ljemalloc into conf-own-prog: a
 * program that sets its own jemalloc options, as knot-resolver's kresd
 * does. Its definition comes before the preloaded hook's in symbol lookup,
 * so jemalloc reads it and never sees the hook's prof:true
 * (tests/hook/conf.t). */
extern const char *malloc_conf;
/* Default visibility (the tree builds with -fvisibility=hidden): a real
 * program's definition is exported, which is what lets it shadow. */
__attribute__((visibility("default"))) const char *malloc_conf = "narenas:1";
