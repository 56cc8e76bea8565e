/*
 * kernel_lines.h - the kernel's line table, compacted (kernel_lines.c), for the module's
 * C (translate/kernel_lines_c.c) and runtime/klines.c.
 */
#ifndef KERNEL_LINES_H
#define KERNEL_LINES_H

#include "stap.h"

#define KLINES_BLOCK 64			/* rows a block */
#define KLINES_ANCHOR "sprint_symbol"	/* exported: the module takes its address */

struct kernel_lines {
	uint64_t base;			/* the lowest row's address (link-time) */
	uint64_t anchor;		/* KLINES_ANCHOR's link-time address */
	size_t nrows, nblocks;
	struct klines_block {
		uint32_t addr;		/* its first row's, from BASE */
		uint32_t offset;	/* where its rows start in STREAM */
	} *index;
	uint32_t *file_offsets;		/* in NAMES, by file number */
	uint32_t nfiles;
	struct strbuf stream, names;
};

/* The line table of S's kernel into T (from the cache, else read and cached), or false
 * with the reason in *WHY. */
bool kernel_lines_read(struct session *s, struct kernel_lines *t, const char **why);
void kernel_lines_free(struct kernel_lines *t);

#endif
