/*
 * elaborate.c - pass 2: what the script means.
 *
 *  1. bind each probe point to a probe family (probe_family.c), which validates it;
 *  2. resolve every name: locals, then the script's functions, then the tapset library,
 *     loading only the library files that define something still unresolved;
 *  3. infer the type of every variable, parameter and function result, and check them.
 */
#include "stap.h"

#include <stdlib.h>
#include <string.h>

/* What names in one probe or function body resolve against. */
struct scope {
	struct symbol **locals;		/* where new locals go */
	struct function *function;	/* NULL in a probe */
	struct stapfile *file;		/* private names of this file are visible */
};

struct elaborator {
	struct session *session;
	struct program *prog;
	struct tapset_index *tapsets;
	int errors;
	bool report;		/* the final inference walk reports what is still wrong */
	bool changed;		/* the current walk learned a type */
	struct function **function_tail;
};

const char *type_name(enum stap_type type)
{
	switch (type) {
	case TYPE_LONG: return "long";
	case TYPE_STRING: return "string";
	default: return "unknown";
	}
}

static void semantic_error(struct elaborator *el, struct token *tok, const char *fmt, ...)
	PRINTF_LIKE(3, 4);

static void semantic_error(struct elaborator *el, struct token *tok, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vat("semantic error", tok, fmt, ap);
	va_end(ap);
	el->errors++;
}

/* ---- 1. probe points ---- */

static void derive_probes(struct elaborator *el, struct probe *p)
{
	struct derived_probe **tail = &el->prog->probes;

	while (*tail)
		tail = &(*tail)->next;
	for (struct probe_point *pp = p->points; pp; pp = pp->next) {
		const struct probe_family *family = find_probe_family(pp);
		struct derived_probe *dp = NULL;
		bool built;

		if (pp->condition) {
			semantic_error(el, pp->condition->tok,
				       "probe point conditions are not implemented yet");
			continue;
		}
		if (!family) {
			if (!pp->optional) {
				char *similar = similar_probe_points(probe_point_first_name(pp));

				semantic_error(el, pp->components->tok, "probe point mismatch%s",
					       similar);
				free(similar);
			}
			continue;
		}
		/* an optional point that does not resolve is dropped without a word */
		diag_quiet += pp->optional;
		built = family->build(el->session, p, pp, &dp);
		diag_quiet -= pp->optional;
		if (!built) {
			el->errors += !pp->optional;
			continue;
		}
		for (; dp; dp = dp->next) {
			dp->index = el->prog->nprobes++;
			*tail = dp;
			tail = &dp->next;
		}
		*tail = NULL;
		if (pp->sufficient)
			break;		/* '!': this point suffices, skip the rest */
	}
}

/* ---- 2. names ---- */

static struct symbol *find_symbol(struct symbol *list, const char *name)
{
	for (; list; list = list->next)
		if (strcmp(list->name, name) == 0)
			return list;
	return NULL;
}

static struct symbol *resolve_variable(struct scope *sc, struct node *n)
{
	struct symbol *sym = NULL;
	struct symbol **tail;

	if (sc->function)
		sym = find_symbol(sc->function->params, n->string);
	if (!sym)
		sym = find_symbol(*sc->locals, n->string);
	if (sym)
		return sym;
	sym = xcalloc(1, sizeof(*sym));
	sym->name = n->string;
	sym->kind = SYM_LOCAL;
	sym->tok = n->tok;
	for (tail = sc->locals; *tail; tail = &(*tail)->next)
		;
	*tail = sym;
	return sym;
}

/* NAME in FILE, unless it is private to FILE and the caller is elsewhere. */
static struct function *find_function_in(struct stapfile *file, const char *name,
					 struct stapfile *caller)
{
	for (struct function *f = file->functions; f; f = f->next)
		if (strcmp(f->name, name) == 0 && (!f->private_ || file == caller))
			return f;
	return NULL;
}

static void resolve_body(struct elaborator *el, struct scope *sc, struct node *n);

/* Marks F used and resolves its body the first time. */
static void use_function(struct elaborator *el, struct function *f)
{
	struct scope sc = { .locals = &f->locals, .function = f, .file = f->file };

	if (f->used)
		return;
	f->used = true;
	*el->function_tail = f;
	el->function_tail = &f->next_used;
	el->prog->nfunctions++;
	if (f->body)
		resolve_body(el, &sc, f->body);
}

static struct function *lookup_function(struct elaborator *el, struct scope *sc,
					struct node *call)
{
	struct stapfile **tail;
	struct stapfile *file;
	struct function *f;

	for (file = el->prog->files; file; file = file->next)
		if ((f = find_function_in(file, call->string, sc->file)))
			return f;
	file = tapset_find(el->tapsets, TAPSET_FUNCTION, call->string, &el->errors);
	if (!file)
		return NULL;
	for (tail = &el->prog->files; *tail; tail = &(*tail)->next)
		if (*tail == file)
			return find_function_in(file, call->string, sc->file);
	*tail = file;
	for (struct embed *e = file->embeds; e; e = e->next)
		el->prog->nembeds++;
	return find_function_in(file, call->string, sc->file);
}

static void report_unresolved_function(struct elaborator *el, struct node *call)
{
	struct strlist names = { 0 };
	const char **library;
	int count = tapset_names(el->tapsets, TAPSET_FUNCTION, &library);
	char *similar;

	strlist_add(&names, "print");
	strlist_add(&names, "println");
	for (struct stapfile *file = el->prog->files; file; file = file->next)
		for (struct function *f = file->functions; f; f = f->next)
			strlist_add(&names, f->name);
	for (int i = 0; i < count; i++)
		strlist_add(&names, library[i]);
	similar = similar_names(call->string, (const char *const *)names.items, names.count);
	semantic_error(el, call->tok, "unresolved function %s%s", call->string, similar);
	free(similar);
	free(library);
	strlist_free(&names);
}

static void resolve_call(struct elaborator *el, struct scope *sc, struct node *n)
{
	for (struct node *a = n->args; a; a = a->next)
		resolve_body(el, sc, a);
	n->func = lookup_function(el, sc, n);
	if (!n->func) {
		report_unresolved_function(el, n);
		return;
	}
	if (n->nargs != n->func->nparams) {
		semantic_error(el, n->tok, "arity mismatch found (function '%s' takes %d args)",
			       n->func->name, n->func->nparams);
		return;
	}
	use_function(el, n->func);
}

/* What pass 1 accepts but passes 2-3 cannot do yet: refused by name, never guessed at. */
static const char *not_implemented(struct node *n)
{
	switch (n->kind) {
	case ND_INDEX: return "arrays are";
	case ND_ACCUMULATE: case ND_STAT: case ND_HIST: return "statistics are";
	case ND_REGEX: return "regular expression matching is";
	case ND_INCREMENT: return "'++' and '--' are";
	case ND_IN: case ND_WILDCARD: return "array membership is";
	case ND_TARGET: case ND_CAST: case ND_AT_VAR: case ND_AUTOCAST: case ND_DEFINED:
	case ND_ENTRY:
	case ND_PROBEWRITE: return "target variables and @-operators are";
	case ND_EMBEDDED_EXPR: return "embedded-C expressions are";
	case ND_PERF: return "@perf is";
	case ND_FOR: return "loops are";
	case ND_FOREACH: return "foreach is";
	case ND_BREAK: case ND_CONTINUE: return "break and continue are";
	case ND_DELETE: return "delete is";
	case ND_TRY: return "try/catch is";
	case ND_PRINT:
		return n->print == PRINT_PRINT || n->print == PRINT_PRINTLN ? NULL :
		       "printf, printd and the sprint family are";
	case ND_UNARY:
		return strcmp(n->op, "&") == 0 ? "'&' on an expression is" : NULL;
	default:
		return NULL;
	}
}

static void resolve_body(struct elaborator *el, struct scope *sc, struct node *n)
{
	const char *missing;

	if (!n)
		return;
	if ((missing = not_implemented(n))) {
		semantic_error(el, n->tok, "%s not implemented yet", missing);
		return;
	}
	switch (n->kind) {
	case ND_ASSIGN:
		if (n->lhs->kind != ND_VAR && !not_implemented(n->lhs)) {
			semantic_error(el, n->tok, "Expecting lvalue for assignment");
			return;
		}
		resolve_body(el, sc, n->lhs);
		resolve_body(el, sc, n->rhs);
		break;
	case ND_VAR:
		n->sym = resolve_variable(sc, n);
		break;
	case ND_CALL:
		resolve_call(el, sc, n);
		break;
	case ND_PRINT:
		for (struct node *a = n->args; a; a = a->next)
			resolve_body(el, sc, a);
		break;
	case ND_BLOCK:
		for (struct node *s = n->body; s; s = s->next)
			resolve_body(el, sc, s);
		break;
	case ND_NEXT:
		if (sc->function)
			semantic_error(el, n->tok, "'next' in a function is not implemented yet");
		break;
	default:
		resolve_body(el, sc, n->lhs);
		resolve_body(el, sc, n->rhs);
		resolve_body(el, sc, n->cond);
		resolve_body(el, sc, n->then);
		resolve_body(el, sc, n->els);
	}
}

/* ---- 3. types ---- */

/* Learns that *SLOT (a symbol's or function's type) is TYPE, first seen at TOK. */
static void learn_type(struct elaborator *el, enum stap_type *slot, struct token **slot_tok,
		       enum stap_type type, struct token *tok, struct token *named)
{
	if (type == TYPE_UNKNOWN)
		return;
	if (*slot == TYPE_UNKNOWN) {
		*slot = type;
		*slot_tok = tok;
		el->changed = true;
		return;
	}
	if (*slot != type && el->report) {
		semantic_error(el, named, "type mismatch (%s)", type_name(type));
		if (*slot_tok)
			semantic_error(el, *slot_tok, "type was first inferred here (%s)",
				       type_name(*slot));
	}
}

/*
 * infer() computes a node's type bottom-up, visiting each node once per walk; push_type()
 * then tells a node what type its context needs, which teaches variables, parameters and
 * function results their types.  Walks repeat until nothing new is learned.
 */
static void push_type(struct elaborator *el, struct node *n, enum stap_type type)
{
	if (type == TYPE_UNKNOWN)
		return;
	switch (n->kind) {
	case ND_VAR:
		learn_type(el, &n->sym->type, &n->sym->type_tok, type, n->tok, n->tok);
		return;
	case ND_CALL:
		if (n->func && !n->func->embedded) {
			learn_type(el, &n->func->return_type, &n->func->type_tok, type, n->tok,
				   n->tok);
			return;
		}
		break;
	case ND_TERNARY:
		push_type(el, n->then, type);
		push_type(el, n->els, type);
		return;
	case ND_ASSIGN:
		push_type(el, n->lhs, type);
		push_type(el, n->rhs, type);
		return;
	default:
		break;
	}
	if (!el->report)
		return;
	if (n->type == TYPE_UNKNOWN && n->kind == ND_CALL)
		semantic_error(el, n->tok, "function '%s' returns no value", n->string);
	else if (n->type != TYPE_UNKNOWN && n->type != type)
		semantic_error(el, n->tok, "type mismatch (%s vs. %s)", type_name(type),
			       type_name(n->type));
}

static enum stap_type infer(struct elaborator *el, struct scope *sc, struct node *n);

static enum stap_type infer_call(struct elaborator *el, struct scope *sc, struct node *n)
{
	struct symbol *param;
	struct node *a;

	if (n->kind == ND_PRINT) {
		for (a = n->args; a; a = a->next)
			if (infer(el, sc, a) == TYPE_UNKNOWN && el->report && a->kind != ND_VAR)
				semantic_error(el, a->tok, "unresolved type");
		return TYPE_UNKNOWN;
	}
	if (!n->func) {
		for (a = n->args; a; a = a->next)
			infer(el, sc, a);
		return TYPE_UNKNOWN;
	}
	for (a = n->args, param = n->func->params; a && param; a = a->next, param = param->next) {
		enum stap_type t = infer(el, sc, a);

		if (t != TYPE_UNKNOWN)
			learn_type(el, &param->type, &param->type_tok, t, a->tok, a->tok);
		else
			push_type(el, a, param->type);
	}
	return n->func->return_type;
}

static enum stap_type infer_assign(struct elaborator *el, struct scope *sc, struct node *n)
{
	enum stap_type rhs = infer(el, sc, n->rhs);
	enum stap_type lhs = infer(el, sc, n->lhs);
	enum stap_type want;

	if (strcmp(n->op, ".=") == 0)
		want = TYPE_STRING;
	else if (strcmp(n->op, "=") != 0)
		want = TYPE_LONG;
	else
		want = rhs != TYPE_UNKNOWN ? rhs : lhs;
	push_type(el, n->lhs, want);
	push_type(el, n->rhs, want);
	return want;
}

static enum stap_type infer(struct elaborator *el, struct scope *sc, struct node *n)
{
	enum stap_type t = TYPE_UNKNOWN, a, b;

	if (!n)
		return TYPE_UNKNOWN;
	switch (n->kind) {
	case ND_NUMBER:
		t = TYPE_LONG;
		break;
	case ND_STRING:
		t = TYPE_STRING;
		break;
	case ND_VAR:
		t = n->sym ? n->sym->type : TYPE_UNKNOWN;
		break;
	case ND_CALL:
	case ND_PRINT:
		t = infer_call(el, sc, n);
		break;
	case ND_ASSIGN:
		t = infer_assign(el, sc, n);
		break;
	case ND_BINARY:
	case ND_LOGICAL:
	case ND_CONCAT:
		t = n->kind == ND_CONCAT ? TYPE_STRING : TYPE_LONG;
		infer(el, sc, n->lhs);
		infer(el, sc, n->rhs);
		push_type(el, n->lhs, t);
		push_type(el, n->rhs, t);
		break;
	case ND_UNARY:
		infer(el, sc, n->lhs);
		push_type(el, n->lhs, TYPE_LONG);
		t = TYPE_LONG;
		break;
	case ND_COMPARE:
		a = infer(el, sc, n->lhs);
		b = infer(el, sc, n->rhs);
		push_type(el, n->lhs, a != TYPE_UNKNOWN ? a : b);
		push_type(el, n->rhs, a != TYPE_UNKNOWN ? a : b);
		t = TYPE_LONG;
		break;
	case ND_TERNARY:
		infer(el, sc, n->cond);
		push_type(el, n->cond, TYPE_LONG);
		a = infer(el, sc, n->then);
		b = infer(el, sc, n->els);
		t = a != TYPE_UNKNOWN ? a : b;
		push_type(el, n->then, t);
		push_type(el, n->els, t);
		break;
	case ND_BLOCK:
		for (struct node *s = n->body; s; s = s->next)
			infer(el, sc, s);
		break;
	case ND_EXPR_STMT:
		infer(el, sc, n->lhs);
		break;
	case ND_IF:
		infer(el, sc, n->cond);
		push_type(el, n->cond, TYPE_LONG);
		infer(el, sc, n->then);
		infer(el, sc, n->els);
		break;
	case ND_RETURN:
		if (n->lhs) {
			a = infer(el, sc, n->lhs);
			if (a != TYPE_UNKNOWN)
				learn_type(el, &sc->function->return_type, &sc->function->type_tok,
					   a, n->lhs->tok, n->lhs->tok);
			else
				push_type(el, n->lhs, sc->function->return_type);
		}
		break;
	case ND_NEXT:
	case ND_NULL_STMT:
		break;
	default:
		break;		/* refused by resolve_body (not_implemented) */
	}
	n->type = t;
	return t;
}

static void infer_walk(struct elaborator *el)
{
	for (struct probe *p = el->prog->files->probes; p; p = p->next) {
		struct scope sc = { .locals = &p->locals };

		if (p->index >= 0)
			infer(el, &sc, p->body);
	}
	for (struct function *f = el->prog->functions; f; f = f->next_used) {
		struct scope sc = { .locals = &f->locals, .function = f };

		infer(el, &sc, f->body);
	}
}

/* Types settle in a few walks; a last walk reports what is still wrong. */
static void infer_program(struct elaborator *el)
{
	enum { MAX_WALKS = 32 };

	for (int walk = 0; walk < MAX_WALKS; walk++) {
		el->changed = false;
		infer_walk(el);
		if (!el->changed)
			break;
	}
	el->report = true;
	infer_walk(el);
}

static void check_resolved(struct elaborator *el, struct symbol *list)
{
	for (struct symbol *sym = list; sym; sym = sym->next)
		if (sym->type == TYPE_UNKNOWN)
			semantic_error(el, sym->tok, "unresolved type");
}

/* ---- the pass ---- */

struct program *elaborate(struct session *s, struct preprocessor *pp, struct stapfile *user,
			  int *errors)
{
	struct program *prog = xcalloc(1, sizeof(*prog));
	struct elaborator el = { .session = s, .prog = prog };
	int next_index = 0;

	prog->files = user;
	el.function_tail = &prog->functions;
	el.tapsets = tapset_index_open(s, pp);
	for (struct embed *e = user->embeds; e; e = e->next)
		prog->nembeds++;

	for (struct symbol *g = user->globals; g; g = g->next)
		semantic_error(&el, g->tok, "global variables are not implemented yet");
	for (struct function *f = user->functions; f; f = f->next)
		if (f->has_priority)
			semantic_error(&el, f->tok, "function priorities are not implemented yet");

	for (struct probe *p = user->probes; p; p = p->next) {
		struct scope sc = { .locals = &p->locals, .file = p->file };
		int before = prog->nprobes;

		if (p->alias) {
			semantic_error(&el, p->alias_name->tok,
				       "probe aliases are not implemented yet");
			p->index = -1;
			continue;
		}

		derive_probes(&el, p);
		if (prog->nprobes == before) {
			p->index = -1;		/* nothing to run: not translated */
			continue;
		}
		p->index = next_index++;
		resolve_body(&el, &sc, p->body);
	}
	if (el.errors == 0 && prog->nprobes == 0)
		semantic_error(&el, NULL, "no probes found");
	if (el.errors == 0) {
		infer_program(&el);
		for (struct probe *p = user->probes; p; p = p->next)
			check_resolved(&el, p->locals);
		for (struct function *f = prog->functions; f; f = f->next_used) {
			check_resolved(&el, f->params);
			check_resolved(&el, f->locals);
		}
	}
	*errors += el.errors;
	return prog;
}
