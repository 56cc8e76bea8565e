/*
 * dwarf_callees.c - the functions a function calls, for .callee(PATTERN) and .callees:
 * read from the DWARF of each out-of-line copy of the caller.
 *
 *   - an inlined subroutine in its body (not inside another one: what that calls is its
 *     own) is probed at its instance, which runs only there;
 *   - a call site (DW_TAG_call_site, or GCC's older DW_TAG_GNU_call_site) names the
 *     function called (its origin) and where the call returns: the callee is probed at
 *     its out-of-line entry, and the probe runs only when the return address on the
 *     stack there is one of the caller's (dw_site.returns).
 *
 * A call through a pointer names no function, and a function of another file (a
 * library's) has no entry here: neither is known, as stapprobes(3stap) says.
 */
#include "dw.h"

#include <dwarf.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

struct callee_query {
	struct dw_module *m;
	struct dw_index *ix;
	const char *pattern;		/* the callee's glob */
	enum dw_function_filter filter;
	const struct dw_site *caller;	/* the caller's out-of-line copy */
	struct dw_sites *out;
	struct dw_sites entries;	/* callees at their entry, each once */
};

/* The function of the index named NAME whose DIE is DIE (0: the only out-of-line one
 * of that name, or the one of the unit CU), or NULL. */
static const struct dw_function *indexed(struct dw_index *ix, const char *name, Dwarf_Off die,
					 Dwarf_Off cu)
{
	const struct dw_function *found = NULL;
	int lo, hi, n = 0;

	dw_name_range(ix, name, &lo, &hi);
	for (int i = lo; i < hi; i++) {
		const struct dw_function *f = &ix->functions[i];

		if (strcmp(f->name, name) != 0 || f->flags & DWF_NO_DWARF)
			continue;
		if (die && f->die == die)
			return f;
		if (!die && f->flags & (DWF_OUT_OF_LINE | DWF_BLOCKED)) {
			if (f->cu == cu)
				return f;
			found = f;
			n++;
		}
	}
	return n == 1 ? found : NULL;
}

/* The DIE's name, or its origin's (an inlined instance, a concrete copy). */
static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;

	return dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
}

/* An inlined subroutine of the caller: a probe at the instance. */
static void inlined(struct callee_query *q, Dwarf_Die *die)
{
	const char *name = die_name(die);
	const struct dw_function *f;
	struct dw_site site = { .kind = DW_SITE_INLINE, .module = q->m,
				.caller = q->caller->function };
	Dwarf_Die cu;
	uint64_t entry;

	if (q->filter == DW_CALL || q->filter == DW_RETURN)	/* out-of-line calls only */
		return;
	if (!name || fnmatch(q->pattern, name, 0) != 0 ||
	    !(f = indexed(q->ix, name, dw_die_origin(die), 0)) || !dw_die_entry(die, &entry) ||
	    !dwarf_diecu(die, &cu, NULL, NULL))
		return;
	if (f->flags & DWF_BLOCKED || dw_blocked(q->m, entry + q->m->bias)) {
		dw_add_refused(q->out, f);
		return;
	}
	site.function = f;
	site.entry = site.addr = entry + q->m->bias;
	site.cu = dwarf_dieoffset(&cu);
	site.scope = dwarf_dieoffset(die);
	if (dw_usable(q->m, site.entry))
		dw_add_site(q->out, &site);
}

/* Where a call site's call returns, or false. */
static bool return_pc(Dwarf_Die *die, uint64_t *pc)
{
	Dwarf_Attribute attr;
	Dwarf_Addr addr;

	if (dwarf_attr(die, DW_AT_call_return_pc, &attr) && dwarf_formaddr(&attr, &addr) == 0) {
		*pc = addr;
		return true;
	}
	if (dwarf_tag(die) == DW_TAG_GNU_call_site && dwarf_lowpc(die, &addr) == 0) {
		*pc = addr;	/* GCC's older call sites: the low pc is the return address */
		return true;
	}
	return false;
}

/* A call site of the caller: its callee's entry, the return address added to it. */
static void call_site(struct callee_query *q, Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	Dwarf_Die origin, cu;
	const struct dw_function *f;
	struct dw_site *at = NULL;
	const char *name;
	uint64_t ret;

	if ((!dwarf_attr(die, DW_AT_call_origin, &attr) &&
	     !dwarf_attr(die, DW_AT_abstract_origin, &attr)) ||
	    !dwarf_formref_die(&attr, &origin) || !(name = die_name(&origin)) ||
	    fnmatch(q->pattern, name, 0) != 0 || !return_pc(die, &ret) ||
	    !dwarf_diecu(die, &cu, NULL, NULL))
		return;
	/* the origin is the definition, or a declaration of a function defined elsewhere */
	f = indexed(q->ix, name, dw_die_has_code(&origin) ? dwarf_dieoffset(&origin) : 0,
		    dwarf_dieoffset(&cu));
	if (!f && dw_die_has_code(&origin))
		f = indexed(q->ix, name, 0, dwarf_dieoffset(&cu));
	if (!f)
		return;
	if (f->flags & DWF_BLOCKED || !(f->flags & DWF_OUT_OF_LINE)) {
		if (f->flags & DWF_BLOCKED)
			dw_add_refused(q->out, f);
		return;
	}
	for (int i = 0; i < q->entries.count && !at; i++)
		if (q->entries.sites[i].function == f)
			at = &q->entries.sites[i];
	if (!at) {
		struct dw_pattern exact = { .function = (char *)f->name };
		struct dw_sites copies = { 0 };

		/* its out-of-line copy, at the entry itself: the return address is on top */
		dw_function_sites(q->m, &exact, DW_CALL, false, DW_PROLOGUE_NEVER, &copies);
		for (int i = 0; i < copies.count && !at; i++)
			if (copies.sites[i].function == f && copies.sites[i].kind == DW_SITE_ENTRY) {
				dw_add_site(&q->entries, &copies.sites[i]);
				at = &q->entries.sites[q->entries.count - 1];
				at->caller = q->caller->function;
			}
		free(copies.sites);
		free(copies.refused);
		if (!at)
			return;
	}
	at->returns = xrealloc(at->returns, (at->nreturns + 1) * sizeof(*at->returns));
	at->returns[at->nreturns++] = ret + q->m->bias;
}

/* The callees in DIE's children: lexical blocks are walked, inlined subroutines not. */
static void walk(struct callee_query *q, Dwarf_Die *die)
{
	Dwarf_Die child;

	if (dwarf_child(die, &child) != 0)
		return;
	do {
		switch (dwarf_tag(&child)) {
		case DW_TAG_inlined_subroutine:
			inlined(q, &child);
			break;
		case DW_TAG_call_site:
		case DW_TAG_GNU_call_site:
			call_site(q, &child);
			break;
		case DW_TAG_lexical_block:
			walk(q, &child);
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
}

void dw_callee_sites(struct dw_module *m, const struct dw_pattern *caller, const char *callee,
		     enum dw_function_filter filter, struct dw_sites *out)
{
	struct dw_sites callers = { 0 };
	struct callee_query q = { .m = m, .ix = dw_module_index(m), .pattern = callee,
				  .filter = filter, .out = out };

	dw_function_sites(m, caller, DW_CALL, false, DW_PROLOGUE_NEVER, &callers);
	for (int i = 0; i < callers.count; i++) {
		Dwarf_Die die;

		if (callers.sites[i].kind != DW_SITE_ENTRY || !dw_module_open(m) ||
		    !dwarf_offdie(m->dwarf, callers.sites[i].scope, &die))
			continue;
		q.caller = &callers.sites[i];
		q.entries.count = 0;
		walk(&q, &die);
		for (int k = 0; k < q.entries.count; k++)
			dw_add_site(out, &q.entries.sites[k]);
	}
	if (callers.count)
		out->functions_found = true;	/* callers matched: no similar names of them */
	free(q.entries.sites);
	free(callers.sites);
	free(callers.refused);
}
