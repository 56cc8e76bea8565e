/*
 * resolve.c - pass 2: every name to what it means.
 *
 * A variable is a parameter or local of its function or handler, or a global of the
 * program: declared in the script or in a tapset file already loaded (a private one only
 * in its own file), or failing that in a tapset file the index names (which is then
 * loaded).  Otherwise it is a new local.  Arrays and statistics must be global.  A call
 * names the functions of that name and number of arguments; several of them are one
 * overloaded function, tried by priority.  Unresolved names load the tapset files that
 * define them (tapset.c), whose probes then join the program (derive.c), until nothing
 * more resolves.  @defined() is decided here, and an if or ?: on it keeps only the
 * branch that can run.  An autocast (p->member) resolves as soon as its value's C type
 * is known (autocast.c), else in rounds as the types spread.
 */
#include "elaborate.h"
#include "families/family.h"

#include <string.h>

/* What names in one probe handler or function body resolve against. */
struct scope {
	struct symbol **locals;		/* where new locals go */
	struct function *function;	/* NULL in a probe handler */
	struct probe_body *handler;	/* NULL in a function */
	struct stapfile *file;		/* private names of this file are visible */
	int in_entry;			/* within @entry(...) */
};

static void resolve(struct elaborator *el, struct scope *sc, struct node *n);

/*
 * A name that does not resolve ends the resolution of its statement, as stap's error
 * (an exception caught by the enclosing block) does: a[1] + b[1] says a only, a foreach
 * over an unknown array is not looked into, the block's next statement is.
 */
static void abandon_statement(struct elaborator *el)
{
	el->statement_abandoned = true;
}

static void add_entry(struct elaborator *el, struct scope *sc, struct node *n);
static enum autocast_result resolve_autocast(struct elaborator *el, struct probe_body *handler,
					     struct function *function, struct node *n,
					     bool quiet);

/* ---- variables ---- */

static struct symbol *find_symbol(struct symbol *list, const char *name)
{
	for (; list; list = list->next)
		if (strcmp(list->name, name) == 0)
			return list;
	return NULL;
}

static void use_global(struct elaborator *el, struct symbol *g)
{
	if (g->used)
		return;
	g->used = true;
	if (g->arity == 0 && !g->array_size && !g->wrap)
		g->arity = -1;
	if (g->array_size || g->wrap)
		g->arity = g->arity > 0 ? g->arity : -1;
	*el->global_tail = g;
	el->global_tail = &g->next_used;
	el->prog->nglobals++;
}

/* A global visible from FILE: the program's files, then the tapset index. */
static struct symbol *find_global(struct elaborator *el, const char *name, struct stapfile *from)
{
	struct stapfile *file;
	struct symbol *g;

	for (int i = 0; i < el->nglobal_files; i++) {
		file = el->global_files[i];
		if ((g = find_symbol(file->globals, name)) && (!g->private_ || file == from))
			return g;
	}
	file = tapset_load(el, TAPSET_GLOBAL, name);
	if (!file)
		return NULL;
	g = find_symbol(file->globals, name);
	return g && (!g->private_ || file == from) ? g : NULL;
}

static struct symbol *new_local(struct scope *sc, struct node *n)
{
	struct symbol *sym = xcalloc(1, sizeof(*sym));
	struct symbol **tail;

	sym->name = n->string;
	sym->kind = SYM_LOCAL;
	sym->tok = n->tok;
	for (tail = sc->locals; *tail; tail = &(*tail)->next)
		;
	*tail = sym;
	return sym;
}

static struct symbol *resolve_variable(struct elaborator *el, struct scope *sc, struct node *n)
{
	struct symbol *sym = NULL;

	if (sc->function)
		sym = find_symbol(sc->function->params, n->string);
	if (!sym)
		sym = find_symbol(*sc->locals, n->string);
	if (!sym && (sym = find_global(el, n->string, sc->file)))
		use_global(el, sym);
	return sym ? sym : new_local(sc, n);
}

/* A variable that a foreach or catch assigns. */
static void resolve_assigned(struct elaborator *el, struct scope *sc, struct node *n)
{
	n->sym = resolve_variable(el, sc, n);
	n->sym->written = true;
	resolve_global_arity(el, n->sym, 0, n->tok);
}

/*
 * NAME used as an array of ARITY keys names nothing.  The errors are alike (one shown, the
 * others counted) within a SITE: stap's are, per place in its resolver, so a foreach's
 * ("foreach") and the others' (NULL: a[k], k in a, delete a[k]) both show.
 */
static void unresolved_array(struct elaborator *el, struct node *name, int arity,
			     const char *site)
{
	char *message = xasprintf("unresolved arity-%d global array %s, missing global "
				  "declaration?", arity, name->string);

	semantic_error_keyed(el, name->tok, site ? site : "unresolved array", message);
	free(message);
	abandon_statement(el);
}

/*
 * An array or an element's array: a global, or a local already seen (whose arity then
 * conflicts, which types.c reports).  Parameters are scalars.
 */
static struct symbol *resolve_global_array_at(struct elaborator *el, struct scope *sc,
					      struct node *name, int arity, const char *site)
{
	struct symbol *sym = find_symbol(*sc->locals, name->string);

	if (!sym && (sym = find_global(el, name->string, sc->file)))
		use_global(el, sym);
	if (!sym) {
		unresolved_array(el, name, arity, site);
		return NULL;
	}
	name->sym = sym;
	resolve_global_arity(el, sym, arity, name->tok);
	return sym;
}

static struct symbol *resolve_global_array(struct elaborator *el, struct scope *sc,
					   struct node *name, int arity)
{
	return resolve_global_array_at(el, sc, name, arity, NULL);
}

/* ---- functions ---- */

/* Functions named NAME visible from FILE (the index loads the files that define it). */
static int find_functions(struct elaborator *el, const char *name, struct stapfile *from,
			  struct function ***out)
{
	int n = 0;

	tapset_load_all(el, TAPSET_FUNCTION, name);
	*out = NULL;
	for (int i = 0; i < el->nfunction_files; i++) {
		struct stapfile *file = el->function_files[i];

		for (struct function *f = file->functions; f; f = f->next)
			if (strcmp(f->name, name) == 0 && (!f->private_ || file == from)) {
				*out = xrealloc(*out, (n + 1) * sizeof(**out));
				(*out)[n++] = f;
			}
	}
	return n;
}

/* The script's functions come before the library's; an explicit priority decides. */
static int64_t priority_of(struct elaborator *el, struct function *f)
{
	if (f->has_priority)
		return f->priority;
	return f->file == el->prog->files ? 0 : 1;
}

static void use_function(struct elaborator *el, struct function *f);

/*
 * Orders the functions of one name and arity by priority, linked by next_overload.  All
 * of them are used, typed and optimized, as in stap, even those after one that cannot
 * pass a call on ("next"), which never run: the optimizer drops those after the types
 * are known (drop_unreachable_overloads); with -u they stay.
 */
static struct function *overload_group(struct elaborator *el, struct function **candidates,
				       int n)
{
	if (!candidates[0]->grouped) {
		/* a stable insertion sort: declaration order among equal priorities */
		for (int i = 1; i < n; i++)
			for (int j = i; j > 0 && priority_of(el, candidates[j - 1]) >
						   priority_of(el, candidates[j]); j--) {
				struct function *t = candidates[j];

				candidates[j] = candidates[j - 1];
				candidates[j - 1] = t;
			}
		for (int i = 0; i < n; i++) {
			candidates[i]->grouped = true;
			candidates[i]->next_overload = i + 1 < n ? candidates[i + 1] : NULL;
		}
	}
	for (struct function *f = candidates[0]; f; f = f->next_overload)
		use_function(el, f);
	return candidates[0];
}

static void report_unresolved_function(struct elaborator *el, struct node *call)
{
	struct strlist names = { 0 };
	const char **library;
	int count = tapset_names(el->tapsets, TAPSET_FUNCTION, &library);
	char *similar;

	for (struct stapfile *file = el->prog->files; file; file = file->next)
		for (struct function *f = file->functions; f; f = f->next)
			strlist_add(&names, f->name);
	/* the library's internal helpers ("_dfd_str") are not suggested, as in stap */
	for (int i = 0; i < count; i++)
		if (library[i][0] != '_' || call->string[0] == '_')
			strlist_add(&names, library[i]);
	if (names.count)
		qsort(names.items, names.count, sizeof(*names.items), compare_strings_by_length);
	similar = similar_names(call->string, (const char *const *)names.items, names.count);
	semantic_error(el, call->tok, "unresolved function %s%s", call->string, similar);
	abandon_statement(el);
	free(similar);
	free(library);
	strlist_free(&names);
}

/*
 * An embedded-C function whose code has the guru pragma (a comment of the one word
 * "guru") is too unsafe for a script without -g; the tapsets are trusted to call it
 * safely, as stap(1) says of the pragma.  A tapset function whose whole body returns
 * such a function's value (a wrapper that adds an argument, as task_ns_pid() adds
 * stapio's pid) is guru-only too.
 */
static bool has_guru_pragma(const struct function *f)
{
	return f->embedded && strstr(f->embedded->text, "/* guru */");
}

static bool guru_only(struct elaborator *el, struct function *f)
{
	struct node *st, *call;
	struct function **callees;
	bool guru = false;
	int n;

	if (f->embedded)
		return has_guru_pragma(f);
	if (!f->file || !f->file->source || !f->file->source->is_tapset || !f->body ||
	    !(st = f->body->body) || st->next || st->kind != ND_RETURN || !(call = st->lhs) ||
	    call->kind != ND_CALL)
		return false;
	n = find_functions(el, call->string, f->file, &callees);
	for (int i = 0; i < n && !guru; i++)
		guru = has_guru_pragma(callees[i]);
	free(callees);
	return guru;
}

static void refuse_guru_only_call(struct elaborator *el, struct scope *sc, struct node *n)
{
	if (el->session->guru || (sc->file && sc->file->source && sc->file->source->is_tapset))
		return;
	for (struct function *f = n->func; f; f = f->next_overload)
		if (guru_only(el, f)) {
			semantic_error(el, n->tok, "function may not be used unless -g is specified");
			return;
		}
}

static void resolve_call(struct elaborator *el, struct scope *sc, struct node *n)
{
	struct function **all, **fitting;
	int count, nfitting = 0;

	for (struct node *a = n->args; a; a = a->next)
		resolve(el, sc, a);
	count = find_functions(el, n->string, sc->file, &all);
	if (count == 0) {
		report_unresolved_function(el, n);
		return;
	}
	fitting = xcalloc(count, sizeof(*fitting));
	for (int i = 0; i < count; i++)
		if (all[i]->nparams == n->nargs)
			fitting[nfitting++] = all[i];
	if (nfitting == 0)
		semantic_error_related(el, n->tok, all[0]->tok,
				       "arity mismatch found (function '%s' takes %d args)",
				       n->string, all[0]->nparams);
	else {
		n->func = overload_group(el, fitting, nfitting);
		refuse_guru_only_call(el, sc, n);
	}
	free(fitting);
	free(all);
}

/* ---- @defined and the branches it decides ---- */

static bool target_available(struct scope *sc, struct node *n)
{
	/* procfs handlers have $value */
	return n->kind == ND_TARGET && n->string && strcmp(n->string, "$value") == 0 &&
	       !n->components && sc->handler && (sc->handler->procfs_read || sc->handler->procfs_write);
}

/*
 * A target variable, in the context of the probe its handler runs for (the family
 * resolves it: DWARF variables, later tracepoint arguments); false after saying why
 * (not when QUIET, for @defined).
 */
static bool resolve_target_node(struct elaborator *el, struct scope *sc, struct node *n,
				bool quiet)
{
	struct derived_probe *dp = sc->handler ? sc->handler->context : NULL;
	enum target_resolution r;
	struct node written;

	for (struct target_component *c = n->components; c; c = c->next)
		resolve(el, sc, c->index);
	if (target_available(sc, n) || n->access)
		return true;	/* procfs's $value; or made already ($var$'s members) */
	written = *n;	/* what the warning below shows, even of a $$parms made an sprintf() */
	/* --skip-badvars: one that does not resolve is 0 (asked quietly, then warned of) */
	r = dp && dp->family->resolve_target ?
	    dp->family->resolve_target(el, dp, n, quiet || el->session->skip_badvars) :
	    TARGET_UNRESOLVED;
	if (r == TARGET_UNRESOLVED && el->session->skip_badvars && !quiet) {
		semantic_warning(el, n->tok, "Bad $context variable being substituted with "
				 "literal 0");
		*n = (struct node){ .kind = ND_NUMBER, .tok = n->tok, .next = n->next };
		return true;
	}
	if (!dp || !dp->family->resolve_target)
		return false;	/* types.c says so, if the optimizer keeps it (as stap) */
	if (r != TARGET_UNRESOLVED && n->kind != ND_TARGET)
		resolve(el, sc, n);	/* rewritten: $var$ and $$vars are sprintf()s */
	if (r == TARGET_AT_ENTRY && !sc->in_entry && !quiet) {
		/* a .return probe's parameters are their values at the entry: @entry($x) */
		struct node *inner = xmalloc(sizeof(*inner)), *next = n->next;
		char *text = expression_text(&written);

		semantic_warning(el, n->tok, "confusing usage, value is captured as @entry(%s) "
				 "in .return probe" MAN_PAGE("stapprobes") " RETURN PROBES", text);
		free(text);
		*inner = *n;
		inner->next = NULL;
		*n = (struct node){ .kind = ND_ENTRY, .tok = n->tok, .lhs = inner, .next = next };
		add_entry(el, sc, n);
	}
	return r != TARGET_UNRESOLVED;
}

/* @cast(p, "type") and @var("name[@file]"): a DWARF probe's @var("x") is its $x. */
static bool resolve_cast_or_var(struct elaborator *el, struct scope *sc, struct node *n,
				bool quiet)
{
	struct derived_probe *dp = sc->handler ? sc->handler->context : NULL;

	for (struct target_component *c = n->components; c; c = c->next)
		resolve(el, sc, c->index);
	if (n->access)
		return true;
	if (n->kind == ND_CAST) {
		resolve(el, sc, n->lhs);
		return resolve_cast(el, dp, n, quiet);
	}
	if (!strchr(n->string, '@') && !n->module && dp && dp->family->resolve_target) {
		/* a variable of the probe's scope first, as $name; else a global */
		struct node as_target = *n;

		as_target.kind = ND_TARGET;
		as_target.string = xasprintf("$%s", n->string);
		if (resolve_target_node(el, sc, &as_target, true)) {
			resolve_target_node(el, sc, &as_target, quiet);	/* as its kind wants */
			*n = as_target;
			return true;
		}
	}
	return resolve_at_var(el, dp, n, quiet);
}

/* @entry(E): E is evaluated at the function's entry and kept for the return probe. */
static void add_entry(struct elaborator *el, struct scope *sc, struct node *n)
{
	struct probe_body *h = sc->handler;

	h->entries = xrealloc(h->entries, (h->nentries + 1) * sizeof(*h->entries));
	n->number = h->nentries;
	h->entries[h->nentries++] = n;
	(void)el;
}

static void resolve_entry(struct elaborator *el, struct scope *sc, struct node *n)
{
	struct derived_probe *dp = sc->handler ? sc->handler->context : NULL;

	if (!dp || !dp->saves_entry) {
		semantic_error(el, n->tok, "@entry is only valid in .return probes");
		return;
	}
	if (sc->in_entry) {
		resolve(el, sc, n->lhs);	/* @entry(@entry(x)) is @entry(x) */
		*n = *n->lhs;
		return;
	}
	sc->in_entry++;
	resolve(el, sc, n->lhs);
	sc->in_entry--;
	add_entry(el, sc, n);
}

/* @defined(...) N is decided: the number DEFINED. */
static void set_defined(struct elaborator *el, struct node *n, bool defined)
{
	*n = (struct node){ .kind = ND_NUMBER, .tok = n->tok, .number = defined, .next = n->next };
	el->defined_decided++;
}

/*
 * The variables named in code @defined decides away (its operand, the branch that
 * cannot run): stap counts them as used, so the optimizer drops their assignments
 * without a warning.
 */
static bool mark_mentioned(struct node *n, void *arg)
{
	struct scope *sc = arg;
	struct symbol *sym = n->sym;

	if (n->kind != ND_VAR)
		return true;
	if (!sym && sc->function)
		sym = find_symbol(sc->function->params, n->string);
	if (!sym)
		sym = find_symbol(*sc->locals, n->string);
	if (sym)
		sym->mentioned = true;
	return true;
}

/* @defined(x): 1 when x can be resolved here, else 0. */
static void decide_defined(struct elaborator *el, struct scope *sc, struct node *n)
{
	struct node *e = n->lhs;
	bool defined;

	walk_nodes(e, mark_mentioned, sc);

	switch (e->kind) {
	case ND_TARGET:
		defined = resolve_target_node(el, sc, e, true);
		break;
	case ND_CAST:
	case ND_AT_VAR:
		defined = resolve_cast_or_var(el, sc, e, true);
		break;
	case ND_AUTOCAST:
		resolve(el, sc, e->lhs);
		for (struct target_component *c = e->components; c; c = c->next)
			resolve(el, sc, c->index);
		switch (resolve_autocast(el, sc->handler, sc->function, e, true)) {
		case AUTOCAST_UNKNOWN:
			return;	/* decided once the types have spread (resolve_autocasts) */
		case AUTOCAST_RESOLVED:
			defined = true;
			break;
		default:
			defined = false;
		}
		break;
	case ND_ENTRY:		/* @entry(x) is there when x is, at the function's entry */
		n->lhs = e->lhs;
		decide_defined(el, sc, n);
		return;
	case ND_PERF:
		defined = perf_counter_readable(el, e->string,
						sc->handler ? sc->handler->context : NULL);
		break;
	case ND_NUMBER:
	case ND_STRING:
		defined = true;
		break;
	default:	/* a script variable, a call, an operator: not a context variable
			 * (stap 4.8 says 0 for them, even for `$count + 1`) */
		defined = false;
	}
	set_defined(el, n, defined);
}

/* The locals a branch whose resolution waits assigns, in their order (as stap lists them:
 * it resolves names before it decides @defined). */
struct waiting_branch {
	struct elaborator *el;
	struct scope *sc;
};

static bool declare_assigned_locals(struct node *n, void *arg)
{
	struct waiting_branch *wb = arg;
	struct scope *sc = wb->sc;
	struct node *v = n->lhs;

	if (n->kind == ND_ASSIGN && v->kind == ND_VAR && !find_symbol(*sc->locals, v->string) &&
	    !(sc->function && find_symbol(sc->function->params, v->string)) &&
	    !find_global(wb->el, v->string, sc->file))
		new_local(sc, v);
	return true;
}

/* @defined() of an autocast, which waits for the types to spread (resolve_autocasts()) */
static bool is_pending_defined(struct node *n)
{
	return n->kind == ND_DEFINED && n->lhs->kind == ND_AUTOCAST;
}

static bool has_pending_defined(struct node *n, void *arg)
{
	*(bool *)arg |= is_pending_defined(n);
	return true;
}

/* Replaces N (an if or ?:) by its only branch that can run, or by nothing. */
static void keep_branch(struct node *n, struct node *branch)
{
	struct node *next = n->next;

	if (branch)
		*n = *branch;
	else
		*n = (struct node){ .kind = ND_NULL_STMT, .tok = n->tok };
	n->next = next;
}

/* ---- embedded C's pragmas ---- */

struct pragma_resolution {
	struct elaborator *el;
	struct stapfile *file;
	struct token *tok;
};

static void resolve_pragma_global(const char *name, size_t len, bool write, void *arg)
{
	struct pragma_resolution *pr = arg;
	char *copy = xstrndup(name, len);
	struct symbol *g = find_global(pr->el, copy, pr->file);

	if (!g) {
		semantic_error(pr->el, pr->tok, "unresolved pragma:%s global %s",
			       write ? "write" : "read", copy);
	} else {
		use_global(pr->el, g);
		if (write)
			g->written = true;
		else
			g->read = true;
	}
	free(copy);
}

/* The globals embedded C reads or writes through its pragmas join the program. */
static void resolve_pragma_globals(struct elaborator *el, struct stapfile *file,
				   const char *code, struct token *tok)
{
	struct pragma_resolution pr = { el, file, tok };

	embedded_pragma_globals(code, resolve_pragma_global, &pr);
}

/*
 * i in @hist_log(x): whether bucket i has a count, as stap 4.8 runs it: the bucket's
 * count (@hist_log(x)[i], with its errors: an index out of range, an empty statistic)
 * compared with 0.
 */
static void in_histogram(struct elaborator *el, struct scope *sc, struct node *n)
{
	struct node *bucket = xcalloc(1, sizeof(*bucket)), *zero = xcalloc(1, sizeof(*zero));

	if (n->nargs != 1) {
		semantic_error(el, n->tok, "a histogram bucket takes one index");
		return;
	}
	bucket->kind = ND_INDEX;
	bucket->tok = n->tok;
	bucket->lhs = n->lhs;
	bucket->args = n->args;
	bucket->nargs = 1;
	zero->kind = ND_NUMBER;
	zero->tok = n->tok;
	n->kind = ND_COMPARE;
	n->op = "!=";
	n->lhs = bucket;
	n->rhs = zero;
	n->args = NULL;
	n->nargs = 0;
	resolve(el, sc, n);
}

/* ---- walking ---- */

static void resolve_list(struct elaborator *el, struct scope *sc, struct node *list)
{
	for (; list; list = list->next)
		resolve(el, sc, list);
}

/* An lvalue or rvalue that names an array: foreach (SITE "foreach"), in, delete a[..] */
static void resolve_array_name(struct elaborator *el, struct scope *sc, struct node *name,
			       int arity, const char *site)
{
	if (name->kind == ND_VAR)
		resolve_global_array_at(el, sc, name, arity, site);
	else
		resolve(el, sc, name);	/* @hist_log(...) in foreach */
}

static bool is_lvalue(struct node *n)
{
	return n->kind == ND_VAR || n->kind == ND_INDEX || n->kind == ND_TARGET ||
	       n->kind == ND_CAST || n->kind == ND_AT_VAR || n->kind == ND_AUTOCAST;
}

/* A value with no place to write it: a tracepoint's argument (as stap says it), a value
 * the DWARF computes (DW_OP_stack_value, a constant). */
static bool in_tracepoint(struct scope *sc)
{
	struct derived_probe *dp = sc->handler ? sc->handler->context : NULL;

	return dp && strcmp(dp->family->name, "trace") == 0;
}

static void refuse_value_write(struct elaborator *el, struct scope *sc, struct node *n,
			       const char *text)
{
	if (in_tracepoint(sc))
		semantic_error(el, n->tok, "write to tracepoint variable '%s' not permitted",
			       text ? text : "?");
	else
		semantic_error(el, n->tok, "cannot write to target variable '%s': its value is "
			       "computed here, not kept in a register or memory", text ? text : "?");
}

/* What an assignment or increment writes: not a read, unless it also reads (x += 1).
 * (Globals' reads are counted again after the optimizer: optimize.c's note_reads.) */
static void resolve_lvalue(struct elaborator *el, struct scope *sc, struct node *n, bool reads)
{
	if (n->kind == ND_VAR) {
		n->sym = resolve_variable(el, sc, n);
		n->sym->read |= reads;
		resolve_global_arity(el, n->sym, 0, n->tok);
	} else if (n->kind == ND_INDEX && n->lhs->kind == ND_VAR) {
		resolve_list(el, sc, n->args);
		if (resolve_global_array(el, sc, n->lhs, n->nargs))
			n->lhs->sym->read |= reads;
	} else if (n->kind == ND_TARGET && !target_available(sc, n) && !el->session->guru) {
		if (in_tracepoint(sc)) {
			char *text = expression_text(n);

			semantic_error(el, n->tok, "write to tracepoint variable '%s' not "
				       "permitted; need stap -g", text);
			free(text);
		} else if (sc->handler && sc->handler->context &&
			   sc->handler->context->family->target_write_refusal) {
			semantic_error(el, n->tok, "%s",
				       sc->handler->context->family->target_write_refusal);
		} else {
			semantic_error(el, n->tok, "write to target variable not permitted; "
				       "need stap -g");
		}
	} else if ((n->kind == ND_CAST || n->kind == ND_AT_VAR || n->kind == ND_AUTOCAST) &&
		   !el->session->guru && !(sc->file && sc->file->source &&
					   sc->file->source->is_tapset)) {
		/* kernel memory at an address the script chose: stap's words for each */
		resolve(el, sc, n);
		semantic_error(el, n->tok,
			       "%s not permitted; need stap -g",
			       n->kind == ND_CAST ? "write to @cast context variable" :
			       n->kind == ND_AT_VAR ? "write to @var variable" : "write");
	} else {
		char *text = n->kind == ND_TARGET ? expression_text(n) : NULL;

		if (n->kind == ND_TARGET)	/* not resolve()'s: that is a read */
			resolve_target_node(el, sc, n, false);
		else
			resolve(el, sc, n);
		if (target_available(sc, n) && sc->handler->procfs_write)
			semantic_error(el, n->tok, "procfs $value variable is read-only in a procfs "
						   "write probe");
		else if (n->access && n->access->start_is_value && n->access->regno < 0)
			refuse_value_write(el, sc, n, text);
		free(text);
	}
}

static void mark_written(struct node *n)
{
	if (n->kind == ND_INDEX)
		n = n->lhs;
	if (n->kind == ND_VAR && n->sym)
		n->sym->written = true;
}

/* @perf("NAME"): the value of the counter NAME (a perf ... .counter("NAME") probe) of the
 * task the handler runs in, as the tapset's __perf_read("NAME") reads it. */
static void resolve_perf(struct elaborator *el, struct scope *sc, struct node *n)
{
	struct derived_probe *context = sc->handler ? sc->handler->context : NULL;
	struct node *name;

	if (!perf_counter_defined(el, n->string)) {
		semantic_error(el, n->tok, "no perf counter named '%s' (a probe "
			       "perf.type(T).config(C)[.process(\"PATH\")].counter(\"%s\") "
			       "defines it)", n->string, n->string);
		return;
	}
	if (!perf_counter_readable(el, n->string, context)) {
		/* stap's words: the counter counts another program than the probe's */
		semantic_error(el, n->tok, "perf counter '%s' not defined", n->string);
		return;
	}
	name = xcalloc(1, sizeof(*name));
	name->kind = ND_STRING;
	name->tok = n->tok;
	name->string = name->raw = n->string;
	n->kind = ND_CALL;
	n->string = "__perf_read";
	n->args = name;
	n->nargs = 1;
	resolve_call(el, sc, n);
}

/* delete NAME: a global, or a local assigned before (not a parameter), as stap has it */
static void resolve_deleted(struct elaborator *el, struct scope *sc, struct node *name)
{
	struct symbol *sym = find_symbol(*sc->locals, name->string);

	if (sym && sym->kind == SYM_PARAM)
		sym = NULL;
	if (!sym && (sym = find_global(el, name->string, sc->file)))
		use_global(el, sym);
	if (!sym) {
		semantic_error(el, name->tok, "unresolved array in delete statement");
		abandon_statement(el);
		return;
	}
	name->sym = sym;
}

static void resolve(struct elaborator *el, struct scope *sc, struct node *n)
{
	if (!n || el->statement_abandoned)
		return;
	switch (n->kind) {
	case ND_VAR:
		n->sym = resolve_variable(el, sc, n);
		n->sym->read = true;
		resolve_global_arity(el, n->sym, 0, n->tok);
		return;
	case ND_INDEX:
		resolve_list(el, sc, n->args);
		if (n->lhs->kind == ND_VAR) {
			if (resolve_global_array(el, sc, n->lhs, n->nargs))
				n->lhs->sym->read = true;
		} else {
			resolve(el, sc, n->lhs);	/* a histogram's bucket */
		}
		return;
	case ND_CALL:
		resolve_call(el, sc, n);
		return;
	case ND_ASSIGN:
	case ND_ACCUMULATE:
		if (!is_lvalue(n->lhs)) {	/* stap says "assignment" for <<< too */
			semantic_error_related(el, n->tok, n->lhs->tok,
					       "Expecting lvalue for assignment");
			return;
		}
		resolve(el, sc, n->rhs);
		if (n->lhs->kind == ND_VAR && n->kind == ND_ACCUMULATE) {	/* a local: types.c says */
			n->lhs->sym = resolve_variable(el, sc, n->lhs);
			resolve_global_arity(el, n->lhs->sym, 0, n->lhs->tok);
		} else {	/* x = ... and a[k] <<< v write; x += ... reads x too */
			resolve_lvalue(el, sc, n->lhs,
				       n->kind == ND_ASSIGN && strcmp(n->op, "=") != 0);
		}
		mark_written(n->lhs);
		return;
	case ND_INCREMENT:
		if (!is_lvalue(n->lhs)) {
			semantic_error_related(el, n->tok, n->lhs->tok,
					       "Expecting lvalue for increment");
			return;
		}
		resolve_lvalue(el, sc, n->lhs, true);
		mark_written(n->lhs);
		return;
	case ND_IN:
		if (n->lhs->kind == ND_HIST) {
			in_histogram(el, sc, n);
			return;
		}
		resolve_list(el, sc, n->args);
		resolve_array_name(el, sc, n->lhs, n->nargs, NULL);
		return;
	case ND_STAT:
	case ND_HIST:
		if (n->lhs->kind == ND_VAR)
			resolve(el, sc, n->lhs);
		else
			resolve(el, sc, n->lhs);
		resolve_list(el, sc, n->args);
		return;
	case ND_DEFINED:
		decide_defined(el, sc, n);
		return;
	case ND_TERNARY:
	case ND_IF: {
		/* on @defined, only the branch that can run is resolved (and kept) */
		int decided_before = el->defined_decided;
		int64_t value;
		bool pending = false;

		resolve(el, sc, n->cond);
		if (el->defined_decided != decided_before && constant_value(n->cond, &value)) {
			walk_nodes(value ? n->els : n->then, mark_mentioned, sc);
			keep_branch(n, value ? n->then : n->els);
			resolve(el, sc, n);
			return;
		}
		/* on an autocast's @defined, decided once the types spread: the branch that
		 * cannot run may name what does not resolve (stap drops it quietly) */
		walk_nodes(n->cond, has_pending_defined, &pending);
		if (pending && !sc->in_entry) {
			struct waiting_branch wb = { el, sc };

			n->branches_pending = true;
			walk_nodes(n->then, declare_assigned_locals, &wb);
			walk_nodes(n->els, declare_assigned_locals, &wb);
			return;
		}
		resolve(el, sc, n->then);
		resolve(el, sc, n->els);
		return;
	}
	case ND_FOREACH: {
		struct foreach *fe = n->foreach;

		resolve_array_name(el, sc, fe->array, fe->nkeys, "foreach");
		if (fe->filter && fe->array->kind == ND_VAR) {	/* a slice names every key */
			int nfilter = 0;

			for (struct node *k = fe->filter; k; k = k->next)
				nfilter++;
			if (nfilter != fe->nkeys)
				unresolved_array(el, fe->array, nfilter, "foreach");
		}
		resolve_list(el, sc, fe->filter);
		resolve(el, sc, fe->limit);
		for (struct node *k = fe->keys; k; k = k->next)
			resolve_assigned(el, sc, k);
		if (fe->value)
			resolve_assigned(el, sc, fe->value);
		resolve(el, sc, n->then);
		return;
	}
	case ND_DELETE:
		if (n->lhs->kind == ND_INDEX) {
			resolve_list(el, sc, n->lhs->args);
			resolve_array_name(el, sc, n->lhs->lhs, n->lhs->nargs, NULL);
		} else if (n->lhs->kind == ND_VAR) {
			resolve_deleted(el, sc, n->lhs);
		} else {
			semantic_error(el, n->lhs->tok, "invalid operand of delete expression");
		}
		mark_written(n->lhs);
		return;
	case ND_TRY:
		resolve(el, sc, n->then);
		if (n->catch_var)
			resolve_assigned(el, sc, n->catch_var);
		resolve(el, sc, n->els);
		return;
	case ND_TARGET:
		/* a read probe writes $value, what the reader gets; stap's words */
		if (target_available(sc, n) && sc->handler->procfs_read)
			semantic_error(el, n->tok, "procfs $value variable cannot be read in a "
				       "procfs read probe");
		resolve_target_node(el, sc, n, false);
		return;
	case ND_ENTRY:
		resolve_entry(el, sc, n);
		return;
	case ND_CAST:
	case ND_AT_VAR:
		if (resolve_cast_or_var(el, sc, n, false) && n->kind == ND_PRINT)
			resolve(el, sc, n);	/* @cast(...)$: an sprintf() */
		return;
	case ND_AUTOCAST:
		resolve(el, sc, n->lhs);
		for (struct target_component *c = n->components; c; c = c->next)
			resolve(el, sc, c->index);
		if (!n->access)	/* a type known already; else once they have spread */
			resolve_autocast(el, sc->handler, sc->function, n, false);
		return;
	case ND_PERF:
		resolve_perf(el, sc, n);
		return;
	case ND_EMBEDDED_EXPR:
		resolve_pragma_globals(el, sc->file, n->string, n->tok);
		return;
	case ND_PROBEWRITE:	/* an alias's prologue or epilogue had it replaced (derive.c) */
		semantic_error(el, n->tok, "unexpected @probewrite");
		return;
	case ND_FOR:	/* in stap's order: an error in the initialisation ends it */
		resolve(el, sc, n->init);
		resolve(el, sc, n->cond);
		resolve(el, sc, n->incr);
		resolve(el, sc, n->then);
		return;
	case ND_BLOCK:
		for (struct node *statement = n->body; statement; statement = statement->next) {
			resolve(el, sc, statement);
			el->statement_abandoned = false;
		}
		return;
	default:
		resolve(el, sc, n->lhs);
		resolve(el, sc, n->rhs);
		resolve(el, sc, n->cond);
		resolve(el, sc, n->then);
		resolve(el, sc, n->els);
		resolve(el, sc, n->init);
		resolve(el, sc, n->incr);
		resolve_list(el, sc, n->args);
		resolve_list(el, sc, n->body);
	}
}

/* ---- autocasts: p->member once p's type is known ---- */

/* N, made after its handler or function was resolved (a rewritten node), resolved now */
static void resolve_rewritten(struct elaborator *el, struct probe_body *handler,
			      struct function *function, struct node *n)
{
	struct scope sc = { .handler = handler, .function = function };

	sc.locals = handler ? &handler->locals : &function->locals;
	sc.file = handler ? handler->file : function->file;
	resolve(el, &sc, n);
}

/* autocast_resolve() (autocast.c) of N in HANDLER or FUNCTION, and the sprintf() that a
 * p->x$ became resolved there at once */
static enum autocast_result resolve_autocast(struct elaborator *el, struct probe_body *handler,
					     struct function *function, struct node *n,
					     bool quiet)
{
	enum autocast_result r = autocast_resolve(el, n, quiet);

	if (r == AUTOCAST_RESOLVED && n->kind != ND_AUTOCAST)
		resolve_rewritten(el, handler, function, n);
	return r;
}

enum autocast_mode {
	AUTOCAST_SPREAD,	/* spread the values' types */
	AUTOCAST_TRY,		/* resolve what has a type now */
	AUTOCAST_UNDEFINED,	/* @defined() of what still has none is 0 */
};

/* One walk over the program's handlers and used functions. */
struct autocast_walk {
	struct elaborator *el;
	struct probe_body *handler;	/* where the nodes are: a handler, */
	struct function *function;	/* or a function */
	enum autocast_mode mode;
	int progress;
};

static void decide_pending_defined(struct autocast_walk *w, struct node *n)
{
	enum autocast_result r = resolve_autocast(w->el, w->handler, w->function, n->lhs, true);

	if (r == AUTOCAST_UNKNOWN && w->mode == AUTOCAST_TRY)
		return;
	set_defined(w->el, n, r == AUTOCAST_RESOLVED);
	w->progress++;
}

static bool spread_visit(struct node *n, void *arg)
{
	struct autocast_walk *w = arg;

	if (n->branches_pending) {	/* not resolved yet */
		walk_nodes(n->cond, spread_visit, arg);
		return false;
	}
	w->progress += spread_value_type(n, w->function);
	return true;
}

static bool autocast_visit(struct node *n, void *arg)
{
	struct autocast_walk *w = arg;

	if (is_pending_defined(n)) {
		walk_nodes(n->lhs->lhs, autocast_visit, arg);
		decide_pending_defined(w, n);
		return false;
	}
	if ((n->kind == ND_IF || n->kind == ND_TERNARY) && n->cond) {
		int decided_before = w->el->defined_decided;
		int64_t value;

		walk_nodes(n->cond, autocast_visit, arg);
		if (w->el->defined_decided != decided_before && constant_value(n->cond, &value)) {
			bool pending = n->branches_pending;

			keep_branch(n, value ? n->then : n->els);
			if (pending && n->kind != ND_NULL_STMT)
				resolve_rewritten(w->el, w->handler, w->function, n);
			walk_nodes(n, autocast_visit, arg);
			return false;
		}
		if (n->branches_pending) {
			bool still = false;

			walk_nodes(n->cond, has_pending_defined, &still);
			if (still)
				return false;	/* not yet */
			n->branches_pending = false;	/* decided, but not alone: both */
			w->progress++;
			if (n->then)
				resolve_rewritten(w->el, w->handler, w->function, n->then);
			if (n->els)
				resolve_rewritten(w->el, w->handler, w->function, n->els);
		}
		walk_nodes(n->then, autocast_visit, arg);
		walk_nodes(n->els, autocast_visit, arg);
		return false;
	}
	if (n->kind != ND_AUTOCAST || n->access)
		return true;
	walk_nodes(n->lhs, autocast_visit, arg);	/* (p->q)->r: the inner one first */
	for (struct target_component *c = n->components; c; c = c->next)
		walk_nodes(c->index, autocast_visit, arg);
	switch (resolve_autocast(w->el, w->handler, w->function, n, false)) {
	case AUTOCAST_RESOLVED:
		w->progress++;
		break;
	case AUTOCAST_FAILED:	/* said why; not again */
		*n = (struct node){ .kind = ND_NUMBER, .tok = n->tok, .next = n->next };
		w->progress++;
		break;
	case AUTOCAST_UNKNOWN:	/* maybe later; else the type pass says so */
		break;
	}
	return false;
}

/* Walks every handler and used function in MODE; the progress it made. */
static int autocast_round(struct elaborator *el, enum autocast_mode mode)
{
	struct autocast_walk w = { .el = el, .mode = mode };
	bool (*visit)(struct node *, void *) = mode == AUTOCAST_SPREAD ? spread_visit :
					       autocast_visit;

	for (struct probe_body *h = el->prog->bodies; h; h = h->next) {
		w.handler = h;
		walk_nodes(h->body, visit, &w);
	}
	w.handler = NULL;
	for (struct function *f = el->prog->functions; f; f = f->next_used) {
		w.function = f;
		walk_nodes(f->body, visit, &w);
	}
	return w.progress;
}

static bool has_autocast(struct node *n, void *arg)
{
	if ((n->kind == ND_AUTOCAST && !n->access) || is_pending_defined(n))
		*(bool *)arg = true;
	return true;
}

/*
 * The autocasts whose value had no type when they were resolved: the types spread and
 * what then has one resolves, until nothing changes; then @defined() of what still has
 * none is 0, which may decide branches and so more.
 */
static void resolve_autocasts(struct elaborator *el)
{
	bool any = false;

	for (struct probe_body *h = el->prog->bodies; h && !any; h = h->next)
		walk_nodes(h->body, has_autocast, &any);
	for (struct function *f = el->prog->functions; f && !any; f = f->next_used)
		walk_nodes(f->body, has_autocast, &any);
	if (!any)
		return;
	for (;;) {
		int progress;

		do {	/* the types first, then what they resolve */
			progress = autocast_round(el, AUTOCAST_SPREAD);
			progress += autocast_round(el, AUTOCAST_TRY);
		} while (progress);
		if (!autocast_round(el, AUTOCAST_UNDEFINED))
			break;
	}
	/* what still has no type is reported by the type pass (types.c), after the
	 * optimizer: as in stap, an autocast in an elided statement is no error */
}

/* ---- the program ---- */

/* A function called: it joins the program; resolve_program resolves its body later. */
static void use_function(struct elaborator *el, struct function *f)
{
	if (f->used)
		return;
	f->used = true;
	*el->function_tail = f;
	el->function_tail = &f->next_used;
	el->prog->nfunctions++;
	for (struct symbol *p = f->params; p; p = p->next)
		p->written = true;
}

/* ---- probe conditions: reads of globals only ---- */

struct condition_check {
	struct elaborator *el;
	struct stapfile *file;
};

static bool check_condition_node(struct node *n, void *arg)
{
	struct condition_check *cc = arg;

	switch (n->kind) {
	case ND_CALL:
		semantic_error(cc->el, n->tok, "probe condition must not reference function");
		return false;
	case ND_ASSIGN:
	case ND_INCREMENT:
	case ND_ACCUMULATE:
	case ND_DELETE:
		semantic_error(cc->el, n->tok, "probe condition must not modify any variables");
		return false;
	case ND_VAR:
		if (!find_global(cc->el, n->string, cc->file))
			semantic_error(cc->el, n->tok,
				       "probe condition must not reference undeclared global");
		return false;
	default:
		return true;
	}
}

/* Each condition once (the probes of one point share theirs). */
static void resolve_conditions(struct elaborator *el)
{
	for (struct derived_probe *dp = el->prog->probes; dp; dp = dp->next) {
		struct condition_check cc = { el, dp->handler->file };
		struct symbol *none = NULL;
		struct scope sc = { .locals = &none, .file = dp->handler->file };
		int errors = el->errors;
		bool seen = false;

		for (struct derived_probe *e = el->prog->probes; e != dp && !seen; e = e->next)
			seen = e->condition == dp->condition;
		if (!dp->condition || seen)
			continue;
		walk_nodes(dp->condition, check_condition_node, &cc);
		if (el->errors == errors)
			resolve(el, &sc, dp->condition);
	}
}

/* The handlers, then the functions they call, then those these call...: stap's order,
 * which is the order of the globals in -p2's output. */
void resolve_program(struct elaborator *el)
{
	struct function **next = &el->prog->functions;
	struct probe_body **next_body = &el->prog->bodies;

	do {
		/* the handlers: the script's, then those of tapset files loaded meanwhile */
		for (struct probe_body *h; (h = *next_body); next_body = &h->next) {
			struct scope sc = { .locals = &h->locals, .handler = h, .file = h->file };

			resolve(el, &sc, h->body);
			el->statement_abandoned = false;
		}
		for (struct function *f; (f = *next); next = &f->next_used) {
			struct scope sc = { .locals = &f->locals, .function = f, .file = f->file };

			if (f->body)
				resolve(el, &sc, f->body);
			else if (f->embedded)
				resolve_pragma_globals(el, f->file, f->embedded->text, f->embedded);
			el->statement_abandoned = false;
		}
		resolve_autocasts(el);	/* may use more functions (printing $$) */
		derive_tapset_probes(el);
	} while (*next || *next_body);
	resolve_conditions(el);
	/* a global's initial value does not count as writing it: stap prints at the end a
	 * global the script (or embedded C's pragma:write) assigns, not one only initialized */
}

/* --dump-functions: every function of the program's files used, then resolved. */
void resolve_every_function(struct elaborator *el)
{
	for (struct stapfile *file = el->prog->files; file; file = file->next)
		for (struct function *f = file->functions; f; f = f->next)
			use_function(el, f);
	resolve_program(el);
}
