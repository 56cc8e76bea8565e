/*
 * dwarf_point.c - a point of the dwarf family (kernel.function, module().statement,
 * process().function, ...): its parts as read, the suffixes of its name, and what its
 * probes say alike whether the DWARF (family_dwarf.c) or the kernel's BTF
 * (family_dwarf_btf.c) placed them: "no match" with similar functions, and $return.
 */
#include "elaborate/elaborate.h"
#include "family_dwarf.h"
#include "debuginfo/ctype.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The parts of PP, a concrete point of one of the family's forms. */
void read_dwarf_point(struct probe_point *pp, struct dwarf_point *dp)
{
	struct component *c = pp->components;
	bool present;

	memset(dp, 0, sizeof(*dp));
	if (strcmp(c->name, "module") == 0)
		dp->module = component_string(c, &present);
	if (strcmp(c->name, "process") == 0) {
		dp->user = true;
		if (c->arg) {
			dp->process = component_string(c, &present);
			if (!present)
				dp->pid = component_number(c, &present);
		}
		if (strcmp(c->next->name, "library") == 0) {
			c = c->next;
			dp->library = component_string(c, &present);
		}
	}
	c = c->next;
	dp->what = c;
	dp->statement = strcmp(c->name, "statement") == 0;
	dp->pattern = component_string(c, &present);
	if (!present)
		dp->address = (uint64_t)component_number(c, &present);
	for (c = c->next; c; c = c->next) {
		if (strcmp(c->name, "call") == 0)
			dp->call = true;
		else if (strcmp(c->name, "return") == 0)
			dp->is_return = true;
		else if (strcmp(c->name, "maxactive") == 0)
			dp->maxactive = component_number(c, &present);
		else if (strcmp(c->name, "inline") == 0)
			dp->inline_only = true;
		else if (strcmp(c->name, "exported") == 0)
			dp->exported = true;
		else if (strcmp(c->name, "nearest") == 0)
			dp->nearest = true;
		else if (strcmp(c->name, "absolute") == 0)
			dp->absolute = true;
		else if (strcmp(c->name, "label") == 0)
			dp->label = component_string(c, &present);
		else if (strcmp(c->name, "callee") == 0) {
			dp->callee = component_string(c, &present);
			dp->callees_depth = 1;
		}
		else if (strcmp(c->name, "callees") == 0) {
			dp->callee = "*";
			dp->callees_depth = c->arg ? component_number(c, &present) : 1;
		}
	}
}

/* What follows a function's name: ".call", ".return", ".maxactive(N)", ".inline", ... */
void put_point_suffixes(struct strbuf *sb, const struct dwarf_point *dp)
{
	if (dp->call)
		sb_puts(sb, ".call");
	if (dp->is_return)
		sb_puts(sb, ".return");
	if (dp->maxactive)
		sb_printf(sb, ".maxactive(%" PRId64 ")", dp->maxactive);
	if (dp->inline_only)
		sb_puts(sb, ".inline");
	if (dp->exported)
		sb_puts(sb, ".exported");
}

/*
 * "no match", with the function NAMES (of the one module looked in) close to PATTERN's
 * (a function refused by name is among them: it is there, only not probe-able).
 */
void no_function_match(struct elaborator *el, const char **names, int count,
		       const struct dw_pattern *pat, bool refused)
{
	char *similar = !count || !pat || strpbrk(pat->function, "*?[") ? xstrdup("") :
			refused ? similar_names_including(pat->function, names, count) :
				  similar_names(pat->function, names, count);

	if (*similar) {
		char *functions = xasprintf(" (similar functions:%s", similar + strlen(" (similar:"));

		free(similar);
		similar = functions;
	}
	semantic_error(el, NULL, "no match%s", similar);
	free(similar);
}

/* $return: the value in the return register (rax), of TYPE, the function's return type
 * (NULL or void: none); guru mode may change what returns. */
bool return_register_access(struct elaborator *el, struct dwarf_probe *p, struct node *n,
			    struct target_access *a, struct ctype *type, bool quiet)
{
	if (!p->is_return || !type || type->kind == CT_VOID) {
		if (!quiet)
			semantic_error(el, n->tok, "unable to find return value%s",
				       p->is_return ? " of a function returning void" :
						      " outside a .return probe");
		return false;
	}
	a->start = xstrdup("stp_return_value(c)");
	a->start_is_value = true;
	a->user = p->site.module && p->site.module->is_user;
	a->regno = 0;
	return target_components(el, n, a, type, quiet);
}
