/*
 * types.c - pass 2: the type of every variable, array, parameter and function result.
 *
 * infer() computes a node's type bottom-up, visiting each node once per walk; push_type()
 * then tells a node what type its context needs, which teaches variables, array keys and
 * values, parameters and function results their types.  Walks repeat until nothing new
 * is learned; a last walk reports conflicts (naming both places) and what stayed unknown.
 * What a call's context needs teaches the function's result type last.
 * Arrays learn their number of keys (arity) the same way.
 */
#include "elaborate.h"

#include <string.h>

struct typing {
	struct elaborator *el;
	struct function *function;	/* NULL in a probe handler */
	struct probe_body *handler;	/* NULL in a function */
	struct node *assigned;		/* the value of the assignment being typed */
};

/*
 * Learns that *SLOT is TYPE, seen at TOK.  INDEX is -1 for a value; for an array key or a
 * function parameter its number, which stap's messages name.
 */
static void learn_type(struct elaborator *el, enum stap_type *slot, struct token **slot_tok,
		       enum stap_type type, struct token *tok, int index)
{
	if (type == TYPE_UNKNOWN)
		return;
	if (*slot == TYPE_UNKNOWN) {
		*slot = type;
		*slot_tok = tok;
		el->changed = true;
		return;
	}
	if (*slot == type || !el->report)
		return;
	if (!*slot_tok) {	/* declared: f:long, x:string */
		semantic_error(el, tok, "type mismatch: expected %s but found %s", type_name(type),
			       type_name(*slot));
	} else if (index >= 0) {
		semantic_error(el, tok, "index %d type mismatch (%s)", index, type_name(type));
		semantic_error_followup(el, *slot_tok,
					"type of index %d was first inferred here (%s)", index,
					type_name(*slot));
	} else {
		semantic_error(el, tok, "type mismatch (%s)", type_name(type));
		semantic_error_followup(el, *slot_tok, "type was first inferred here (%s)",
					type_name(*slot));
	}
}

/* A variable's type: a parameter's is numbered like a key in stap's messages. */
static void learn_symbol_type(struct elaborator *el, struct symbol *sym, enum stap_type type,
			      struct token *tok)
{
	learn_type(el, &sym->type, &sym->type_tok, type, tok,
		   sym->kind == SYM_PARAM ? sym->position : -1);
}

/* Learns that SYM has ARITY keys (0: a scalar); false if it cannot have. */
static bool learn_arity(struct elaborator *el, struct symbol *sym, int arity, struct token *tok)
{
	/* "global a[N]" declares an array: each use as a scalar is an error at the
	 * declaration, in stap's words (without the arities) */
	if (arity == 0 && sym->kind == SYM_GLOBAL && sym->array_size) {
		if (el->report)
			semantic_error(el, sym->tok, "inconsistent arity");
		return false;
	}
	if (sym->arity == -1 || (sym->arity == 0 && !sym->arity_tok)) {
		if (sym->arity != arity || !sym->arity_tok)
			el->changed = true;
		sym->arity = arity;
		sym->arity_tok = tok;
		return true;
	}
	if (sym->arity == arity)
		return true;
	if (el->report) {
		semantic_error(el, tok, "inconsistent arity (%d vs %d)", sym->arity, arity);
		semantic_error_followup(el, sym->arity_tok, "arity %d first inferred here",
					sym->arity);
	}
	return false;
}

/*
 * A global's arity as resolve.c sees each use: as in stap, a conflict is an error there,
 * before the optimizer can drop the use that conflicts (a probe whose body does nothing).
 */
void resolve_global_arity(struct elaborator *el, struct symbol *sym, int arity,
			  struct token *tok)
{
	bool report = el->report;

	if (!sym || sym->kind != SYM_GLOBAL)
		return;
	el->report = true;
	learn_arity(el, sym, arity, tok);
	el->report = report;
}

/* A statistic has no value embedded C could take: a pragma naming one is refused at the
 * global's declaration, in stap's words. */
static void refuse_pragma_statistic(const char *name, size_t len, bool write, void *arg)
{
	struct elaborator *el = arg;
	struct symbol *g = pragma_global(el, name, len);

	(void)write;
	if (g && g->type == TYPE_STATS)
		semantic_error(el, g->tok, "Aggregates not available in embedded-C");
}

static enum stap_type infer(struct typing *ty, struct node *n);

/* The regular expression of =~ or !~ (a string literal) compiles (regex.c). */
static void check_regex(struct elaborator *el, struct node *n)
{
	char *error;
	struct regex *re = regex_compile(n->rhs->raw ? n->rhs->raw : n->rhs->string, &error);

	if (!re) {
		semantic_error_keyed(el, n->rhs->tok, "regex compilation error", error);
		free(error);
	}
	regex_free(re);
}

/* N must have TYPE: pass it down to whatever N names, or check it. */
static void push_type(struct typing *ty, struct node *n, enum stap_type type)
{
	struct elaborator *el = ty->el;

	if (type == TYPE_UNKNOWN || !n)
		return;
	switch (n->kind) {
	case ND_VAR:
		if (n->sym)
			learn_symbol_type(el, n->sym, type, n->tok);
		return;
	case ND_INDEX:
		if (n->lhs->kind == ND_VAR && n->lhs->sym)
			learn_symbol_type(el, n->lhs->sym, type, n->lhs->tok);
		else
			break;
		return;
	case ND_CALL:
		/* an embedded-C function that declares no type takes its context's, as in stap:
		 * if (exit()) makes exit:long (its value is then 0) */
		if (n->func) {
			if (!el->typing_calls_from_context && !el->report)
				return;
			for (struct function *f = n->func; f; f = f->next_overload)
				learn_type(el, &f->return_type, &f->type_tok, type, n->tok, -1);
			return;
		}
		break;
	case ND_TERNARY:
		push_type(ty, n->then, type);
		push_type(ty, n->els, type);
		return;
	case ND_ASSIGN:
		push_type(ty, n->lhs, type);
		push_type(ty, n->rhs, type);
		return;
	default:
		break;
	}
	if (!el->report)
		return;
	if (n->type == TYPE_UNKNOWN && n->kind == ND_CALL && n->func)
		semantic_error(el, n->tok, "function '%s' returns no value", n->string);
	else if (n->type != TYPE_UNKNOWN && n->type != type)
		semantic_error(el, n->tok, "type mismatch: expected %s but found %s",
			       type_name(type), type_name(n->type));
}

/* The keys of an array use: each learns the array's key type, and the array its arity. */
static void infer_keys(struct typing *ty, struct symbol *array, struct node *keys, int nkeys,
		       struct token *where)
{
	int i = 0;

	learn_arity(ty->el, array, nkeys, where);
	for (struct node *k = keys; k; k = k->next, i++) {
		enum stap_type t = k->kind == ND_WILDCARD ? TYPE_UNKNOWN : infer(ty, k);

		if (i >= MAX_ARRAY_KEYS || k->kind == ND_WILDCARD)
			continue;
		if (t != TYPE_UNKNOWN)
			learn_type(ty->el, &array->key_types[i], &array->key_type_toks[i], t, k->tok,
				   i);
		else
			push_type(ty, k, array->key_types[i]);
	}
}

static bool is_literal(struct node *n)
{
	return n->kind == ND_NUMBER || n->kind == ND_STRING;
}

/* ---- printf formats ---- */

static void infer_printf(struct typing *ty, struct node *n)
{
	enum stap_type expected[64];
	struct node *format = n->args, *a;
	int count = format_conversions(format->string, expected, 64), i = 0;

	for (a = format->next; a; a = a->next, i++) {
		enum stap_type t = infer(ty, a);

		if (count >= 0 && i < count && i < 64) {
			if (t == TYPE_UNKNOWN || (t != expected[i] && !is_literal(a)))
				push_type(ty, a, expected[i]);	/* a variable's conflict */
			else if (t != expected[i] && ty->el->report)
				/* stap checks a literal twice: one shown, one counted */
				for (int twice = 0; twice < 2; twice++)
					semantic_error(ty->el, a->tok,
						       "type mismatch: expected %s but found %s",
						       type_name(expected[i]), type_name(t));
		}
	}
	if (!ty->el->report)
		return;
	if (count >= 0 && count != i)	/* pass 1 rejected malformed formats */
		semantic_error(ty->el, n->tok,
			       "Wrong number of args to formatted print operator");
}

static enum stap_type infer_print(struct typing *ty, struct node *n)
{
	bool returns_string = n->print >= PRINT_SPRINT;

	if (n->print == PRINT_PRINTF || n->print == PRINT_SPRINTF) {
		infer_printf(ty, n);
		return returns_string ? TYPE_STRING : TYPE_UNKNOWN;
	}
	for (struct node *a = n->args; a; a = a->next) {
		enum stap_type t = infer(ty, a);

		/* a histogram prints as a bar chart; anything else must have a type */
		if (t == TYPE_UNKNOWN && a->kind != ND_HIST && a->kind != ND_VAR &&
		    a->kind != ND_INDEX && ty->el->report)
			semantic_error(ty->el, a->tok, "unresolved type ");
	}
	if (n->print == PRINT_PRINTD || n->print == PRINT_PRINTDLN ||
	    n->print == PRINT_SPRINTD || n->print == PRINT_SPRINTDLN)
		push_type(ty, n->args, TYPE_STRING);
	return returns_string ? TYPE_STRING : TYPE_UNKNOWN;
}

static enum stap_type infer_call(struct typing *ty, struct node *n)
{
	struct symbol *param;
	struct node *a;
	int i = 0;

	if (!n->func) {
		for (a = n->args; a; a = a->next)
			infer(ty, a);
		return TYPE_UNKNOWN;
	}
	for (a = n->args; a; a = a->next, i++) {
		enum stap_type t = infer(ty, a);

		/* every overload of this arity takes the same argument types */
		for (struct function *f = n->func; f; f = f->next_overload) {
			int k = 0;

			for (param = f->params; param && k < i; param = param->next)
				k++;
			if (!param)
				continue;
			if (t != TYPE_UNKNOWN)
				learn_symbol_type(ty->el, param, t, a->tok);
			else
				push_type(ty, a, param->type);
		}
	}
	/* and all return the type the first that has one returns (stap: found at the call;
	 * an overload that only ever says next takes it from the others) */
	enum stap_type type = TYPE_UNKNOWN;

	for (struct function *f = n->func; f && type == TYPE_UNKNOWN; f = f->next_overload)
		type = f->return_type;
	if (type != TYPE_UNKNOWN)
		for (struct function *f = n->func; f; f = f->next_overload)
			learn_type(ty->el, &f->return_type, &f->type_tok, type, n->tok, -1);
	return type;
}

static enum stap_type infer_assign(struct typing *ty, struct node *n)
{
	enum stap_type lhs = infer(ty, n->lhs);	/* stap's order, for its messages */
	enum stap_type rhs, want;

	ty->assigned = n->rhs;
	rhs = infer(ty, n->rhs);

	if (strcmp(n->op, ".=") == 0)
		want = TYPE_STRING;
	else if (strcmp(n->op, "=") != 0)
		want = TYPE_LONG;
	else
		want = rhs != TYPE_UNKNOWN ? rhs : lhs;
	if (want == TYPE_STATS && ty->el->report)
		semantic_error(ty->el, n->tok, "statistics can only be added to with <<<");
	push_type(ty, n->lhs, want);
	push_type(ty, n->rhs, want);
	return want;
}

/* The variable or array element a statistic lives in. */
static void push_stats(struct typing *ty, struct node *n)
{
	if (n->kind == ND_VAR && n->sym) {
		/* an array is not a statistic: stap says only that the arity is wrong */
		if (learn_arity(ty->el, n->sym, 0, n->tok))
			learn_symbol_type(ty->el, n->sym, TYPE_STATS, n->tok);
	} else if (n->kind == ND_INDEX && n->lhs->kind == ND_VAR && n->lhs->sym) {
		infer(ty, n);
		learn_symbol_type(ty->el, n->lhs->sym, TYPE_STATS, n->lhs->tok);
	} else if (ty->el->report) {
		semantic_error(ty->el, n->tok, "statistics are kept in global variables or "
					       "array elements");
	}
}

static void infer_foreach(struct typing *ty, struct node *n)
{
	struct foreach *fe = n->foreach;
	struct symbol *array = fe->array->kind == ND_VAR ? fe->array->sym : NULL;
	int i = 0;

	if (fe->array->kind == ND_HIST) {
		infer(ty, fe->array);
		if (fe->nkeys != 1 && ty->el->report)
			semantic_error(ty->el, fe->keys->tok, "a histogram has one key: its bucket");
		push_type(ty, fe->keys, TYPE_LONG);
	} else if (array) {
		learn_arity(ty->el, array, fe->nkeys, fe->array->tok);
		for (struct node *k = fe->keys; k; k = k->next, i++) {
			if (i >= MAX_ARRAY_KEYS)
				break;
			/* the array's key type goes to the variable (a conflict is the
			 * variable's, as stap words it), else the variable's to the array */
			if (array->key_types[i] == TYPE_UNKNOWN && k->sym)
				learn_type(ty->el, &array->key_types[i], &array->key_type_toks[i],
					   k->sym->type, k->tok, i);
			else
				push_type(ty, k, array->key_types[i]);
		}
		if (fe->filter)
			infer_keys(ty, array, fe->filter, fe->nkeys, fe->array->tok);
		if (fe->value) {
			if (array->type == TYPE_UNKNOWN && fe->value->sym)
				learn_type(ty->el, &array->type, &array->type_tok,
					   fe->value->sym->type, fe->value->tok, -1);
			else
				push_type(ty, fe->value, array->type);
		}
		if (fe->sort_aggregate && array->type != TYPE_STATS && array->type != TYPE_UNKNOWN &&
		    ty->el->report)
			semantic_error(ty->el, fe->array->tok,
				       "sorting by %s needs an array of statistics",
				       fe->sort_aggregate);
	}
	if (fe->limit) {
		infer(ty, fe->limit);
		push_type(ty, fe->limit, TYPE_LONG);
	}
	infer(ty, n->then);
}

/*
 * The type an operand is known to have before it is looked at again: a literal's, an
 * initialised global's (NULL is one), or what the last walk found for it.
 */
static enum stap_type settled_type(struct node *n)
{
	if (n->kind == ND_NUMBER)
		return TYPE_LONG;
	if (n->kind == ND_STRING)
		return TYPE_STRING;
	if (n->kind == ND_VAR && n->sym && n->sym->kind == SYM_GLOBAL && n->sym->init)
		return n->sym->type;
	return n->type;
}

/*
 * A comparison's operands have one type.  As in stap, the left one is checked against
 * the type the right one is known to have, then the right one against the left one's;
 * an operand that did not fit (other than a literal) has no type to offer until it
 * does, so one mismatch is reported where stap reports it: "s == NULL" at s,
 * "NULL == s" at s, "NULL == "x"" at NULL.
 */
static void infer_compare(struct typing *ty, struct node *n)
{
	enum stap_type want = settled_type(n->rhs), a, b;
	bool fits;

	a = infer(ty, n->lhs);
	if (n->lhs->kind == ND_INCREMENT && want == TYPE_STRING) {
		/* x++ compared with a string: stap's "invalid operator", then the string
		 * where its number goes */
		if (ty->el->report)
			semantic_error(ty->el, n->lhs->tok, "invalid operator");
		infer(ty, n->rhs);
		push_type(ty, n->rhs, TYPE_LONG);
		return;
	}
	fits = want == TYPE_UNKNOWN || a == TYPE_UNKNOWN || a == want;
	push_type(ty, n->lhs, want);
	if (!fits && !is_literal(n->lhs))
		n->lhs->type = TYPE_UNKNOWN;
	if (is_literal(n->lhs))
		want = a;
	else if (!fits)
		want = TYPE_UNKNOWN;
	else if (a != TYPE_UNKNOWN)
		want = a;
	b = infer(ty, n->rhs);
	push_type(ty, n->rhs, want);
	if (want != TYPE_UNKNOWN && b != TYPE_UNKNOWN && b != want && !is_literal(n->rhs))
		n->rhs->type = TYPE_UNKNOWN;
}

static enum stap_type infer(struct typing *ty, struct node *n)
{
	enum stap_type t = TYPE_UNKNOWN, a, b;
	struct elaborator *el = ty->el;

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
		if (n->sym) {
			learn_arity(el, n->sym, 0, n->tok);
			t = n->sym->type;
			if (t == TYPE_UNKNOWN && el->report)	/* at each use, as stap */
				semantic_error(el, n->tok, "unresolved type ");
		}
		break;
	case ND_INDEX:
		if (n->lhs->kind == ND_VAR && n->lhs->sym) {
			infer_keys(ty, n->lhs->sym, n->args, n->nargs, n->lhs->tok);
			t = n->lhs->sym->type;
			if (t == TYPE_UNKNOWN && el->report)
				semantic_error(el, n->lhs->tok, "unresolved type ");
		} else {
			infer(ty, n->lhs);	/* a histogram's bucket */
			infer(ty, n->args);
			push_type(ty, n->args, TYPE_LONG);
			t = TYPE_LONG;
		}
		break;
	case ND_CALL:
		t = infer_call(ty, n);
		break;
	case ND_PRINT:
		t = infer_print(ty, n);
		break;
	case ND_ASSIGN:
		t = infer_assign(ty, n);
		break;
	case ND_ACCUMULATE:
		infer(ty, n->rhs);
		push_type(ty, n->rhs, TYPE_LONG);
		push_stats(ty, n->lhs);
		t = TYPE_UNKNOWN;
		break;
	case ND_STAT:
	case ND_HIST:
		push_stats(ty, n->lhs);
		for (struct node *arg = n->args; arg; arg = arg->next) {
			infer(ty, arg);
			push_type(ty, arg, TYPE_LONG);
		}
		t = n->kind == ND_STAT ? TYPE_LONG : TYPE_UNKNOWN;
		break;
	case ND_BINARY:
	case ND_LOGICAL:
	case ND_CONCAT:
		t = n->kind == ND_CONCAT ? TYPE_STRING : TYPE_LONG;
		infer(ty, n->lhs);
		infer(ty, n->rhs);
		push_type(ty, n->lhs, t);
		push_type(ty, n->rhs, t);
		break;
	case ND_UNARY:
	case ND_INCREMENT:
		infer(ty, n->lhs);
		push_type(ty, n->lhs, TYPE_LONG);
		t = TYPE_LONG;
		break;
	case ND_REGEX:
		infer(ty, n->lhs);
		push_type(ty, n->lhs, TYPE_STRING);
		t = TYPE_LONG;
		if (ty->el->report)	/* once: pass 3 compiles it again, for its tables */
			check_regex(ty->el, n);
		break;
	case ND_COMPARE:
		infer_compare(ty, n);
		t = TYPE_LONG;
		break;
	case ND_TERNARY:
		infer(ty, n->cond);
		push_type(ty, n->cond, TYPE_LONG);
		a = infer(ty, n->then);
		b = infer(ty, n->els);
		t = a != TYPE_UNKNOWN ? a : b;
		push_type(ty, n->then, t);
		push_type(ty, n->els, t);
		break;
	case ND_IN:
		if (n->lhs->kind == ND_VAR && n->lhs->sym)
			infer_keys(ty, n->lhs->sym, n->args, n->nargs, n->lhs->tok);
		t = TYPE_LONG;
		break;
	case ND_TARGET:
	case ND_AT_VAR:
	case ND_CAST:
	case ND_AUTOCAST:
		if (n->access)
			t = n->access->result == TRESULT_STRING ? TYPE_STRING : TYPE_LONG;
		else if (n->kind == ND_TARGET && n->string && strcmp(n->string, "$value") == 0 &&
			 !n->components && ty->handler &&
			 (ty->handler->procfs_read || ty->handler->procfs_write))
			t = TYPE_STRING;	/* a procfs probe's $value */
		else if (n->kind == ND_TARGET && el->report)
			/* a probe without context variables (begin, timers): stap says so here,
			 * after its optimizer, so an elided statement's $x is no error */
			semantic_error(el, n->tok, "unresolved target-symbol expression");
		for (struct target_component *c = n->components; c; c = c->next)
			if (c->index) {
				infer(ty, c->index);
				push_type(ty, c->index, TYPE_LONG);
			}
		/* p->x where p's value has no C type (autocast.c found none); its type is
		 * unresolved too, which stap says unless the variable it is assigned to
		 * says it */
		if (n->kind == ND_AUTOCAST && !n->access && el->report) {
			semantic_error(el, n->tok, "unknown type in dereference");
			if (ty->assigned != n)
				semantic_error(el, n->tok, "unresolved type ");
		}
		break;
	case ND_EMBEDDED_EXPR:
		t = strstr(n->string, "/* string */") ? TYPE_STRING : TYPE_LONG;
		if (el->report)
			embedded_pragma_globals(n->string, refuse_pragma_statistic, el);
		break;
	case ND_ENTRY:		/* the value its expression had at the entry */
		t = infer(ty, n->lhs);
		if (t == TYPE_UNKNOWN && n->type != TYPE_UNKNOWN)
			push_type(ty, n->lhs, n->type);
		break;
	case ND_BLOCK:
		for (struct node *s = n->body; s; s = s->next)
			infer(ty, s);
		break;
	case ND_EXPR_STMT:
		infer(ty, n->lhs);
		break;
	case ND_IF:
	case ND_FOR:
		infer(ty, n->init);
		infer(ty, n->cond);
		push_type(ty, n->cond, TYPE_LONG);
		infer(ty, n->incr);
		infer(ty, n->then);
		infer(ty, n->els);
		break;
	case ND_FOREACH:
		infer_foreach(ty, n);
		break;
	case ND_DELETE:
		if (n->lhs->kind == ND_INDEX && n->lhs->lhs->sym)
			infer_keys(ty, n->lhs->lhs->sym, n->lhs->args, n->lhs->nargs, n->lhs->tok);
		break;
	case ND_TRY:
		infer(ty, n->then);
		if (n->catch_var)
			push_type(ty, n->catch_var, TYPE_STRING);
		infer(ty, n->els);
		break;
	case ND_RETURN:
		if (n->lhs && ty->function) {
			a = infer(ty, n->lhs);
			if (a != TYPE_UNKNOWN)
				learn_type(el, &ty->function->return_type, &ty->function->type_tok, a,
					   n->lhs->tok, -1);
			else
				push_type(ty, n->lhs, ty->function->return_type);
		}
		break;
	default:
		break;
	}
	n->type = t;
	return t;
}

static void walk(struct elaborator *el)
{
	/* an initialised global's type is known before any use, as if declared (stap's
	 * "expected string but found long" at a use of the other type) */
	for (struct symbol *g = el->prog->globals; g; g = g->next_used)
		if (g->init && g->type == TYPE_UNKNOWN) {
			g->type = g->init->kind == ND_STRING ? TYPE_STRING : TYPE_LONG;
			g->type_tok = NULL;
			el->changed = true;
		}
	for (struct probe_body *h = el->prog->bodies; h; h = h->next) {
		struct typing ty = { .el = el, .handler = h };

		if (!h->elided)
			infer(&ty, h->body);
	}
	for (struct function *f = el->prog->functions; f; f = f->next_used) {
		struct typing ty = { .el = el, .function = f };

		infer(&ty, f->body);
	}
	for (struct derived_probe *dp = el->prog->probes; dp; dp = dp->next) {
		struct typing ty = { .el = el };

		if (dp->condition) {
			infer(&ty, dp->condition);
			push_type(&ty, dp->condition, TYPE_LONG);
		}
	}
}

static void check_resolved(struct elaborator *el, struct symbol *list, bool globals)
{
	for (struct symbol *sym = list; sym; sym = globals ? sym->next_used : sym->next) {
		if (sym->type == TYPE_STATS && !globals)
			semantic_error(el, sym->type_tok,
				       "stat locals not supported, missing global declaration? ");
		if (sym->type == TYPE_UNKNOWN && !sym->read)	/* else said where it is read */
			semantic_error(el, sym->tok, "unresolved type ");
		for (int i = 0; i < sym->arity && i < MAX_ARRAY_KEYS; i++)
			if (sym->key_types[i] == TYPE_UNKNOWN)
				semantic_error(el, sym->tok, "unresolved type of index %d", i + 1);
		if (sym->arity > MAX_ARRAY_KEYS)
			semantic_error(el, sym->tok, "array %s has more than %d indexes", sym->name,
				       MAX_ARRAY_KEYS);
	}
}

/* Types settle in a few walks; a last walk reports what is still wrong. */
void infer_types(struct elaborator *el)
{
	/* every change fills an unknown slot, so this ends; a call's context teaches its
	 * function's result type only once nothing else does (stap's order of inference) */
	for (el->typing_calls_from_context = false;; el->typing_calls_from_context = true) {
		do {
			el->changed = false;
			walk(el);
		} while (el->changed);
		if (el->typing_calls_from_context)
			break;
	}
	el->report = true;
	walk(el);
	for (struct function *f = el->prog->functions; f; f = f->next_used)
		if (f->embedded)
			embedded_pragma_globals(f->embedded->text, refuse_pragma_statistic, el);
	for (struct probe_body *h = el->prog->bodies; h; h = h->next)
		if (!h->elided)
			check_resolved(el, h->locals, false);
	for (struct function *f = el->prog->functions; f; f = f->next_used) {
		check_resolved(el, f->params, false);
		check_resolved(el, f->locals, false);
	}
	check_resolved(el, el->prog->globals, true);
	/* "global a%" wraps an array when full; stap names only the first scalar so declared */
	for (struct symbol *g = el->prog->globals; g; g = g->next_used)
		if (g->wrap && g->arity == 0) {
			semantic_error(el, g->tok, "wrapping not supported for scalars");
			break;
		}
}
