/*
 * modimage.h - what staprun and stap need to know about a kernel module image (a .ko file
 * read into memory): its .modinfo entries, and how to give it another name.
 * Parsing is done with libelf; nothing here needs a kernel.
 */
#ifndef STAPLER_MODIMAGE_H
#define STAPLER_MODIMAGE_H

#include <stdbool.h>
#include <stddef.h>

/* The kernel's struct module name field: MODULE_NAME_LEN (64 - sizeof(long)) on 64-bit. */
#define MODIMAGE_NAME_FIELD 56

/* What a stapler module says of itself (runtime.h's MODULE_DESCRIPTION). */
#define MODIMAGE_STAPLER_DESCRIPTION "stapler script module"

enum modimage_status {
	MODIMAGE_OK = 0,
	MODIMAGE_NOT_ELF,	/* not an ELF file at all */
	MODIMAGE_NOT_MODULE,	/* ELF, but not a loadable kernel module */
	MODIMAGE_NO_MEMORY,
};

struct modimage_info {
	char **entries;		/* every .modinfo entry ("KEY=VALUE"), in file order */
	size_t nentries;
	const char *name;	/* value of name=, NULL if missing (points into entries) */
	const char *vermagic;	/* value of vermagic=, NULL if missing */
	unsigned int machine;	/* ELF e_machine */
	bool elf64;		/* ELFCLASS64 */
};

/*
 * Reads the module information of the LEN-byte image.  A module must be a relocatable ELF
 * file with a .modinfo section holding name= and a .gnu.linkonce.this_module section;
 * on MODIMAGE_NOT_MODULE, *INFO still holds whatever .modinfo entries were found.
 * modimage_free() releases *INFO whatever the result.
 */
enum modimage_status modimage_read(const void *image, size_t len, struct modimage_info *info);
void modimage_free(struct modimage_info *info);

/* The value of the first .modinfo entry KEY=..., or NULL. */
const char *modimage_get(const struct modimage_info *info, const char *key);

/* The release part of vermagic ("6.1.0-56-cloud-amd64 SMP ..." gives its first word). */
size_t modimage_release_len(const char *vermagic);

/* Whether the module was made by stapler's stap (its description says so). */
bool modimage_is_stapler(const struct modimage_info *info);

/*
 * Gives the module image the name NAME, in place: the name field of its struct module
 * (.gnu.linkonce.this_module) and a name= entry of its .modinfo, the first with room for
 * NAME (its old name and the NULs after it: stapler's runtime adds an entry with room for
 * any name, before modpost's); the other name= entries become NULs, so one name is left.
 * NAME must be shorter than MODIMAGE_NAME_FIELD.  Returns 0, or -ENOEXEC (not a module
 * image), -ENAMETOOLONG (NAME too long, or no entry has room: a module not built by this
 * stapler), -EINVAL (NAME empty or with a '/'), -ENOENT (no name field holding the old
 * name).  A refused renaming leaves the image alone.
 */
int modimage_rename(void *image, size_t len, const char *name);

#endif
