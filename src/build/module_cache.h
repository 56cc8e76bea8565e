/*
 * module_cache.h - the module cache (module_cache.c): passes 3 and 4 skipped when a
 * module for the same key was built before; the key's hashing of the kernel build tree
 * (kbuild.c keys its kernel API tests with it too).
 */
#ifndef MODULE_CACHE_H
#define MODULE_CACHE_H

#include "stap.h"

struct hasher;
void hash_kernel(struct hasher *h, struct session *s);
char *cache_key(struct session *s, struct program *prog, const char *script_name,
		const char *script_text);
bool cache_fetch(struct session *s, const char *key);
void cache_store(struct session *s, const char *key);
/* The compiler kbuild will run for S's build (-B CC=, LLVM=, CROSS_COMPILE=) */
char *kbuild_compiler(struct session *s);

#endif
