/*
 * dwarf_scope.c - the variables in scope at a probe's place, as -L lists them.
 */
#include "dwarf.h"
#include "ctype.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;

	return dwarf_attr_integrate(die, DW_AT_name, &attr) ? dwarf_formstring(&attr) : NULL;
}

/* Whether the variable has a value at ADDR: a constant, or a location covering it. */
static bool available_at(Dwarf_Die *var, Dwarf_Addr addr)
{
	Dwarf_Attribute attr;
	Dwarf_Op *expr;
	size_t len;

	if (dwarf_hasattr_integrate(var, DW_AT_const_value))
		return true;
	if (!dwarf_attr(var, DW_AT_location, &attr))
		return false;
	return dwarf_getlocation_addr(&attr, addr, &expr, &len, 1) > 0;
}

struct variable_list {
	struct strbuf sb;
	struct strlist names;
};

static void add_variable(struct variable_list *vl, Dwarf_Die *var)
{
	const char *name = die_name(var);
	char *type;

	if (!name)
		return;
	for (int i = 0; i < vl->names.count; i++)
		if (strcmp(vl->names.items[i], name) == 0)
			return;		/* an inner scope's of the same name hides it */
	strlist_add(&vl->names, name);
	type = ctype_name(ctype_of_variable(var));
	sb_printf(&vl->sb, " $%s:%s", name, type);
	free(type);
}

/* SCOPE's parameters (TAG) or locals available at ADDR. */
static void scope_variables(struct variable_list *vl, Dwarf_Die *scope, int tag, Dwarf_Addr addr)
{
	Dwarf_Die child;

	if (dwarf_child(scope, &child) != 0)
		return;
	do {
		if (dwarf_tag(&child) == tag && available_at(&child, addr))
			add_variable(vl, &child);
	} while (dwarf_siblingof(&child, &child) == 0);
}

char *dw_site_variables(const struct dw_site *site, bool with_return)
{
	struct variable_list vl = { 0 };
	Dwarf_Die cu, *scopes = NULL;
	Dwarf_Addr addr = site->addr - site->module->bias;
	int n;

	if (site->kind == DW_SITE_SYMBOL || !dwarf_offdie(site->module->dwarf, site->cu, &cu))
		return xstrdup("");
	/* innermost first: blocks, then the function or inlined instance */
	n = dwarf_getscopes(&cu, addr, &scopes);
	for (int i = 0; i < n; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag == DW_TAG_compile_unit)
			break;
		if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
			scope_variables(&vl, &scopes[i], DW_TAG_formal_parameter, addr);
			scope_variables(&vl, &scopes[i], DW_TAG_variable, addr);
			if (dwarf_dieoffset(&scopes[i]) == site->scope)
				break;
		} else {
			scope_variables(&vl, &scopes[i], DW_TAG_variable, addr);
		}
	}
	if (with_return && n > 0) {
		Dwarf_Die *function = NULL;

		for (int i = 0; i < n && !function; i++)
			if (dwarf_dieoffset(&scopes[i]) == site->scope)
				function = &scopes[i];
		if (function && ctype_of_variable(function)) {
			char *type = ctype_name(ctype_of_variable(function));

			sb_printf(&vl.sb, " $return:%s", type);
			free(type);
		}
	}
	free(scopes);
	strlist_free(&vl.names);
	return vl.sb.data ? sb_steal(&vl.sb) : xstrdup("");
}
