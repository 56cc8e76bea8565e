/*
 * modimage.c - reading and renaming kernel module images in memory, with libelf.
 * Shared by staprun (checks before loading, -R) and stap (the module cache).
 */
#include "modimage.h"

#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#define THIS_MODULE_SECTION ".gnu.linkonce.this_module"

struct section {
	size_t offset;
	size_t size;
	bool found;
};

struct sections {
	struct section modinfo;
	struct section this_module;
	unsigned int machine;
	bool elf64;
};

/*
 * Where the two sections a module needs lie in the image, checked to be inside it.
 * libelf only parses here; the bytes are then read or written at those offsets.
 */
static enum modimage_status find_sections(const void *image, size_t len, struct sections *out)
{
	enum modimage_status status = MODIMAGE_NOT_MODULE;
	Elf_Scn *scn = NULL;
	GElf_Ehdr ehdr;
	size_t shstrndx;
	Elf *elf;

	memset(out, 0, sizeof(*out));
	if (len < EI_NIDENT || memcmp(image, ELFMAG, SELFMAG) != 0 ||
	    elf_version(EV_CURRENT) == EV_NONE)
		return MODIMAGE_NOT_ELF;
	/* a read-only use: libelf does not write to an image it reads in native order */
	elf = elf_memory((char *)image, len);
	if (!elf)
		return MODIMAGE_NOT_ELF;
	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &ehdr)) {
		status = MODIMAGE_NOT_ELF;
		goto out;
	}
	out->machine = ehdr.e_machine;
	out->elf64 = gelf_getclass(elf) == ELFCLASS64;
	if (ehdr.e_type != ET_REL || elf_getshdrstrndx(elf, &shstrndx) != 0)
		goto out;
	while ((scn = elf_nextscn(elf, scn))) {
		struct section *want;
		const char *name;
		GElf_Shdr shdr;

		if (!gelf_getshdr(scn, &shdr))
			goto out;
		name = elf_strptr(elf, shstrndx, shdr.sh_name);
		if (!name)
			continue;
		if (strcmp(name, ".modinfo") == 0)
			want = &out->modinfo;
		else if (strcmp(name, THIS_MODULE_SECTION) == 0)
			want = &out->this_module;
		else
			continue;
		if (shdr.sh_type == SHT_NOBITS || shdr.sh_offset > len ||
		    shdr.sh_size > len - shdr.sh_offset)
			goto out;
		want->offset = shdr.sh_offset;
		want->size = shdr.sh_size;
		want->found = true;
	}
	if (out->modinfo.found)
		status = MODIMAGE_OK;
out:
	elf_end(elf);
	return status;
}

enum modimage_status modimage_read(const void *image, size_t len, struct modimage_info *info)
{
	struct sections secs;
	enum modimage_status status;
	const char *data;
	size_t off;

	memset(info, 0, sizeof(*info));
	status = find_sections(image, len, &secs);
	info->machine = secs.machine;
	info->elf64 = secs.elf64;
	if (status != MODIMAGE_OK)
		return status;
	data = (const char *)image + secs.modinfo.offset;
	for (off = 0; off < secs.modinfo.size;) {
		size_t n = strnlen(data + off, secs.modinfo.size - off);
		char **grown;

		if (n) {	/* NULs between entries are padding */
			grown = realloc(info->entries, (info->nentries + 1) * sizeof(*grown));
			if (!grown)
				return MODIMAGE_NO_MEMORY;
			info->entries = grown;
			info->entries[info->nentries] = strndup(data + off, n);
			if (!info->entries[info->nentries])
				return MODIMAGE_NO_MEMORY;
			info->nentries++;
		}
		off += n + 1;
	}
	info->name = modimage_get(info, "name");
	info->vermagic = modimage_get(info, "vermagic");
	if (!info->name || !*info->name || !secs.this_module.found)
		return MODIMAGE_NOT_MODULE;
	return MODIMAGE_OK;
}

void modimage_free(struct modimage_info *info)
{
	for (size_t i = 0; i < info->nentries; i++)
		free(info->entries[i]);
	free(info->entries);
	memset(info, 0, sizeof(*info));
}

const char *modimage_get(const struct modimage_info *info, const char *key)
{
	size_t n = strlen(key);

	for (size_t i = 0; i < info->nentries; i++)
		if (strncmp(info->entries[i], key, n) == 0 && info->entries[i][n] == '=')
			return info->entries[i] + n + 1;
	return NULL;
}

size_t modimage_release_len(const char *vermagic)
{
	return strcspn(vermagic, " ");
}

bool modimage_is_stapler(const struct modimage_info *info)
{
	const char *description = modimage_get(info, "description");

	return description && strcmp(description, MODIMAGE_STAPLER_DESCRIPTION) == 0;
}

/*
 * The name= entries of .modinfo (INFO, SIZE bytes), at most MAX: where each name starts
 * and how long a name it can hold (its own length and the NULs after its own NUL).
 */
struct name_entry {
	char *name;
	size_t room;
};

static size_t name_entries(char *info, size_t size, struct name_entry *out, size_t max)
{
	size_t i = 0, n = 0, len, end;

	while (i < size) {
		len = strnlen(info + i, size - i);
		if (len == size - i)	/* not terminated: not an entry */
			break;
		end = i + len + 1;
		if (len > 5 && memcmp(info + i, "name=", 5) == 0 && n < max) {
			size_t nuls = 0;

			while (end + nuls < size && !info[end + nuls])
				nuls++;
			out[n].name = info + i + 5;
			out[n].room = len - 5 + nuls;
			n++;
		}
		i = end;
	}
	return n;
}

int modimage_rename(void *image, size_t len, const char *name)
{
	size_t new_len = strlen(name), old_len, n, i, use;
	struct name_entry entries[8];
	char *info, *field = NULL;
	struct sections secs;

	if (find_sections(image, len, &secs) != MODIMAGE_OK || !secs.this_module.found)
		return -ENOEXEC;
	if (!new_len || strchr(name, '/'))
		return -EINVAL;
	if (new_len >= MODIMAGE_NAME_FIELD)
		return -ENAMETOOLONG;
	info = (char *)image + secs.modinfo.offset;
	n = name_entries(info, secs.modinfo.size, entries, 8);
	if (!n)
		return -ENOEXEC;
	/* the first entry is the name the kernel reads */
	old_len = strlen(entries[0].name);
	if (old_len >= MODIMAGE_NAME_FIELD)
		return -ENOENT;
	for (use = 0; use < n && entries[use].room < new_len; use++)
		;
	if (use == n)
		return -ENAMETOOLONG;
	/* the field: the old name, then NULs to the end of the array */
	for (i = 0; i + MODIMAGE_NAME_FIELD <= secs.this_module.size; i++) {
		char *p = (char *)image + secs.this_module.offset + i;
		size_t j;

		if (memcmp(p, entries[0].name, old_len + 1) != 0)
			continue;
		for (j = old_len; j < MODIMAGE_NAME_FIELD && !p[j]; j++)
			;
		if (j == MODIMAGE_NAME_FIELD) {
			field = p;
			break;
		}
	}
	if (!field)
		return -ENOENT;
	memset(field, 0, MODIMAGE_NAME_FIELD);
	memcpy(field, name, new_len);
	/*
	 * One entry holds the name, the first with room for it; the others become NULs, which
	 * are empty entries to the kernel and to modinfo readers.
	 */
	for (i = 0; i < n; i++) {
		if (i == use) {
			memset(entries[i].name, 0, strlen(entries[i].name));
			memcpy(entries[i].name, name, new_len);
		} else {
			memset(entries[i].name - 5, 0, strlen(entries[i].name) + 5);
		}
	}
	return 0;
}
