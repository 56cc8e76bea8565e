/*
 * cache.h - the module cache (cache.c) and the hashing that keys it.
 *
 * Modules and kernel API test results are kept in $STAPLER_CACHE_DIR, else
 * $XDG_CACHE_HOME/stapler, else ~/.cache/stapler, under a hash of everything that
 * affects them.
 */
#ifndef CACHE_H
#define CACHE_H

#include "stap.h"

enum cache_mode {
	CACHE_USE,
	CACHE_DISABLED,		/* --disable-cache: neither read nor written */
	CACHE_POISONED,		/* --poison-cache: written, never read */
};
extern enum cache_mode cache_mode;

struct hasher {
	uint64_t a, b, len;
};
void hasher_init(struct hasher *h);
void hash_bytes(struct hasher *h, const void *data, size_t len);
void hash_string(struct hasher *h, const char *s);
void hash_file(struct hasher *h, const char *path);
void hash_file_stat(struct hasher *h, const char *path);
void hash_tree(struct hasher *h, const char *dir, bool contents);
void hash_kernel(struct hasher *h, struct session *s);
char *hasher_hex(const struct hasher *h);	/* 32 hex digits */

char *cache_dir(void);
/* CACHE/FOLDER/NAMEKEY: the cache file of what this stap program derives from the file
 * SOURCE (KEY: a hash of TAG, SOURCE's identity and size and time, and the program's). */
char *cache_path_for_file(const char *folder, const char *name, const char *tag,
			  const char *source);
int make_dirs(const char *path);
int install_file(const char *path, const void *data, size_t len);	/* atomic */
int cache_clean(bool verbose);
char *cache_key(struct session *s, struct program *prog, const char *script_name,
		const char *script_text);
bool cache_fetch(struct session *s, const char *key);
void cache_store(struct session *s, const char *key);

#endif
