/*
 * user_symbols.h - the symbols and unwind tables of user-space programs and libraries
 * that the module carries: read by user_symbols.c, written into the module's C by
 * translate/user_symbols_c.c.
 *
 * Addresses are 32-bit offsets from the file's lowest link-time address; names are
 * offsets in one string table, which holds the files' paths too.
 */
#ifndef USER_SYMBOLS_H
#define USER_SYMBOLS_H

#include "stap.h"

/* A PT_LOAD segment: where a file offset is mapped (link-time). */
struct user_segment {
	uint64_t offset, vaddr, memsz;
	bool exec;
};

/* From ADDR on, the unwind rule RULE (runtime/usymbols.c reads its fields). */
struct unwind_row {
	uint32_t addr, rule;
};

/* From ADDR (from LOW) on, source line LINE of the file whose name is at FILE in the
 * string table (LINE 0: no line, after the end of a sequence). */
struct user_line {
	uint32_t addr, file, line;
};

/* One file's tables. */
struct user_table {
	const struct user_file *uf;
	uint64_t low, size;
	struct user_segment *segments;
	int nsegments;
	uint32_t *sym_addrs;	/* nsyms + 1 */
	uint32_t *sym_names;	/* offsets in the string table */
	int nsyms;
	struct unwind_row *rows;
	int nrows, rows_cap;
	char *build_id;		/* its GNU build-id in hex, NULL without one */
	struct user_line *lines;	/* sorted by address, with WANT_LINES only */
	int nlines;
};

/* Adds -d PATH's programs, then (--ldd) the libraries of every file, to the session's
 * files, once a run; how many of the warnings about them -W made errors. */
int user_files_resolve(struct session *s);
/* The tables of UF into T (its symbols' names into STRINGS; its line table too with
 * WANT_LINES), or false with the reason in *WHY (T is then to be freed all the same). */
bool user_table_read(struct session *s, const struct user_file *uf, struct user_table *t,
		     struct strbuf *strings, bool want_lines, const char **why);
void user_table_free(struct user_table *t);
/* Adds NAME to the string table STRINGS, giving its offset. */
uint32_t user_string_add(struct strbuf *strings, const char *name);

#endif
