/*
 * family_trace.c - the kernel's tracepoints.
 *
 *   kernel.trace(PATTERN)                  tracepoints of the kernel and of its modules
 *   module(MPATTERN).trace(PATTERN)        tracepoints of the modules MPATTERN names
 *
 * PATTERN is "name" or "system:name", each part a glob ("sched:sched_*", "*:*_exit").
 * The tracepoints and their arguments come from the DWARF (dwarf_trace.c); each
 * argument is a target variable ($prev, $next->pid, $$parms), read from the values the
 * tracepoint passes, which cannot be written (members they point to can, with -g).
 * $$name and $$system are the tracepoint's names.  runtime/tracepoint.c registers a
 * probe function per probe with the kernel's tracepoint API, finding the tracepoint by
 * name (a module's when the module comes).
 */
#include "elaborate/elaborate.h"
#include "translate/emit.h"
#include "family.h"
#include "debuginfo/dw.h"
#include "debuginfo/btf.h"
#include "debuginfo/ctype.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <inttypes.h>
#include <string.h>

static const char *const trace_templates[] = {
	"kernel.trace(string)",
	"module(string).trace(string)",
	NULL,
};

/* What pass 3 and the target variables need of a tracepoint probe. */
struct trace_probe {
	const char *module;		/* NULL: the kernel's */
	char *name, *system;
	struct dw_trace_arg *args;
	int nargs;
};

/* "system:name" or "name": the two globs (a missing system matches every one). */
static void split_pattern(const char *pattern, char **system, char **name)
{
	const char *colon = strchr(pattern, ':');

	*system = colon ? xstrndup(pattern, colon - pattern) : xstrdup("*");
	*name = xstrdup(colon ? colon + 1 : pattern);
}

/* Whether the module's symbols have a tracepoint at all (no DWARF read for those that
 * do not: most modules). */
static bool has_tracepoints(struct dw_module *m)
{
	int lo = 0, hi = m->nnames;

	while (lo < hi) {	/* the first name >= "__traceiter_" */
		int mid = (lo + hi) / 2;

		if (strcmp(m->names[mid], "__traceiter_") < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->nnames && starts_with(m->names[lo], "__traceiter_");
}

static char *probe_name(const char *module, const char *system, const char *name)
{
	if (module)
		return xasprintf("module(\"%s\").trace(\"%s:%s\")", module, system, name);
	return xasprintf("kernel.trace(\"%s:%s\")", system, name);
}

static char *trace_variables(struct trace_probe *p);

/* A probe of tracepoint SYSTEM:NAME (of MODULE, NULL: the kernel's) named as the point
 * named it, with the arguments READ_ARGS gives (only when they are needed: -l lists
 * the names alone). */
static void add_tracepoint(struct elaborator *el, struct derived_probe *proto,
			   const char *named_module, const char *module, const char *system,
			   const char *name, int (*read_args)(void *arg, struct dw_trace_arg **out),
			   void *arg)
{
	char *point = probe_name(named_module, system, name);
	struct trace_probe *p;

	if (el->listing) {
		struct trace_probe listed = { 0 };

		add_derived_probe(el, proto, point, NULL);
		if (el->session->list_locals) {
			listed.nargs = read_args(arg, &listed.args);
			el->listed[el->nlisted - 1].variables = trace_variables(&listed);
			free(listed.args);
		}
		return;
	}
	p = xcalloc(1, sizeof(*p));
	p->module = module ? xstrdup(module) : NULL;
	p->name = xstrdup(name);
	p->system = xstrdup(system);
	p->nargs = read_args(arg, &p->args);
	add_derived_probe(el, proto, point, p);
}

struct dwarf_tracepoint {
	struct dw_module *m;
	const struct dw_tracepoint *tp;
};

static int dwarf_trace_args(void *arg, struct dw_trace_arg **out)
{
	struct dwarf_tracepoint *t = arg;

	return dw_tracepoint_args(t->m, t->tp, out);
}

/* The probes of M's tracepoints matching the globs; how many. */
static int add_tracepoints(struct elaborator *el, struct derived_probe *proto,
			   struct dw_module *m, const char *named_module, const char *system,
			   const char *name)
{
	const struct dw_tracepoint *tps;
	int count, added = 0;

	/* a module read from its DWARF gets its tables into the cache (built with the
	 * index), so that a later wildcard over the modules opens none of their DWARF */
	if (!m->cache_blob)
		dw_module_index(m);
	count = has_tracepoints(m) ? dw_tracepoints(m, &tps) : 0;

	for (int i = 0; i < count; i++) {
		struct dwarf_tracepoint t = { m, &tps[i] };

		if (fnmatch(system, tps[i].system, 0) != 0 || fnmatch(name, tps[i].name, 0) != 0)
			continue;
		added++;
		if (!el->listing)
			m->in_use = true;	/* its arguments' types are the module's DWARF */
		add_tracepoint(el, proto, named_module, m->is_kernel ? NULL : m->name,
			       tps[i].system, tps[i].name, dwarf_trace_args, &t);
	}
	return added;
}

/* "no match", with the kernel's tracepoints whose names are close to NAME's */
static void no_match(struct elaborator *el, struct dw_module *kernel, const char *name)
{
	const struct dw_tracepoint *tps;
	int count = strpbrk(name, "*?[") ? 0 : dw_tracepoints(kernel, &tps);
	const char **names = xcalloc(count + 1, sizeof(*names));
	char *similar;

	for (int i = 0; i < count; i++)
		names[i] = tps[i].name;
	similar = count ? similar_names(name, names, count) : xstrdup("");
	if (*similar) {
		char *tracepoints = xasprintf(" (similar tracepoints:%s",
					      similar + strlen(" (similar:"));

		free(similar);
		similar = tracepoints;
	}
	semantic_error(el, NULL, "no match%s", similar);
	free(similar);
	free(names);
}

/* ---- from BTF, without the kernel's DWARF ---- */

struct btf_trace {
	struct btf_module *m;
	const struct btf_tracepoint *tp;
};

/* A BTF tracepoint's arguments: its __traceiter_ function's parameters after the first. */
static int btf_trace_args(void *arg, struct dw_trace_arg **out)
{
	struct btf_trace *t = arg;
	const char **names;
	struct ctype **types;
	int n = btf_function_params(t->m, t->tp->function, &names, &types, NULL);

	*out = xcalloc(n + 1, sizeof(**out));
	for (int i = 1; i < n; i++)	/* void *__data: the probe's own */
		(*out)[i - 1] = (struct dw_trace_arg){ .name = *names[i] ? names[i] : "?",
						       .type = types[i] };
	free(names);
	free(types);
	return n > 0 ? n - 1 : 0;
}

static int add_btf_tracepoints(struct elaborator *el, struct derived_probe *proto,
			       struct btf_module *m, const char *named_module,
			       const char *system, const char *name)
{
	const struct btf_tracepoint *tps;
	int count = btf_tracepoints(el->session, m, &tps), added = 0;

	for (int i = 0; i < count; i++) {
		struct btf_trace t = { m, &tps[i] };

		if (fnmatch(system, tps[i].system, 0) != 0 || fnmatch(name, tps[i].name, 0) != 0)
			continue;
		added++;
		add_tracepoint(el, proto, named_module, m->is_kernel ? NULL : m->name,
			       tps[i].system, tps[i].name, btf_trace_args, &t);
	}
	return added;
}

/* ---- the points ---- */

/*
 * The probes of module MODULE's tracepoints (read from its DWARF, or with BTF from its
 * BTF) that match the globs, named by the module when NAMED (module(...).trace); how many.
 */
static int module_tracepoints(struct elaborator *el, struct derived_probe *proto, bool btf,
			      const char *module, bool named, const char *system,
			      const char *name)
{
	struct debuginfo *di = elaborator_debuginfo(el);
	struct dw_module *m;
	int found;

	if (btf) {
		struct btf_module *b = btf_module(el->session, module);

		return b ? add_btf_tracepoints(el, proto, b, named ? b->name : NULL, system, name) :
			   0;
	}
	m = debuginfo_module(di, module);
	if (!m)
		return 0;
	found = add_tracepoints(el, proto, m, named ? m->name : NULL, system, name);
	if (!found || el->listing)	/* one module open at a time */
		debuginfo_close(di, m);
	return found;
}

/* kernel.trace and module().trace, from the DWARF of the kernel and its modules or, when
 * the kernel has none (or --btf), from their BTF. */
static bool trace_build(struct elaborator *el, struct probe_point *pp,
			struct derived_probe *proto)
{
	struct component *c = pp->components;
	const char *module = NULL, *pattern, *why;
	struct debuginfo *di = elaborator_debuginfo(el);
	struct dw_module *kernel = debuginfo_kernel(di);
	bool btf = el->session->use_btf || !kernel, present;
	struct btf_module *btf_kernel_module = btf ? btf_kernel(el->session, &why) : NULL;
	struct strlist names = { 0 };
	char *system, *name;
	int added = 0;

	if (strcmp(c->name, "module") == 0)
		module = component_string(c, &present);
	pattern = component_string(c->next, &present);	/* trace(PATTERN) */
	if (btf && !btf_kernel_module) {
		report_missing_debuginfo(el);
		return false;
	}
	split_pattern(pattern, &system, &name);
	if (!module && btf)
		added += add_btf_tracepoints(el, proto, btf_kernel_module, NULL, system, name);
	else if (!module)
		added += add_tracepoints(el, proto, kernel, NULL, system, name);
	/* kernel.trace: the modules' too, when a wildcard may match there or the kernel
	 * has no such tracepoint */
	if (module || strpbrk(pattern, "*?[") || !added)
		names = btf ? btf_module_names(el->session, module ? module : "*") :
			      debuginfo_module_names(di, module ? module : "*");
	for (int i = 0; i < names.count; i++)
		added += module_tracepoints(el, proto, btf, names.items[i], module != NULL, system,
					    name);
	strlist_free(&names);
	if (!added && btf)
		semantic_error(el, NULL, "no match");
	else if (!added)
		no_match(el, kernel, name);
	free(system);
	free(name);
	return added > 0;
}

/* ---- target variables ---- */

/* The size of argument TYPE when the tracepoint passes a struct or union by value (the
 * probe function keeps a copy and the script reads it in memory), else 0. */
static uint64_t by_value_size(struct ctype *type)
{
	struct ctype *r = ctype_resolve(type);

	return r && (r->kind == CT_STRUCT || r->kind == CT_UNION) && !r->incomplete ? r->size :
	       0;
}

/* The access of argument I of P: the value the tracepoint passed. */
static struct target_access *argument_access(const struct trace_probe *p, int i)
{
	struct target_access *a = xcalloc(1, sizeof(*a));

	a->start = xasprintf("stp_trace_arg(c, %d)", i);
	/* a struct passed by value: the argument is its copy's address */
	a->start_is_value = !by_value_size(p->args[i].type);
	a->regno = -1;
	return a;
}

static struct node *string_node(struct node *n, const char *value)
{
	struct node *s = xcalloc(1, sizeof(*s));

	s->kind = ND_STRING;
	s->tok = n->tok;
	s->type = TYPE_STRING;
	s->string = xstrdup(value);
	s->next = n->next;
	return s;
}

static enum target_resolution trace_resolve_target(struct elaborator *el,
						   struct derived_probe *dp, struct node *n,
						   bool quiet)
{
	struct trace_probe *p = dp->data;
	const char *name = n->string + 1;	/* past the '$' */
	struct strbuf alternatives = { 0 };

	if (strcmp(name, "$name") == 0 || strcmp(name, "$system") == 0) {
		if (n->components || n->pretty || n->addressof) {
			if (!quiet)
				semantic_error(el, n->tok, "invalid use of $%s", name);
			return TARGET_UNRESOLVED;
		}
		*n = *string_node(n, strcmp(name, "$name") == 0 ? p->name : p->system);
		return TARGET_RESOLVED;
	}
	if (strcmp(name, "$vars") == 0 || strcmp(name, "$parms") == 0) {
		struct pretty_list *list = target_pretty_list(n->tok);
		struct node *call, *next = n->next;

		for (int i = 0; i < p->nargs; i++) {
			struct target_access *a = argument_access(p, i);

			a->type = p->args[i].type;
			target_pretty_variable(list, p->args[i].name, a, a->type, n->pretty);
		}
		call = target_pretty_list_call(list);
		call->next = next;
		*n = *call;
		return TARGET_RESOLVED;
	}
	for (int i = 0; i < p->nargs; i++) {
		if (strcmp(p->args[i].name, name) == 0) {
			struct target_access *a = argument_access(p, i);

			if (!target_components(el, n, a, p->args[i].type, quiet))
				return TARGET_UNRESOLVED;
			return target_resolved(n, a) ? TARGET_RESOLVED : TARGET_UNRESOLVED;
		}
		sb_printf(&alternatives, "$%s, ", p->args[i].name);
	}
	sb_puts(&alternatives, "$$name, $$parms, $$vars");
	if (!quiet)
		semantic_error(el, n->tok, "unable to find tracepoint variable '$%s' "
			       "(alternatives: %s)", name, alternatives.data);
	sb_free(&alternatives);
	return TARGET_UNRESOLVED;
}

/* ---- pass 3: a probe function per probe, and the table of them ---- */

static void trace_entry(struct emitter *e, struct derived_probe *dp)
{
	struct trace_probe *p = dp->data;
	char *name = c_string(p->name), *module = p->module ? c_string(p->module) : NULL;

	emit(e, "\t{ .probe = &stp_probes[%d], .name = %s, .module = %s, "
	     ".func = (void *)stp_trace_probe_%d },\n", dp->index, name,
	     module ? module : "NULL", dp->index);
	free(name);
	free(module);
}

/* The probe functions that the table names. */
static void trace_emit(struct emitter *e, struct program *prog)
{
	/* the kernel calls it with (void *data, the tracepoint's arguments): each an
	 * integer or a pointer, one register or stack slot, kept as a u64; a struct passed
	 * by value is taken as an array of as many eightbytes (integer members only in the
	 * kernel: the x86-64 ABI passes both alike, in registers up to 16 bytes, else on
	 * the stack), and kept as its copy's address */
	for (struct derived_probe *dp = prog->probes; dp; dp = dp->next) {
		struct trace_probe *p = dp->data;

		if (dp->family != &trace_family)
			continue;
		for (int i = 0; i < p->nargs; i++) {
			uint64_t size = by_value_size(p->args[i].type);

			if (size)
				emit(e, "struct stp_trace_%d_arg%d { u64 w[%" PRIu64 "]; };\n",
				     dp->index, i, (size + 7) / 8);
		}
		emit(e, "static void stp_trace_probe_%d(void *data", dp->index);
		for (int i = 0; i < p->nargs; i++) {
			if (by_value_size(p->args[i].type))
				emit(e, ", struct stp_trace_%d_arg%d a%d", dp->index, i, i);
			else
				emit(e, ", u64 a%d", i);
		}
		emit(e, ")\n{\n\tu64 args[] = { ");
		for (int i = 0; i < p->nargs; i++)
			emit(e, by_value_size(p->args[i].type) ? "%s(u64)(uintptr_t)&a%d" :
			     "%sa%d", i ? ", " : "", i);
		emit(e, "%s };\n\n\tstp_trace_run(&stp_probes[%d], args);\n}\n\n",
		     p->nargs ? "" : "0", dp->index);
	}
}

/* The table runtime/tracepoint.c registers, one probe function per probe. */
static const struct probe_table trace_table = {
	"struct stp_trace_probe", "stp_trace_probes", "stp_traces_register",
	"stp_traces_unregister", trace_entry,
};

/* Arguments the probe function cannot take as one integer each. */
static const char *trace_missing(struct derived_probe *dp)
{
	struct trace_probe *p = dp->data;

	for (int i = 0; i < p->nargs; i++) {
		struct ctype *r = ctype_resolve(p->args[i].type);

		if (by_value_size(p->args[i].type))
			continue;
		if (!r || r->kind == CT_STRUCT || r->kind == CT_UNION || r->kind == CT_ARRAY ||
		    (r->kind == CT_BASE && (r->is_float || r->size > 8)))
			return "tracepoints with arguments passed by value as floats or incomplete "
			       "structs";
	}
	return NULL;
}

static char *trace_list_variables(struct derived_probe *dp)
{
	return trace_variables(dp->data);
}

/* " $prev:struct task_struct* ..." (-L) */
static char *trace_variables(struct trace_probe *p)
{
	struct strbuf sb = { 0 };

	for (int i = 0; i < p->nargs; i++) {
		char *type = ctype_name(p->args[i].type);

		sb_printf(&sb, " $%s:%s", p->args[i].name, type);
		free(type);
	}
	return sb.data ? sb_steal(&sb) : xstrdup("");
}

const struct probe_family trace_family = {
	.name = "trace",
	.templates = trace_templates,
	.build = trace_build,
	.resolve_target = trace_resolve_target,
	.list_variables = trace_list_variables,
	.missing = trace_missing,
	.emit = trace_emit,
	.table = &trace_table,
};
