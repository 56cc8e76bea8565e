/*
 * hash.c - a 128-bit hash of many pieces: bytes, strings, files (by contents or by
 * identity) and folders, for the keys of the cache (cache.c) and its users.  Not
 * cryptographic: it keys our own cache, whose folder is the user's.
 */
#include "hash.h"

#include <elf.h>
#include <inttypes.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

void hasher_init(struct hasher *h)
{
	h->a = 0x6a09e667f3bcc908ULL;
	h->b = 0xbb67ae8584caa73bULL;
	h->len = 0;
}

void hash_bytes(struct hasher *h, const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t w;

	h->len += len;
	for (; len >= 8; p += 8, len -= 8) {
		memcpy(&w, p, 8);
		h->a = (h->a ^ w) * 0x9e3779b97f4a7c15ULL;
		h->a ^= h->a >> 29;
		h->b = (h->b + w) * 0xc2b2ae3d27d4eb4fULL;
		h->b ^= h->b >> 31;
	}
	w = len;	/* the tail, with its length so "ab" + "" differs from "a" + "b" */
	for (size_t i = 0; i < len; i++)
		w |= (uint64_t)p[i] << (8 * (i + 1));
	h->a = mix64(h->a ^ w);
	h->b = mix64(h->b + w + h->len);
}

void hash_string(struct hasher *h, const char *s)
{
	hash_bytes(h, s ? s : "(null)", s ? strlen(s) + 1 : 6);
}

/* A file's contents, or a marker that it is missing. */
void hash_file(struct hasher *h, const char *path)
{
	size_t len;
	char *data = read_file(path, &len);

	hash_string(h, path);
	if (data)
		hash_bytes(h, data, len);
	else
		hash_string(h, "(missing)");
	free(data);
}

/* The build ID the linker put in the running program's notes (a hash of its contents). */
static int find_build_id(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct hasher *h = arg;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr), *end;

		if (ph->p_type != PT_NOTE)
			continue;
		for (end = p + ph->p_memsz; p + sizeof(ElfW(Nhdr)) <= end;) {
			const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
			const char *name = p + sizeof(*n);
			const char *desc = name + ((n->n_namesz + 3) & ~3u);

			if (desc + n->n_descsz > end)
				break;
			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
			    memcmp(name, "GNU", 4) == 0 && n->n_descsz > 0) {
				hash_string(h, "build-id");
				hash_bytes(h, desc, n->n_descsz);
				return 1;
			}
			p = desc + ((n->n_descsz + 3) & ~3u);
		}
	}
	return 1;	/* the first object is the program itself: no more */
}

void hash_self(struct hasher *h)
{
	struct hasher before = *h;

	dl_iterate_phdr(find_build_id, h);
	if (memcmp(&before, h, sizeof(before)) == 0) {	/* no build ID: its contents */
		char *exe = realpath("/proc/self/exe", NULL);

		hash_file(h, exe ? exe : "/proc/self/exe");
		free(exe);
	}
}

/* What identifies a file that is too large to read each run: size and modification time. */
void hash_file_stat(struct hasher *h, const char *path)
{
	struct stat st;

	hash_string(h, path);
	if (stat(path, &st) == 0) {
		int64_t v[4] = { st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec, st.st_ino };

		hash_bytes(h, v, sizeof(v));
	} else {
		hash_string(h, "(missing)");
	}
}

char *hasher_hex(const struct hasher *h)
{
	return xasprintf("%016" PRIx64 "%016" PRIx64, mix64(h->a ^ h->len), mix64(h->b ^ h->a));
}

/* ---- trees of files ---- */

/* Contents of the runtime (what the module is compiled from, autoconf probes included). */
void hash_tree(struct hasher *h, const char *dir, bool contents)
{
	struct strlist files = tree_files(dir);

	hash_string(h, dir);
	for (int i = 0; i < files.count; i++) {
		if (contents)
			hash_file(h, files.items[i]);
		else
			hash_file_stat(h, files.items[i]);
	}
	strlist_free(&files);
}
