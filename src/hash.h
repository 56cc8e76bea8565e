/*
 * hash.h - hashing for cache keys (hash.c).
 */
#ifndef HASH_H
#define HASH_H

#include "stap.h"

struct hasher {
	uint64_t a, b, len;
};
void hasher_init(struct hasher *h);
void hash_bytes(struct hasher *h, const void *data, size_t len);
void hash_string(struct hasher *h, const char *s);
void hash_file(struct hasher *h, const char *path);	/* contents */
void hash_file_stat(struct hasher *h, const char *path);	/* size, time, inode */
/* The running program: its build ID (the linker's hash of it), else its contents. */
void hash_self(struct hasher *h);
/* The regular files under DIR, in a stable order: contents, or (!CONTENTS) identities */
void hash_tree(struct hasher *h, const char *dir, bool contents);
char *hasher_hex(const struct hasher *h);	/* 32 hex digits */

#endif
