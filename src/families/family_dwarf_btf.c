/*
 * family_dwarf_btf.c - the dwarf family's kernel.function and module().function points
 * placed from the kernel's BTF (btf.h), when the kernel has no DWARF (or --btf asks) or
 * a module has none: each function whose name matches, at its entry (a kprobe on the
 * symbol), .return a kretprobe; BTF knows no files, lines, statements, labels or inlined
 * copies.  Its target variables are the parameters, where the x86-64 calling convention
 * puts them at the entry, and $return.  family_dwarf.c hands the points here and the
 * probes' target variables, and registers the probes with its DWARF-placed ones.
 */
#include "elaborate/elaborate.h"
#include "family_dwarf.h"
#include "debuginfo/btf.h"
#include "debuginfo/ctype.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* " $return:ssize_t $file:struct file* ...": -L's variables of a BTF function. */
char *variables_from_btf(struct btf_module *m, const struct btf_function *f, bool with_return)
{
	struct strbuf sb = { 0 };
	const char **names;
	struct ctype **types, *returns = btf_function_return(m, f);
	int n = f->ambiguous ? 0 : btf_function_params(m, f, &names, &types, NULL);

	if (f->ambiguous)	/* which of them is probed is not known */
		return xstrdup("");
	if (with_return && returns) {
		char *type = ctype_name(returns);

		sb_printf(&sb, " $return:%s", type);
		free(type);
	}
	for (int i = 0; i < n; i++) {
		char *type = ctype_name(types[i]);

		if (*names[i])
			sb_printf(&sb, " $%s:%s", names[i], type);
		free(type);
	}
	free(names);
	free(types);
	return sb.data ? sb_steal(&sb) : xstrdup("");
}

/* What a BTF function point cannot have: the parts that need the DWARF, or NULL. */
static const char *btf_refused(const struct dwarf_point *dp, const struct dw_pattern *pat)
{
	if (!dp->pattern)
		return "statement probes by address";
	if (dp->statement)
		return "statement probes";
	if (dp->label)
		return ".label probes";
	if (dp->inline_only)
		return ".inline probes";
	if (dp->exported)
		return ".exported probes";
	if (pat->file || pat->lines != DW_LINES_NONE)
		return "@file:line patterns";
	return NULL;
}

static bool btf_add_function(struct elaborator *el, struct derived_probe *proto,
			     const struct dwarf_point *dp, struct btf_module *m,
			     const struct btf_function *f)
{
	struct strbuf sb = { 0 };
	struct dwarf_probe *p;
	struct derived_probe *derived;
	char *name;

	if (m->is_kernel)
		sb_puts(&sb, "kernel");
	else
		sb_printf(&sb, "module(\"%s\")", m->name);
	sb_printf(&sb, ".function(\"%s\")", f->name);
	put_point_suffixes(&sb, dp);
	name = sb_steal(&sb);
	if (el->listing) {
		add_derived_probe(el, proto, name, NULL);
		if (el->session->list_locals)
			el->listed[el->nlisted - 1].variables = variables_from_btf(m, f,
										   dp->is_return);
		return true;
	}
	p = xcalloc(1, sizeof(*p));
	p->symbol = m->is_kernel ? xstrdup(f->name) : xasprintf("%s:%s", m->name, f->name);
	p->is_return = dp->is_return;
	p->maxactive = dp->maxactive;
	p->btf = m;
	p->btf_function = f;
	derived = add_derived_probe(el, proto, name, p);
	derived->note = xasprintf("pc=%s+0x0 btf ", p->symbol);
	derived->derivation = xstrdup(name);
	derived->saves_entry = dp->is_return;
	return true;
}

/*
 * kernel.function(PATTERN) and module(M).function(PATTERN) from BTF: every function
 * whose name matches, at its entry (a kprobe on the symbol), .return a kretprobe.  BTF
 * knows no files, lines, statements, labels or inlined copies.
 */
bool place_from_btf(struct elaborator *el, struct dwarf_point *dp, struct dw_pattern *pat,
		    struct derived_probe *proto)
{
	struct session *s = el->session;
	const char *why = NULL, *refused;
	struct btf_module *kernel = btf_kernel(s, &why), *last = NULL;
	struct strlist names = { 0 };
	int added = 0, opened = 0;
	bool blocklisted = false;

	if (!kernel) {
		report_missing_debuginfo(el);
		if (verbose_at(s, 2, 1))
			fprintf(stderr, "%s\n", why);
		return false;
	}
	refused = btf_refused(dp, pat);
	if (refused) {
		semantic_error(el, dp->what->tok, "%s need the kernel's DWARF: only its BTF is "
			       "here%s", refused, s->use_btf ? " (--btf)" : "");
		return false;
	}
	if (dp->module)
		names = btf_module_names(s, dp->module);
	else
		strlist_add(&names, "kernel");
	for (int i = 0; i < names.count; i++) {
		struct btf_module *m = dp->module ? btf_module(s, names.items[i]) : kernel;
		int lo = 0, hi;

		if (!m)
			continue;
		opened++;
		last = m;
		hi = m->nfunctions;
		if (!strpbrk(pat->function, "*?[")) {
			const struct btf_function *f = btf_function_named(m, pat->function);

			lo = f ? (int)(f - m->functions) : 0;
			hi = f ? lo + 1 : 0;
		}
		for (int k = lo; k < hi; k++) {
			const char *name = m->functions[k].name;

			if (fnmatch(pat->function, name, 0) != 0)
				continue;
			if (dw_blocklisted(name, NULL)) {	/* BTF knows no files */
				semantic_warning(el, proto->handler->probe->tok,
						 "function %s is blocklisted", name);
				blocklisted = true;
				continue;
			}
			added += btf_add_function(el, proto, dp, m, &m->functions[k]);
		}
	}
	strlist_free(&names);
	if (!added) {
		int count = opened == 1 ? last->nfunctions : 0;
		const char **names = xcalloc(count + 1, sizeof(*names));

		for (int i = 0; i < count; i++)
			names[i] = last->functions[i].name;
		no_function_match(el, names, count, pat, blocklisted);
		free(names);
	}
	return added > 0;
}

/* DWARF numbers of the registers that pass the first six integer arguments (x86-64). */
static const int argument_registers[] = { 5, 4, 1, 2, 8, 9 };	/* di si dx cx r8 r9 */

/*
 * Where parameter I of F is at the function's entry, by the x86-64 calling convention:
 * integers and pointers in the next of six registers, then on the stack above the
 * return address; a struct or union of up to 16 bytes in one or two registers (or the
 * stack when they are used up), a larger one on the stack.  False (with *WHY) for what
 * cannot be read as one value.
 */
static bool btf_parameter_access(struct ctype **types, int i, struct target_access *a,
				 const char **why)
{
	int next_register = 0, stack_slot = 0;

	for (int k = 0; k <= i; k++) {
		struct ctype *r = ctype_resolve(types[k]);
		uint64_t size = r ? r->size : 8;
		int words = (int)((size + 7) / 8);
		bool aggregate = r && (r->kind == CT_STRUCT || r->kind == CT_UNION ||
				       r->kind == CT_ARRAY);

		if (r && r->kind == CT_BASE && r->is_float) {
			*why = "a floating-point parameter";
			return false;
		}
		if (!aggregate || words <= 2) {
			if (next_register + words <= 6) {
				if (k == i && aggregate) {
					*why = "a struct passed by value in registers";
					return false;
				}
				if (k == i) {
					a->start = xasprintf("stp_dwarf_register(c, %d)",
							     argument_registers[next_register]);
					a->start_is_value = true;
					a->regno = argument_registers[next_register];
				}
				next_register += words;
				continue;
			}
		}
		if (k == i) {	/* above the return address: rsp + 8 */
			a->start = xasprintf("(stp_dwarf_register(c, 7) + %d)", 8 + 8 * stack_slot);
			a->start_is_value = false;
			a->regno = -1;
		}
		stack_slot += words;
	}
	return true;
}

/* $return of a BTF function: the return register, of its return type. */
static bool btf_return_value(struct elaborator *el, struct dwarf_probe *p, struct node *n,
			     struct target_access *a, bool quiet)
{
	return return_register_access(el, p, n, a, btf_function_return(p->btf, p->btf_function),
				      quiet);
}

enum target_resolution resolve_from_btf(struct elaborator *el, struct derived_probe *dp,
					struct node *n, bool quiet)
{
	struct dwarf_probe *p = dp->data;
	const char *name = n->string + 1, *why = NULL, **names;
	struct ctype **types;
	struct target_access *a = xcalloc(1, sizeof(*a));
	int count = btf_function_params(p->btf, p->btf_function, &names, &types, NULL), i;
	enum target_resolution result = TARGET_UNRESOLVED;
	struct strbuf alternatives = { 0 };

	if (p->btf_function->ambiguous) {
		if (!quiet)
			semantic_error(el, n->tok, "cannot read $%s: the kernel's BTF has several "
				       "functions %s with different parameters (static functions in "
				       "several files), and which one the probe reaches needs the "
				       "DWARF", name, p->btf_function->name);
		goto out;
	}

	if (strcmp(name, "return") == 0 && p->is_return) {
		if (btf_return_value(el, p, n, a, quiet)) {
			target_resolved(n, a);
			result = TARGET_RESOLVED;
		}
		goto out;
	}
	if (strcmp(name, "$vars") == 0 || strcmp(name, "$parms") == 0 ||
	    strcmp(name, "$locals") == 0 || strcmp(name, "$return") == 0) {
		struct pretty_list *list = target_pretty_list(n->tok);
		struct node *call, *next = n->next;

		if (strcmp(name, "$return") == 0) {
			struct node plain = *n;

			plain.pretty = 0;
			plain.components = NULL;
			if (p->is_return && btf_return_value(el, p, &plain, a, true))
				target_pretty_variable(list, "return", a, a->type, n->pretty);
		} else if (strcmp(name, "$locals") != 0) {	/* BTF has no locals */
			for (i = 0; i < count; i++) {
				struct target_access *v = xcalloc(1, sizeof(*v));

				v->type = types[i];
				if (!btf_parameter_access(types, i, v, &why)) {
					free(v);
					v = NULL;
				}
				target_pretty_variable(list, names[i], v, types[i], n->pretty);
			}
		}
		call = target_pretty_list_call(list);
		call->next = next;
		*n = *call;
		result = p->is_return && strcmp(name, "$return") != 0 ? TARGET_AT_ENTRY :
									  TARGET_RESOLVED;
		goto out;
	}
	for (i = 0; i < count && strcmp(names[i], name) != 0; i++)
		sb_printf(&alternatives, "%s$%s", i ? ", " : "", names[i]);
	if (i == count) {
		if (!quiet)
			semantic_error(el, n->tok, "unable to find local '%s'," MAN_PAGE("error::dwarf")
				       " in %s function %s, from its BTF (alternatives: %s)", name,
				       p->btf->name, p->btf_function->name,
				       alternatives.data ? alternatives.data : "");
		goto out;
	}
	if (!btf_parameter_access(types, i, a, &why)) {
		if (!quiet)
			semantic_error(el, n->tok, "$%s is %s: not readable from its BTF alone",
				       name, why);
		goto out;
	}
	a->type = types[i];
	if (target_components(el, n, a, types[i], quiet)) {
		target_resolved(n, a);
		/* a return probe reads its parameters at the entry */
		result = p->is_return ? TARGET_AT_ENTRY : TARGET_RESOLVED;
	}
out:
	sb_free(&alternatives);
	free(names);
	free(types);
	return result;
}
