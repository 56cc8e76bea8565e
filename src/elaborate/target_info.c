/*
 * target_info.c - pass 2: what target variables need of the target whatever their
 * probe: its debuginfo (dw.h), opened on first use and shared by the whole elaboration,
 * and the error that says it is missing; the kernel's addresses (the program notes
 * where jiffies was linked: KASLR); and a module's static variables, each read through
 * a symbol of the program's module_symbols.
 */
#include "elaborate.h"
#include "debuginfo/dw.h"
#include "translate/emit.h"

#include <stdlib.h>
#include <string.h>

struct debuginfo *elaborator_debuginfo(struct elaborator *el)
{
	if (!el->debuginfo)
		el->debuginfo = debuginfo_open(el->session);
	return el->debuginfo;
}

void report_missing_debuginfo(struct elaborator *el)
{
	int quiet = diag_quiet;
	char *message = debuginfo_missing(elaborator_debuginfo(el));

	if (el->listing)
		diag_quiet = 0;
	semantic_error(el, NULL, "%s", message);
	diag_quiet = quiet;
	free(message);
}

bool use_kernel_addresses(struct elaborator *el)
{
	struct dw_module *k = debuginfo_kernel(elaborator_debuginfo(el));
	const struct dw_symbol *jiffies = k ? dw_symbol_named(k, "jiffies") : NULL;

	if (!jiffies) {
		semantic_error(el, NULL, "no jiffies in the kernel's symbol table: cannot place "
			       "its addresses");
		return false;
	}
	el->prog->jiffies_link = jiffies->addr;
	return true;
}

/*
 * LOC's static addresses of program or library M (stp_user_address(c, LINK), as a hit in
 * M places them) for a read outside M's probes: found in the current process's mappings
 * of M's file (stp_user_file_address(), runtime/usymbols.c, which needs M's table).
 */
void place_user_file(struct elaborator *el, struct dw_module *m, struct dw_location *loc)
{
	const char *call = "stp_user_address(c, ";
	char *path = c_string(m->name), *at;

	user_file_add(el->session, m->name, m->path);
	el->prog->user_file_addresses = true;
	while ((at = strstr(loc->c, call))) {
		char *placed = xasprintf("%.*sstp_user_file_address(c, %s, %s", (int)(at - loc->c),
					 loc->c, path, at + strlen(call));

		free(loc->c);
		loc->c = placed;
	}
	free(path);
}

void place_module_symbol(struct elaborator *el, struct dw_module *m, struct dw_location *loc)
{
	struct strlist *symbols = &el->prog->module_symbols;
	char *key, *index, *at;
	int i;

	if (!loc->module_symbol || !(at = strstr(loc->c, "STP_MODULE_SYMBOL")))
		return;
	key = xasprintf("%s:%s", m->name, loc->module_symbol);
	for (i = 0; i < symbols->count && strcmp(symbols->items[i], key) != 0; i++)
		;
	if (i == symbols->count)
		strlist_add(symbols, key);
	free(key);
	index = xasprintf("%.*s%d%s", (int)(at - loc->c), loc->c, i,
			  at + strlen("STP_MODULE_SYMBOL"));
	free(loc->c);
	loc->c = index;
}
