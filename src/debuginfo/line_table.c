/*
 * line_table.c - the source lines of an object's DWARF: every compile unit's line
 * program through libdw (dwarf_getsrclines), as rows of address, file and line, sorted.
 * A sequence's end is a row without a line, so that the addresses after it have none.
 */
#include "line_table.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdlib.h>
#include <string.h>

static int compare_rows(const void *a, const void *b)
{
	const struct line_row *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

size_t line_table_read(Dwfl_Module *m, uint64_t low, uint64_t size, bool compact,
		       struct line_table *t)
{
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias;
	size_t cap = 0, kept = 0;

	memset(t, 0, sizeof(*t));
	while ((cu = dwfl_module_nextcu(m, cu, &bias))) {
		Dwarf_Lines *lines;
		size_t n;

		if (dwarf_getsrclines(cu, &lines, &n) != 0)
			continue;
		for (size_t i = 0; i < n; i++) {
			Dwarf_Line *line = dwarf_onesrcline(lines, i);
			Dwarf_Addr addr;
			bool end = false;
			int lineno = 0;
			const char *name = NULL;

			if (!line || dwarf_lineaddr(line, &addr) != 0)
				continue;
			addr += bias;
			if (size && (addr < low || addr - low >= size))
				continue;
			dwarf_lineendsequence(line, &end);
			dwarf_lineno(line, &lineno);
			if (!end && (!(name = dwarf_linesrc(line, NULL, NULL)) || lineno <= 0))
				continue;
			if (t->nrows == cap) {
				cap = cap ? 2 * cap : 256;
				t->rows = xrealloc(t->rows, cap * sizeof(*t->rows));
			}
			t->rows[t->nrows] = (struct line_row){
				.addr = addr, .file = end ? 0 : string_set_add(&t->files, name),
				.line = end ? 0 : (uint32_t)lineno, .order = (uint32_t)t->nrows,
			};
			t->nrows++;
		}
	}
	if (!t->nrows)
		return 0;
	qsort(t->rows, t->nrows, sizeof(*t->rows), compare_rows);
	for (size_t i = 0; i < t->nrows; i++) {
		if (kept && t->rows[kept - 1].addr == t->rows[i].addr)
			kept--;		/* the row read last */
		if (compact && kept && t->rows[kept - 1].line == t->rows[i].line &&
		    (!t->rows[i].line || t->rows[kept - 1].file == t->rows[i].file))
			continue;	/* says nothing new */
		t->rows[kept++] = t->rows[i];
	}
	t->nrows = kept;
	return kept;
}

void line_table_free(struct line_table *t)
{
	free(t->rows);
	string_set_free(&t->files);
	memset(t, 0, sizeof(*t));
}
