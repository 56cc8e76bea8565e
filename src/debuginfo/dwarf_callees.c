/*
 * dwarf_callees.c - the functions a function calls, for .callee(PATTERN) and .callees:
 * read from the DWARF of each out-of-line copy of the caller.
 *
 *   - an inlined subroutine in its body (not inside another one: what that calls is its
 *     own) is probed at its instance, which runs only there;
 *   - a call site (DW_TAG_call_site, or GCC's older DW_TAG_GNU_call_site) names the
 *     function called (its origin) and where the call returns: the callee is probed at
 *     its out-of-line entry, and the probe runs only when the return address on the
 *     stack there is one of the caller's (dw_site.levels).
 *
 * .callees(N) goes on down: what an inlined instance calls (read in the instance), and
 * what a called function's out-of-line copy calls, each probe named by its own caller
 * (stap's `function("B").callee("C")`) and run only when every call between it and the
 * function the script named is on the stack: one more level of return addresses per
 * out-of-line call on the way, which the probe finds frame by frame (family_dwarf.c).
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
	struct dw_sites *out;
};

/*
 * Where a walk reads code: the function it belongs to (the caller of what the walk
 * finds, as the probe is named), the calls that must be on the stack for that code to
 * run from the function the script named (innermost first, as dw_site.levels), and how
 * many levels of callees are still wanted below it (1: only its own).
 */
struct callee_scope {
	const struct dw_function *function;
	const struct dw_call_level *levels;
	int nlevels;
	int depth;
};

static void callees_in(struct callee_query *q, const struct callee_scope *scope,
		       Dwarf_Die *die);

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

/* LEVELS (N of them) copied, with FIRST before them when it is not NULL. */
static struct dw_call_level *copy_levels(const struct dw_call_level *first,
					 const struct dw_call_level *levels, int n)
{
	int total = n + (first != NULL);
	struct dw_call_level *copy = total ? xcalloc(total, sizeof(*copy)) : NULL;

	for (int i = 0; i < total; i++) {
		const struct dw_call_level *from = first ? (i ? &levels[i - 1] : first) : &levels[i];

		copy[i].nreturns = from->nreturns;
		copy[i].returns = xmalloc(from->nreturns * sizeof(*copy[i].returns));
		memcpy(copy[i].returns, from->returns, from->nreturns * sizeof(*from->returns));
	}
	return copy;
}

static void free_levels(struct dw_call_level *levels, int n)
{
	for (int i = 0; i < n; i++)
		free(levels[i].returns);
	free(levels);
}

/* An inlined subroutine of the scope's code: a probe at the instance, which runs where
 * the scope's code does; then, deeper, what the instance calls. */
static void inlined(struct callee_query *q, const struct callee_scope *scope, Dwarf_Die *die)
{
	const char *name = die_name(die);
	const struct dw_function *f;
	struct dw_site site = { .kind = DW_SITE_INLINE, .module = q->m,
				.caller = scope->function };
	Dwarf_Die cu;
	uint64_t entry;
	/* .call and .return: out-of-line calls only */
	bool wanted = name && q->filter != DW_CALL && q->filter != DW_RETURN &&
		      fnmatch(q->pattern, name, 0) == 0;

	if (!name || (!wanted && scope->depth == 1) ||
	    !(f = indexed(q->ix, name, dw_die_origin(die), 0)) || !dw_die_entry(die, &entry) ||
	    !dwarf_diecu(die, &cu, NULL, NULL))
		return;
	if (f->flags & DWF_BLOCKED || dw_blocked(q->m, entry + q->m->bias)) {
		if (wanted)
			dw_add_refused(q->out, f);
		return;
	}
	if (wanted) {
		site.function = f;
		site.entry = site.addr = entry + q->m->bias;
		site.cu = dwarf_dieoffset(&cu);
		site.scope = dwarf_dieoffset(die);
		site.levels = copy_levels(NULL, scope->levels, scope->nlevels);
		site.nlevels = scope->nlevels;
		if (dw_usable(q->m, site.entry))
			dw_add_site(q->out, &site);
		else
			free_levels(site.levels, site.nlevels);
	}
	if (scope->depth > 1) {
		struct callee_scope inner = { .function = f, .levels = scope->levels,
					      .nlevels = scope->nlevels,
					      .depth = scope->depth - 1 };

		callees_in(q, &inner, die);
	}
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

/* F's out-of-line copy, at the entry itself (the return address on top), in SITE. */
static bool entry_site(struct callee_query *q, const struct dw_function *f, struct dw_site *site)
{
	struct dw_pattern exact = { .function = (char *)f->name };
	struct dw_sites copies = { 0 };
	bool found = false;

	dw_function_sites(q->m, &exact, DW_CALL, false, DW_PROLOGUE_NEVER, &copies);
	for (int i = 0; i < copies.count && !found; i++)
		if (copies.sites[i].function == f && copies.sites[i].kind == DW_SITE_ENTRY) {
			*site = copies.sites[i];
			found = true;
		}
	free(copies.sites);
	free(copies.refused);
	return found;
}

/*
 * A tail call of F (a jump: the scope's frame is gone when F starts, F returns to the
 * scope's caller).  Below a called function its probe checks the frames the scope's
 * own code would (the return address at F's entry is the scope's); in the code of the
 * function the script named nothing on the stack tells this call from others: not
 * probed, as stapprobes(3stap)'s "statically determined" callees are.
 */
static void tail_call(struct callee_query *q, const struct callee_scope *scope,
		      const struct dw_function *f)
{
	struct dw_site site;

	if (!scope->nlevels || !entry_site(q, f, &site))
		return;
	site.caller = scope->function;
	if (fnmatch(q->pattern, f->name, 0) == 0) {
		site.levels = copy_levels(NULL, scope->levels, scope->nlevels);
		site.nlevels = scope->nlevels;
		dw_add_site(q->out, &site);
	}
	if (scope->depth > 1 && dw_module_open(q->m)) {
		struct callee_scope inner = { .function = f, .levels = scope->levels,
					      .nlevels = scope->nlevels,
					      .depth = scope->depth - 1 };
		Dwarf_Die body;

		if (dwarf_offdie(q->m->dwarf, site.scope, &body))
			callees_in(q, &inner, &body);
	}
}

/* A call site of the scope's code: its callee's entry in ENTRIES (one per callee),
 * the call's return address added to its first level. */
static void call_site(struct callee_query *q, const struct callee_scope *scope, Dwarf_Die *die,
		      struct dw_sites *entries)
{
	Dwarf_Attribute attr;
	Dwarf_Die origin, cu;
	const struct dw_function *f;
	struct dw_site *at = NULL;
	struct dw_call_level *level;
	const char *name;
	uint64_t ret;

	if ((!dwarf_attr(die, DW_AT_call_origin, &attr) &&
	     !dwarf_attr(die, DW_AT_abstract_origin, &attr)) ||
	    !dwarf_formref_die(&attr, &origin) || !(name = die_name(&origin)) ||
	    (scope->depth == 1 && fnmatch(q->pattern, name, 0) != 0) || !return_pc(die, &ret) ||
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
		if (f->flags & DWF_BLOCKED && fnmatch(q->pattern, name, 0) == 0)
			dw_add_refused(q->out, f);
		return;
	}
	if (dwarf_hasattr(die, DW_AT_call_tail_call) || dwarf_hasattr(die, DW_AT_GNU_tail_call)) {
		tail_call(q, scope, f);
		return;
	}
	for (int i = 0; i < entries->count && !at; i++)
		if (entries->sites[i].function == f)
			at = &entries->sites[i];
	if (!at) {
		struct dw_site site;

		if (!entry_site(q, f, &site))
			return;
		dw_add_site(entries, &site);
		at = &entries->sites[entries->count - 1];
		at->caller = scope->function;
		at->levels = xcalloc(1, sizeof(*at->levels));
		at->nlevels = 1;
	}
	level = &at->levels[0];
	level->returns = xrealloc(level->returns, (level->nreturns + 1) * sizeof(*level->returns));
	level->returns[level->nreturns++] = ret + q->m->bias;
}

/* The inlined instances and call sites among DIE's children: lexical blocks are walked,
 * inlined subroutines are the scope of their own callees. */
static void walk(struct callee_query *q, const struct callee_scope *scope, Dwarf_Die *die,
		 struct dw_sites *entries)
{
	Dwarf_Die child;

	if (dwarf_child(die, &child) != 0)
		return;
	do {
		switch (dwarf_tag(&child)) {
		case DW_TAG_inlined_subroutine:
			inlined(q, scope, &child);
			break;
		case DW_TAG_call_site:
		case DW_TAG_GNU_call_site:
			call_site(q, scope, &child, entries);
			break;
		case DW_TAG_lexical_block:
			walk(q, scope, &child, entries);
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
}

/*
 * The callees of the scope's code in DIE (a subprogram or an inlined instance): its
 * inlined instances as they are found, then the entries of the functions it calls, each
 * with the calls' return addresses as the level before the scope's own; deeper, what
 * those functions' out-of-line copies call, reached only through these calls.
 */
static void callees_in(struct callee_query *q, const struct callee_scope *scope,
		       Dwarf_Die *die)
{
	struct dw_sites entries = { 0 };

	if (q->out->count >= DW_CALLEES_MAX) {
		q->out->too_many = true;
		return;
	}
	walk(q, scope, die, &entries);
	for (int k = 0; k < entries.count; k++) {
		struct dw_site *e = &entries.sites[k];
		struct dw_call_level *first = e->levels;
		Dwarf_Die body;

		e->levels = copy_levels(first, scope->levels, scope->nlevels);
		e->nlevels = scope->nlevels + 1;
		free(first->returns);
		free(first);
		if (scope->depth > 1 && dw_module_open(q->m) &&
		    dwarf_offdie(q->m->dwarf, e->scope, &body)) {
			struct callee_scope inner = { .function = e->function, .levels = e->levels,
						      .nlevels = e->nlevels,
						      .depth = scope->depth - 1 };

			callees_in(q, &inner, &body);
		}
		if (fnmatch(q->pattern, e->function->name, 0) == 0)
			dw_add_site(q->out, e);
		else
			free_levels(e->levels, e->nlevels);
	}
	free(entries.sites);
}

void dw_callee_sites(struct dw_module *m, const struct dw_pattern *caller, const char *callee,
		     int depth, enum dw_function_filter filter, struct dw_sites *out)
{
	struct dw_sites callers = { 0 };
	struct callee_query q = { .m = m, .ix = dw_module_index(m), .pattern = callee,
				  .filter = filter, .out = out };

	dw_function_sites(m, caller, DW_CALL, false, DW_PROLOGUE_NEVER, &callers);
	for (int i = 0; i < callers.count; i++) {
		struct callee_scope scope = { .function = callers.sites[i].function,
					      .depth = depth };
		Dwarf_Die die;

		if (callers.sites[i].kind != DW_SITE_ENTRY || !dw_module_open(m) ||
		    !dwarf_offdie(m->dwarf, callers.sites[i].scope, &die))
			continue;
		callees_in(&q, &scope, &die);
	}
	if (callers.count)
		out->functions_found = true;	/* callers matched: no similar names of them */
	free(callers.sites);
	free(callers.refused);
}
