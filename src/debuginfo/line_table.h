/*
 * line_table.h - the source lines of an object's DWARF (line_table.c), for the module's
 * tables of the kernel (kernel_lines.c) and of user-space files (user_symbols.c).
 */
#ifndef LINE_TABLE_H
#define LINE_TABLE_H

#include "stap.h"

#include <elfutils/libdwfl.h>

/* From ADDR on, source line LINE (0: none, past a sequence's end) of file FILE. */
struct line_row {
	uint64_t addr;
	uint32_t file;		/* a number of the table's files */
	uint32_t line;
	uint32_t order;		/* as read, for sorting */
};

struct line_table {
	struct line_row *rows;	/* by address */
	size_t nrows;
	struct string_set files;	/* the source files' names, numbered */
};

/* The rows of M's line programs from LOW up to LOW + SIZE (all: SIZE 0) into T, by
 * address: at one address the row read last; with COMPACT, a row that repeats the
 * line before it is left out.  How many. */
size_t line_table_read(Dwfl_Module *m, uint64_t low, uint64_t size, bool compact,
		       struct line_table *t);
void line_table_free(struct line_table *t);

#endif
