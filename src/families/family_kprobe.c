/*
 * family_kprobe.c - kprobes that need no debuginfo.
 *
 *   kprobe.function("name")[.call]           on entry to a kernel function
 *   kprobe.function("name").return[.maxactive(N)]
 *                                            on its return (N concurrent instances)
 *   kprobe.module("m").function("name")...   a function of module m
 *   kprobe.statement(ADDRESS).absolute       at an address (guru mode)
 *
 * The kernel's function names may be wildcards; they expand against its symbol table
 * (kernel_symbols.c).  A module's function is looked up by name when the module is
 * loaded, at run time, as stap does; wildcards in a module's name or a function's expand
 * against the module files of the target kernel (the -dbg package's, or the installed
 * ones: their ELF symbol tables), each function then waited for by name.  Handlers read
 * arguments with long_arg(N), returnval() and friends.
 */
#include "elaborate/elaborate.h"
#include "debuginfo/dw.h"
#include "translate/emit.h"
#include "family.h"

#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char *const kprobe_templates[] = {
	"kprobe.function(string)", "kprobe.function(string).call",
	"kprobe.function(string).return", "kprobe.function(string).return.maxactive(number)",
	"kprobe.module(string).function(string)", "kprobe.module(string).function(string).call",
	"kprobe.module(string).function(string).return",
	"kprobe.module(string).function(string).return.maxactive(number)",
	"kprobe.statement(number).absolute",
	NULL,
};

/* What pass 3 needs of a kprobe. */
struct kprobe_probe {
	const char *module;	/* NULL: the kernel itself */
	const char *symbol;	/* NULL for an absolute address */
	uint64_t address;
	bool is_return;
	int64_t maxactive;	/* <= 0: the kernel's default */
};

static bool absolute_build(struct elaborator *el, struct probe_point *pp,
			   struct derived_probe *proto)
{
	struct kprobe_probe *k = xcalloc(1, sizeof(*k));
	struct derived_probe *dp;
	bool present;

	if (!el->session->guru) {
		semantic_error(el, proto->handler->probe->tok,
			       "absolute statement probe in unprivileged script; need stap -g");
		return false;
	}
	k->address = (uint64_t)component_number(pp->components->next, &present);
	dp = add_derived_probe(el, proto,
			       xasprintf("kprobe.statement(%#" PRIx64 ").absolute", k->address), k);
	dp->note = xstrdup(" name = ");
	return true;
}

/* A probe on each function of NAMES (copied; of MODULE, or NULL: the kernel), FUNCTION
 * the point's function component (its suffixes are kept in the names). */
static void add_function_probes(struct elaborator *el, struct derived_probe *proto,
				const char *module, const struct strlist *names,
				struct component *function, bool is_return, int64_t maxactive)
{
	for (int i = 0; i < names->count; i++) {
		struct kprobe_probe *k = xcalloc(1, sizeof(*k));
		struct strbuf name = { 0 };
		struct derived_probe *dp;

		k->module = module;
		k->symbol = xstrdup(names->items[i]);
		k->is_return = is_return;
		k->maxactive = maxactive;
		sb_puts(&name, "kprobe.");
		if (module)
			sb_printf(&name, "module(\"%s\").", module);
		sb_printf(&name, "function(\"%s\")", names->items[i]);
		for (struct component *suffix = function->next; suffix; suffix = suffix->next) {
			sb_printf(&name, ".%s", suffix->name);
			if (suffix->arg)
				sb_printf(&name, "(%" PRId64 ")", suffix->arg->number);
		}
		proto->saves_entry = is_return;
		dp = add_derived_probe(el, proto, sb_steal(&name), k);
		dp->note = module ? xasprintf(" name = %s:%s", module, names->items[i]) :
				    xasprintf(" name = %s", names->items[i]);
	}
}

/*
 * kprobe.module(M).function(F) with a wildcard in M or F: the functions F matches in
 * each module M matches, from the module files of the target kernel; false (an error
 * said) when there are none.
 */
static bool module_wildcard_build(struct elaborator *el, struct derived_probe *proto,
				  const char *module, const char *pattern,
				  struct component *function, bool is_return, int64_t maxactive)
{
	struct debuginfo *di = elaborator_debuginfo(el);
	struct strlist modules = debuginfo_module_names(di, module);
	bool found = false;

	for (int i = 0; i < modules.count; i++) {
		struct dw_module *m = debuginfo_module(di, modules.items[i]);
		struct strlist names = { 0 };

		for (int j = 0; m && j < m->nsymbols; j++) {
			const struct dw_symbol *sym = &m->symbols[j];

			if (sym->function && !starts_with(sym->name, "__pfx_") &&
			    fnmatch(pattern, sym->name, 0) == 0)
				strlist_add(&names, sym->name);
		}
		if (names.count) {	/* sorted, each name once (static functions share) */
			int kept = 1;

			qsort(names.items, names.count, sizeof(*names.items), compare_strings);
			for (int j = 1; j < names.count; j++) {
				if (strcmp(names.items[j], names.items[kept - 1]) == 0)
					free(names.items[j]);
				else
					names.items[kept++] = names.items[j];
			}
			names.count = kept;
			names.items[kept] = NULL;
			add_function_probes(el, proto, xstrdup(modules.items[i]), &names,
					    function, is_return, maxactive);
			found = true;
		}
		strlist_free(&names);
	}
	strlist_free(&modules);
	if (!found)
		semantic_error(el, NULL, "no match");
	return found;
}

static bool kprobe_build(struct elaborator *el, struct probe_point *pp,
			 struct derived_probe *proto)
{
	struct component *c = pp->components->next, *function, *suffix;
	const char *module = NULL, *pattern;
	struct strlist names;
	bool present, is_return = false;
	int64_t maxactive = 0;

	if (strcmp(c->name, "statement") == 0)
		return absolute_build(el, pp, proto);
	if (strcmp(c->name, "module") == 0) {
		module = component_string(c, &present);
		c = c->next;
	}
	function = c;
	pattern = component_string(function, &present);
	for (suffix = function->next; suffix; suffix = suffix->next) {
		if (strcmp(suffix->name, "return") == 0)
			is_return = true;
		else if (strcmp(suffix->name, "maxactive") == 0)
			maxactive = component_number(suffix, &present);
	}
	if (module && (strpbrk(module, "*?[") || strpbrk(pattern, "*?[")))
		return module_wildcard_build(el, proto, module, pattern, function, is_return,
					     maxactive);
	if (module) {	/* looked up when the module is there (at run time), as in stap */
		struct kprobe_probe *k = xcalloc(1, sizeof(*k));
		struct derived_probe *dp;

		k->module = module;
		k->symbol = pattern;
		k->is_return = is_return;
		k->maxactive = maxactive;
		proto->saves_entry = is_return;	/* the kretprobe's entry handler: @entry() */
		dp = add_derived_probe(el, proto, probe_point_text(pp, false), k);
		dp->note = xasprintf(" name = %s:%s", module, pattern);
		return true;
	}
	names = kernel_functions(el, pattern);
	if (names.count == 0) {
		const char **all;
		int count = kernel_function_names(el, &all);
		char *similar = similar_names(pattern, all, count);

		/* "(similar: a, b)" names functions here */
		if (*similar)
			similar = xasprintf(" (similar functions:%s", similar + strlen(" (similar:"));
		semantic_error(el, NULL, "no match%s", similar);
		free(similar);
		return false;
	}
	add_function_probes(el, proto, NULL, &names, function, is_return, maxactive);
	strlist_free(&names);
	return true;
}

/* One entry of runtime/kprobe.c's table; the dwarf family's kernel probes' too. */
void emit_callers(struct strbuf *sb, const int64_t *callers, int ncallers)
{
	if (!ncallers)
		return;
	sb_puts(sb, ", .callers = (const long[]){ ");
	for (int i = 0; i < ncallers; i++)
		sb_printf(sb, "%s%" PRId64 "L", i ? ", " : "", callers[i]);
	sb_printf(sb, " }, .ncallers = %d", ncallers);
}

void emit_kprobe_entry(struct emitter *e, struct derived_probe *dp, const struct kprobe_entry *k)
{
	struct strbuf *sb = &e->out;	/* straight into the C file */

	sb_printf(sb, "\t{ .probe = &stp_probes[%d], ", dp->index);
	if (k->symbol) {
		sb_puts(sb, ".symbol = ");
		sb_put_c_string(sb, k->symbol);
		if (k->with_offset)
			sb_printf(sb, ", .offset = %#" PRIx64 "UL", k->offset);
	} else {
		sb_printf(sb, ".address = %#" PRIx64 "UL", k->address);
	}
	if (k->is_return)
		sb_puts(sb, ", .is_return = true");
	if (k->maxactive > 0)	/* the kernel's field is an int */
		sb_printf(sb, ", .maxactive = %" PRId64,
			  k->maxactive > INT32_MAX ? (int64_t)INT32_MAX : k->maxactive);
	if (k->wait_for_module)
		sb_puts(sb, ", .wait_for_module = true");
	emit_callers(sb, k->callers, k->ncallers);
	if (k->chain)
		sb_puts(sb, k->chain);
	if (k->is_return && dp->handler->nentries) {	/* @entry(): kept from the entry */
		char *size = entry_offset(dp->handler, dp->handler->nentries);

		sb_printf(sb, ", .entry_probe = &probe_%d_entry_probe, .data_size = %s",
			  dp->handler->index, size);
		free(size);
	}
	sb_puts(sb, " },\n");
}

static void kprobe_entry(struct emitter *e, struct derived_probe *dp)
{
	struct kprobe_probe *k = dp->data;
	/* the kernel finds "module:name" while that module is loaded */
	char *symbol = k->symbol && k->module ? xasprintf("%s:%s", k->module, k->symbol) : NULL;
	struct kprobe_entry entry = {
		.symbol = symbol ? symbol : k->symbol,
		.address = k->address,
		.is_return = k->is_return,
		.maxactive = k->maxactive,
		/* as stap: a module not loaded yet is waited for, without a word */
		.wait_for_module = k->module != NULL,
	};

	emit_kprobe_entry(e, dp, &entry);
	free(symbol);
}

/* The table runtime/kprobe.c registers, one entry per probe. */
static const struct probe_table kprobe_table = {
	"struct stp_kprobe_probe", "stp_kprobe_probes", "stp_kprobes_register",
	"stp_kprobes_unregister", kprobe_entry,
};

const struct probe_family kprobe_family = {
	.name = "kprobe",
	.templates = kprobe_templates,
	.build = kprobe_build,
	.table = &kprobe_table,
};
