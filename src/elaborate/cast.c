/*
 * cast.c - pass 2: @cast and @var, and the kernel's types by name (for the families'
 * context variables too).
 *
 *   @cast(p, "type"[, "module[:module...]"])  P is the address of a TYPE (a struct, union
 *          or typedef of one: "task_struct" or "struct task_struct") of the first module
 *          that has it; by default the module of the probe (for a module's DWARF probe),
 *          else the kernel; "kernel<linux/sched.h>": the kernel's types, or (those it
 *          lacks) the header's compiled by the kernel's kbuild
 *   @var("name@file"[, "module"])  the global NAME of the unit compiled from FILE (any
 *          unit without @file; the shortest path that matches, as stap chooses)
 * Both take ->member, [index], & and the $ and $$ of pretty-printing, as target
 * variables do (target_access.c).  Types and globals are found through the function index's
 * tables (dwarf_index.c), so a warm run needs no walk of the DWARF.
 */
#include "elaborate.h"
#include "families/family.h"
#include "debuginfo/dw.h"
#include "debuginfo/btf.h"
#include "debuginfo/ctype.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* "kernel", a module's name, or a user-space program's or library's path. */
static struct dw_module *module_named(struct elaborator *el, const char *name)
{
	struct debuginfo *di = elaborator_debuginfo(el);
	char *target, *file, *why;
	struct dw_module *m;

	if (!strchr(name, '/'))
		return strcmp(name, "kernel") == 0 ? debuginfo_kernel(di) :
						     debuginfo_module(di, name);
	if (!program_path(el->session, name, &target, &file, &why)) {
		free(why);
		return NULL;
	}
	m = debuginfo_program(di, target, file, &why);
	free(target);
	free(file);
	free(why);
	return m;
}

/* Whether the kernel's types come from its BTF: --btf, or no DWARF installed. */
static bool kernel_types_from_btf(struct elaborator *el)
{
	return el->session->use_btf || !debuginfo_kernel(elaborator_debuginfo(el));
}

/* The type NAME of module M ("kernel" or a module's name) from its BTF, or NULL. */
static struct ctype *btf_type_named(struct elaborator *el, const char *m, const char *name)
{
	const char *why;
	struct btf_module *b;

	if (strchr(m, '/'))
		return NULL;
	b = strcmp(m, "kernel") == 0 ? btf_kernel(el->session, &why) : btf_module(el->session, m);
	return b ? btf_find_type(b, name) : NULL;
}

/* The type NAME ("sk_buff", "struct sk_buff") in the kernel's debuginfo (or BTF), or NULL:
 * for a probe family's context variables that point to kernel structs. */
struct ctype *kernel_type_named(struct elaborator *el, const char *name)
{
	struct dw_module *kernel;
	Dwarf_Die die;

	if (kernel_types_from_btf(el))
		return btf_type_named(el, "kernel", name);
	kernel = module_named(el, "kernel");
	return kernel && dw_find_type(kernel, name, &die) ? ctype_of_die(&die) : NULL;
}

/* The module a @cast without one looks in: the DWARF probe's module (a program's, or
 * its library's), else the kernel. */
static const char *default_module(struct derived_probe *context)
{
	const char *point = context ? context->name : NULL, *library;
	static char name[4096];

	if (point && starts_with(point, "module(\"")) {
		size_t len = strcspn(point + 8, "\"");

		snprintf(name, sizeof(name), "%.*s", (int)len, point + 8);
		return name;
	}
	if (point && starts_with(point, "process(\"")) {
		library = strstr(point, ").library(\"");
		point = library ? library + strlen(").library(\"") : point + strlen("process(\"");
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(point, "\""), point);
		return name;
	}
	return "kernel";
}

/* The module of the probe CONTEXT is in, when it is in a user-space file. */
static struct dw_module *probed_user_module(struct elaborator *el, struct derived_probe *context)
{
	const char *m = default_module(context);

	return strchr(m, '/') ? module_named(el, m) : NULL;
}

bool resolve_cast(struct elaborator *el, struct derived_probe *context, struct node *n,
		  bool quiet)
{
	const char *modules = n->module ? n->module : default_module(context);
	char *list = xstrdup(modules), *save = NULL;
	struct target_access *a;
	struct ctype *type = NULL;
	Dwarf_Die die;
	bool user = false;

	for (char *m = strtok_r(list, ":", &save); m && !type; m = strtok_r(NULL, ":", &save)) {
		struct dw_module *mod;

		/* "kernel<linux/sched.h>": the kernel's own types (debuginfo or BTF) where it
		 * has them, else those of the headers compiled by its kbuild, as stap does */
		if (starts_with(m, "kernel<") && dw_is_header_spec(m + strlen("kernel"))) {
			char *headers = m + strlen("kernel");

			if (kernel_types_from_btf(el)) {
				type = btf_type_named(el, "kernel", n->type_name);
			} else if ((mod = debuginfo_kernel(elaborator_debuginfo(el))) &&
				   dw_find_type(mod, n->type_name, &die)) {
				type = ctype_of_die(&die);
			}
			if (!type && (mod = debuginfo_kernel_headers(elaborator_debuginfo(el), headers)) &&
			    dw_find_type(mod, n->type_name, &die))
				type = ctype_of_die(&die);
			continue;
		}
		if (dw_is_header_spec(m)) {	/* "<sys/un.h>": a user-space program's types */
			mod = debuginfo_headers(elaborator_debuginfo(el), m);
			if (mod && dw_find_type(mod, n->type_name, &die)) {
				type = ctype_of_die(&die);
				user = true;
			}
			continue;
		}
		if (!strchr(m, '/') && kernel_types_from_btf(el)) {
			type = btf_type_named(el, m, n->type_name);
			continue;
		}
		mod = module_named(el, m);
		if (mod && dw_find_type(mod, n->type_name, &die)) {
			type = ctype_of_die(&die);
			user = mod->is_user;
		}
	}
	free(list);
	if (!type) {
		if (!quiet)
			semantic_error(el, n->tok, "type definition '%s' not found in '%s'",
				       n->type_name, modules);
		return false;
	}
	if (!user && !privilege_allows_kernel_memory(el, n, quiet))
		return false;
	a = xcalloc(1, sizeof(*a));
	a->base = n->lhs;	/* the address is the script's value */
	a->regno = -1;
	a->user = user;		/* a program's type: the address is in its memory */
	if (!target_components(el, n, a, type, quiet))
		return false;
	return target_resolved(n, a);
}

bool resolve_at_var(struct elaborator *el, struct derived_probe *context, struct node *n,
		    bool quiet)
{
	const char *at = strchr(n->string, '@');
	char *name = at ? xstrndup(n->string, at - n->string) : xstrdup(n->string);
	const char *modules = n->module ? n->module : default_module(context);
	struct dw_module *m = NULL;
	struct target_access *a;
	struct dw_location loc;
	Dwarf_Die var, cu;

	const struct dw_symbol *symbol = NULL;

	/* "a:b:c": the first module of the list that has the variable, as stap takes it */
	if (strchr(modules, ':') && !strchr(modules, '<')) {
		char *list = xstrdup(modules), *save = NULL;

		for (char *one = strtok_r(list, ":", &save); one && !m;
		     one = strtok_r(NULL, ":", &save)) {
			struct dw_module *c = module_named(el, one);

			if (c && dw_find_global(c, name, at ? at + 1 : NULL, &var))
				m = c;
		}
		free(list);
	} else {
		m = module_named(el, modules);
	}

	if (m && !at && !dw_find_global(m, name, NULL, &var) && dw_find_declared(m, name, &var))
		symbol = dw_symbol_named(m, name);	/* defined by the linker: jiffies */
	if (!m || (!symbol && !dw_find_global(m, name, at ? at + 1 : NULL, &var)) ||
	    !dwarf_diecu(&var, &cu, NULL, NULL) || (symbol && !m->is_kernel)) {
		if (!quiet)
			semantic_error(el, n->tok, "unresolved @var() expression");
		free(name);
		return false;
	}
	free(name);
	if (!m->is_user && !privilege_allows_kernel_memory(el, n, quiet))
		return false;
	if (symbol) {
		loc = (struct dw_location){ .regno = -1, .c = xasprintf("stp_kernel_address(c, %#" PRIx64 "ULL)",
							   symbol->addr) };
	} else if (!dw_compile_location(m, &var, &cu, 0, false, &loc)) {
		if (!quiet)
			semantic_error(el, n->tok, "@var(\"%s\") is %s" MAN_PAGE("error::dwarf"),
				       n->string, loc.error);
		free(loc.error);
		return false;
	}
	place_module_symbol(el, m, &loc);
	/* a program's static is where this process has the file: a hit in that file tells
	 * (stp_user_address()); elsewhere (a function, a timer, another file's probe) the
	 * current process's mappings of it, at run time, as stap reads @var("x", "PATH") */
	if (m->is_user && probed_user_module(el, context) != m)
		place_user_file(el, m, &loc);
	a = xcalloc(1, sizeof(*a));
	a->start = loc.c;
	a->start_is_value = loc.is_value;
	a->regno = loc.regno;
	a->user = m->is_user;
	a->kernel_address = strstr(loc.c, "stp_kernel_address") != NULL;
	if ((a->kernel_address && !use_kernel_addresses(el)) ||
	    !target_components(el, n, a, ctype_of_variable(&var), quiet))
		return false;
	return target_resolved(n, a);
}
