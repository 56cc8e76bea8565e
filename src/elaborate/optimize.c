/*
 * optimize.c - pass 2's optimizer (stap -u leaves only the folding of constants, and an
 * expression statement split into its parts, as stap splits it whatever -u says).
 *
 * Rounds until nothing changes, each in two walks over the probe handlers and then the
 * functions (stap's order, so the warnings come in the order its users know):
 *   1. an assignment (or <<<) to a local that is never read becomes its right side
 *      ("Eliding assignment");
 *   2. an expression statement without side effects goes ("Eliding side-effect-free
 *      expression"; "side-effect-free function" for a function left empty).
 * In both walks constant expressions fold (2 * 3 is 6), if, ?:, while and for on a
 * constant condition keep only what can run, and nested blocks flatten.
 * Only the first round warns: what later rounds remove follows from what it said.
 * Then functions no longer called and globals no longer used are dropped.  At the end a
 * handler with no side effect left goes ("Probe ... has been elided"), and again what
 * only it used.  After the types,
 * the overloads that can never run go too (drop_unreachable_overloads).
 * What has side effects: writes to globals, printing, calls of functions that have them
 * (embedded C unless marked pure), delete, <<< to a global, target writes; a target
 * read has none (stap elides an unused $var too, and with it the fault it could have),
 * nor has a division (stap elides an unused x / 0 with its error).  A script function
 * has effects when its body has (or reads a $target, runs embedded C, next, foreach or
 * delete); a try/catch and a division in it do not, as in stap, so an unused call of a
 * tapset decoder (a try around user_*_error reads) goes as stap's pure embedded C goes.
 * A statement whose value is unused but has effects keeps only the parts that have them
 * (keep_parts).
 */
#include "elaborate.h"
#include "families/family.h"

#include <string.h>

enum walk { ELIDE_ASSIGNMENTS, ELIDE_STATEMENTS };

struct optimizer {
	struct elaborator *el;
	enum walk walk;
	bool elide;			/* not with -u: then constants fold, nothing else goes */
	int round;			/* stap warns in the first round only */
	bool changed;
};

/* ---- side effects ---- */

static bool side_effects(struct node *n);

static bool function_has_side_effects(struct function *f)
{
	if (f->embedded)
		return !strstr(f->embedded->text, "/* pure */");
	return f->impure;
}

static bool list_has_side_effects(struct node *list)
{
	for (; list; list = list->next)
		if (side_effects(list))
			return true;
	return false;
}

/* Writing to this: a global or an array has effects; a local only matters if read. */
static bool writes_outside(struct node *target)
{
	if (target->kind == ND_INDEX)
		return true;
	if (target->kind == ND_VAR)
		return !target->sym || target->sym->kind == SYM_GLOBAL || target->sym->read;
	return true;
}

static bool side_effects(struct node *n)
{
	if (!n)
		return false;
	switch (n->kind) {
	case ND_NUMBER:
	case ND_STRING:
	case ND_VAR:
	case ND_WILDCARD:
		return false;
	case ND_ASSIGN:
	case ND_INCREMENT:
		return writes_outside(n->lhs) || side_effects(n->rhs);
	case ND_CALL:
		if (list_has_side_effects(n->args))
			return true;
		for (struct function *f = n->func; f; f = f->next_overload)
			if (function_has_side_effects(f))
				return true;
		return !n->func;
	case ND_PRINT:
		return n->print < PRINT_SPRINT || list_has_side_effects(n->args);
	case ND_TARGET:		/* reads, as in stap: an unused one goes (and cannot fault) */
	case ND_CAST:
	case ND_AT_VAR:
	case ND_AUTOCAST:
		for (struct target_component *c = n->components; c; c = c->next)
			if (side_effects(c->index))
				return true;
		return side_effects(n->lhs) || side_effects(n->rhs) || list_has_side_effects(n->args);
	case ND_EMBEDDED_EXPR:	/* as an embedded function: pure by its pragma */
		return !strstr(n->string, "/* pure */");
	case ND_ACCUMULATE:
	case ND_DELETE:
	case ND_PERF:
	case ND_ENTRY:
	case ND_NEXT:
	case ND_RETURN:
	case ND_BREAK:
	case ND_CONTINUE:
	case ND_TRY:
	case ND_FOREACH:
		return true;
	default:	/* division too: its possible error does not keep it, as in stap */
		return side_effects(n->lhs) || side_effects(n->rhs) || side_effects(n->cond) ||
		       side_effects(n->then) || side_effects(n->els) || side_effects(n->init) ||
		       side_effects(n->incr) || list_has_side_effects(n->args) ||
		       list_has_side_effects(n->body);
	}
}

/* Script functions: impure if their bodies have effects; iterate to a fixpoint. */
static bool mark_impure(struct node *n, void *arg)
{
	bool *impure = arg;

	if (*impure)
		return false;
	switch (n->kind) {
	case ND_ASSIGN:
	case ND_INCREMENT:
	case ND_ACCUMULATE:
		if (n->lhs->kind != ND_VAR || !n->lhs->sym || n->lhs->sym->kind == SYM_GLOBAL)
			*impure = true;
		break;
	case ND_CALL:
		for (struct function *f = n->func; f; f = f->next_overload)
			*impure |= function_has_side_effects(f);
		*impure |= !n->func;
		break;
	case ND_PRINT:
		*impure |= n->print < PRINT_SPRINT;
		break;
	case ND_DELETE:
	case ND_EMBEDDED_EXPR:
	case ND_TARGET:
	case ND_NEXT:
	case ND_FOREACH:
		*impure = true;
		break;
	case ND_TRY:	/* its parts decide: an error, caught or not, is no effect */
	case ND_BINARY:	/* a division too, as in stap: an unused f(0) of 1 / x goes */
		break;
	default:
		break;
	}
	return true;
}

static void find_impure_functions(struct elaborator *el)
{
	bool changed = true;

	for (struct function *f = el->prog->functions; f; f = f->next_used)
		f->impure = false;

	while (changed) {
		changed = false;
		for (struct function *f = el->prog->functions; f; f = f->next_used) {
			bool impure = false;

			if (f->impure || f->embedded)
				continue;
			walk_nodes(f->body, mark_impure, &impure);
			if (impure) {
				f->impure = true;
				changed = true;
			}
		}
	}
}

/* ---- folding ---- */

static void become_number(struct node *n, int64_t value)
{
	struct node *next = n->next;
	struct token *tok = n->tok;

	*n = (struct node){ .kind = ND_NUMBER, .tok = tok, .number = value, .next = next };
}

static void become_child(struct node *n, struct node *child)
{
	struct node *next = n->next;

	*n = *child;
	n->next = next;
}

/*
 * stap's identities of a literal operand, when the other operand has no effects (its
 * value does not matter then; not with -u, which keeps it and types it): x*0, x&0,
 * x%1, x%-1, 0<<x, 0>>x, x&&0 and 0&&x are 0; x|-1 is -1; x||1 and 1||x are 1; x*1,
 * x/1, x+0, x-0, x|0, x^0, x&-1, x<<0 and x>>0 are x (and 1*x, 0+x, 0|x, 0^x, -1&x).
 * True when N was replaced.
 */
static bool fold_identity(struct node *n)
{
	int64_t l = 0, r = 0;
	bool lc = constant_value(n->lhs, &l), rc = constant_value(n->rhs, &r);
	char op = n->op[0];

	if (lc == rc || (lc && side_effects(n->rhs)) || (rc && side_effects(n->lhs)))
		return false;	/* two literals fold whole; no literal, no identity */
	if (n->kind == ND_LOGICAL) {
		if (op == '&' && ((lc && l == 0) || (rc && r == 0)))
			become_number(n, 0);
		else if (op == '|' && ((lc && l != 0) || (rc && r != 0)))
			become_number(n, 1);
		else
			return false;
		return true;
	}
	if (strcmp(n->op, ">>>") == 0)
		return false;
	if (((op == '*' || op == '&') && ((lc && l == 0) || (rc && r == 0))) ||
	    (op == '%' && rc && (r == 1 || r == -1)) ||
	    ((op == '<' || op == '>') && lc && l == 0))
		become_number(n, 0);
	else if (op == '|' && ((lc && l == -1) || (rc && r == -1)))
		become_number(n, -1);
	else if (rc && (((op == '*' || op == '/') && r == 1) || (op == '&' && r == -1) ||
			(r == 0 && strchr("+-|^<>", op))))
		become_child(n, n->lhs);
	else if (lc && ((op == '*' && l == 1) || (op == '&' && l == -1) ||
			(l == 0 && strchr("+|^", op))))
		become_child(n, n->rhs);
	else
		return false;
	return true;
}

static void fold(struct optimizer *o, struct node *n)
{
	int64_t a, v;

	switch (n->kind) {
	case ND_BINARY:
	case ND_LOGICAL:
		if (o->elide && fold_identity(n)) {
			o->changed = true;
			break;
		}
		/* fall through */
	case ND_COMPARE:
	case ND_UNARY:
		if (constant_value(n, &v)) {
			become_number(n, v);
			o->changed = true;
		}
		break;
	case ND_CONCAT:
		if (n->lhs->kind == ND_STRING && n->rhs->kind == ND_STRING) {
			struct node *lhs = n->lhs, *rhs = n->rhs, *next = n->next;

			*n = *lhs;
			n->next = next;
			n->string = xasprintf("%s%s", lhs->string, rhs->string);
			n->raw = lhs->raw && rhs->raw ? xasprintf("%s%s", lhs->raw, rhs->raw) : NULL;
			o->changed = true;
		}
		break;
	case ND_TERNARY:
		if (constant_value(n->cond, &a)) {
			struct node *next = n->next, *keep = a ? n->then : n->els;

			*n = *keep;
			n->next = next;
			o->changed = true;
		}
		break;
	default:
		break;
	}
}

/* ---- statements ---- */

static void optimize_expr(struct optimizer *o, struct node *n);

static void optimize_children(struct optimizer *o, struct node *n)
{
	optimize_expr(o, n->lhs);
	optimize_expr(o, n->rhs);
	optimize_expr(o, n->cond);
	optimize_expr(o, n->then);
	optimize_expr(o, n->els);
	for (struct node *a = n->args; a; a = a->next)
		optimize_expr(o, a);
	for (struct target_component *c = n->components; c; c = c->next)
		optimize_expr(o, c->index);
}

static bool is_unread_local(struct node *target);

/* "x = v" (or "x <<< v") to a local x never read. */
static bool unread_assignment(struct node *n)
{
	return ((n->kind == ND_ASSIGN && strcmp(n->op, "=") == 0) || n->kind == ND_ACCUMULATE) &&
	       is_unread_local(n->lhs);
}

/* Warns of eliding the assignment N, as stap does (quietly where @defined named it). */
static void say_eliding_assignment(struct optimizer *o, struct node *n)
{
	if (!n->lhs->sym->mentioned && o->round == 0)
		semantic_warning(o->el, n->tok, "Eliding assignment to '%s'", n->lhs->string);
}

static void optimize_expr(struct optimizer *o, struct node *n)
{
	if (!n)
		return;
	/* an assignment to a local never read, anywhere in an expression, is its value */
	while (o->elide && o->walk == ELIDE_ASSIGNMENTS && unread_assignment(n)) {
		struct node *next = n->next;

		say_eliding_assignment(o, n);
		*n = *n->rhs;
		n->next = next;
		o->changed = true;
	}
	optimize_children(o, n);
	fold(o, n);
}

static struct node *optimize_statement(struct optimizer *o, struct node *s);

/* Optimizes a statement list; returns the new list.  Nested blocks flatten into it. */
static struct node *optimize_list(struct optimizer *o, struct node *list)
{
	struct node head = { 0 }, *tail = &head;

	while (list) {
		struct node *next = list->next, *s;

		list->next = NULL;
		s = optimize_statement(o, list);
		if (s && s->kind == ND_BLOCK) {
			tail->next = s->body;
			o->changed |= s == list;	/* a block inside a block */
		} else {
			tail->next = s;
		}
		while (tail->next)
			tail = tail->next;
		list = next;
	}
	return head.next;
}

static struct node *null_statement(struct token *tok)
{
	struct node *n = xcalloc(1, sizeof(*n));

	n->kind = ND_NULL_STMT;
	n->tok = tok;
	return n;
}

static bool is_unread_local(struct node *target)
{
	return target->kind == ND_VAR && target->sym && target->sym->kind != SYM_GLOBAL &&
	       !target->sym->read;
}

static struct node *expression_statement(struct node *expr, struct token *tok)
{
	struct node *n = xcalloc(1, sizeof(*n));

	n->kind = ND_EXPR_STMT;
	n->tok = tok;
	n->lhs = expr;
	n->from_value_statement = true;
	return n;
}

/*
 * As stap does, whether optimizing or not: an expression statement whose value nothing
 * uses is run as the if statement it means, so its operands may be calls of functions
 * that return nothing (c && exit(), c ? exit() : f()):
 *   a && b;      if (a) b;
 *   a || b;      if (!a) b;
 *   a ? b : c;   if (a) b; else c;
 * What is left of one that does nothing goes with one warning, at the condition, as in
 * stap ("Eliding side-effect-free expression" at c for "c && d;").
 */
static struct node *as_if_statement(struct node *s)
{
	struct node *e = s->lhs, *n = xcalloc(1, sizeof(*n));

	n->kind = ND_IF;
	n->tok = s->tok;
	n->from_value_statement = true;
	if (e->kind == ND_TERNARY) {
		n->cond = e->cond;
		n->then = expression_statement(e->then, s->tok);
		n->els = expression_statement(e->els, s->tok);
	} else if (strcmp(e->op, "&&") == 0) {
		n->cond = e->lhs;
		n->then = expression_statement(e->rhs, s->tok);
	} else {
		struct node *not = xcalloc(1, sizeof(*not));

		not->kind = ND_UNARY;
		not->op = "!";
		not->tok = e->tok;
		not->lhs = e->lhs;
		n->cond = not;
		n->then = expression_statement(e->rhs, s->tok);
	}
	n->next = s->next;
	return n;
}

/*
 * An operator whose value nothing uses does nothing itself: only its operands may have
 * effects.  As in stap, the statement "f() * g();" runs as "f(); g();", and then a
 * pure g() goes (quietly: stap warns only for a whole statement).  A call of a function without
 * effects is its arguments; && || ?: stay whole (they choose what runs).
 */
static bool value_only(struct node *n)
{
	switch (n->kind) {
	case ND_UNARY:
	case ND_BINARY:
	case ND_CONCAT:
	case ND_COMPARE:
	case ND_REGEX:
	case ND_INDEX:
		return true;
	case ND_PRINT:
		return n->print >= PRINT_SPRINT;
	case ND_CALL:
		if (!n->func)
			return false;
		for (struct function *f = n->func; f; f = f->next_overload)
			if (function_has_side_effects(f))
				return false;
		return true;
	default:
		return false;
	}
}

/* Appends to *tail a statement for each part of N, in their order: each part that has
 * effects, or with ALL (-u: stap keeps "1 + x;" as "1; x;") each part. */
static void keep_parts(struct node *n, struct node ***tail, bool all)
{
	if (!n)
		return;
	if (!value_only(n)) {
		if (all || side_effects(n)) {
			**tail = expression_statement(n, n->tok);
			*tail = &(**tail)->next;
		}
		return;
	}
	keep_parts(n->lhs, tail, all);
	keep_parts(n->rhs, tail, all);
	for (struct node *a = n->args; a; a = a->next)
		keep_parts(a, tail, all);
}

/* The expression statement S as a block of its parts' statements (keep_parts()). */
static struct node *split_statement(struct optimizer *o, struct node *s, bool all)
{
	struct node *block = xcalloc(1, sizeof(*block)), **tail = &block->body;

	block->kind = ND_BLOCK;
	block->tok = s->tok;
	keep_parts(s->lhs, &tail, all);
	o->changed = true;
	return optimize_statement(o, block);
}

/* A foreach that does nothing: its body (if any) and limit have no effects, and its
 * variables are not read after it (as stap, which drops such a loop). */
static bool inert_foreach(struct node *s)
{
	const struct foreach *fe = s->foreach;

	if ((s->then && side_effects(s->then)) || side_effects(fe->limit) ||
	    (fe->value && fe->value->sym && fe->value->sym->read))
		return false;
	for (struct node *k = fe->keys; k; k = k->next)
		if (k->sym && k->sym->read)
			return false;
	return true;
}

/* The expression statement S "x = v" (or "x <<< v") of a local never read becomes "v"
 * (before the assignments inside v go: stap's order of warnings). */
static void elide_unread_assignment(struct optimizer *o, struct node *s)
{
	if (!o->elide || o->walk != ELIDE_ASSIGNMENTS || !unread_assignment(s->lhs))
		return;
	if (s->lhs->lhs->sym->mentioned)	/* quietly, the statement too */
		s->from_value_statement = true;
	say_eliding_assignment(o, s->lhs);
	s->lhs = s->lhs->rhs;
	o->changed = true;
}

/* NULL when the statement goes away. */
static struct node *optimize_statement(struct optimizer *o, struct node *s)
{
	struct elaborator *el = o->el;
	int64_t value;

	switch (s->kind) {
	case ND_BLOCK:	/* an empty one goes; one of one statement becomes it (not with -u:
			   where a block ends is where stap charges MAXACTION for it) */
		s->body = optimize_list(o, s->body);
		if (!o->elide)
			return s;
		return s->body && s->body->next ? s : s->body;
	case ND_NULL_STMT:	/* not a change: loops put one back as their empty body */
		return NULL;
	case ND_EXPR_STMT:
		if (s->lhs->kind == ND_TERNARY ||
		    (s->lhs->kind == ND_LOGICAL && (strcmp(s->lhs->op, "&&") == 0 ||
						    strcmp(s->lhs->op, "||") == 0)))
			return optimize_statement(o, as_if_statement(s));
		if (!o->elide && value_only(s->lhs))	/* -u: "f(x);" of a pure f is "x;" */
			return split_statement(o, s, true);
		elide_unread_assignment(o, s);
		optimize_expr(o, s->lhs);
		if (o->elide && o->walk == ELIDE_STATEMENTS && value_only(s->lhs) &&
		    side_effects(s->lhs))
			return split_statement(o, s, false);
		if (o->elide && o->walk == ELIDE_STATEMENTS && !side_effects(s->lhs)) {
			if (o->round == 0 && !s->from_value_statement)
				semantic_warning(el, s->tok, "Eliding side-effect-free expression ");
			o->changed = true;
			return NULL;
		}
		return s;
	case ND_IF:
		optimize_expr(o, s->cond);
		if (s->then)
			s->then = optimize_statement(o, s->then);
		if (s->els)
			s->els = optimize_statement(o, s->els);
		/* the branch that cannot run goes after the statements' walk saw it (stap
		 * warns of what it elides in it first) */
		if (constant_value(s->cond, &value) && (!o->elide || o->walk == ELIDE_STATEMENTS)) {
			o->changed = true;
			return value ? s->then : s->els;
		}
		if (!s->then && !s->els && o->elide && !side_effects(s->cond)) {
			if (s->from_value_statement && o->round == 0)
				semantic_warning(el, s->cond->tok,
						 "Eliding side-effect-free expression ");
			o->changed = true;
			return NULL;
		}
		if (!s->then && !s->els && o->elide) {	/* only the condition's effects */
			struct node *e = expression_statement(s->cond, s->tok);

			e->next = s->next;
			o->changed = true;
			return optimize_statement(o, e);
		}
		if (!s->then && s->els) {	/* if (c) ; else x  is  if (!c) x */
			struct node *not = xcalloc(1, sizeof(*not));

			not->kind = ND_UNARY;
			not->op = "!";
			not->tok = s->cond->tok;
			not->lhs = s->cond;
			not->type = TYPE_LONG;
			s->cond = not;
			s->then = s->els;
			s->els = NULL;
		}
		if (!s->then)
			s->then = null_statement(s->tok);
		return s;
	case ND_FOR:
		if (s->init) {	/* its value is unused too, but stap says nothing more of it */
			elide_unread_assignment(o, s->init);
			optimize_expr(o, s->init->lhs);
		}
		optimize_expr(o, s->cond);
		if (s->incr)
			optimize_expr(o, s->incr->lhs);
		if (s->then)
			s->then = optimize_statement(o, s->then);
		if (constant_value(s->cond, &value) && value == 0) {
			o->changed = true;
			return s->init;		/* the loop never runs; its init still does */
		}
		if (!s->then)
			s->then = null_statement(s->tok);
		return s;
	case ND_FOREACH:
		optimize_expr(o, s->foreach->limit);
		if (s->then)
			s->then = optimize_statement(o, s->then);
		if (o->elide && inert_foreach(s)) {
			o->changed = true;	/* stap drops it without a word */
			return NULL;
		}
		if (!s->then)
			s->then = null_statement(s->tok);
		return s;
	case ND_TRY:
		s->then = optimize_statement(o, s->then);
		s->els = s->els ? optimize_statement(o, s->els) : NULL;
		if (!s->then) {
			o->changed = true;
			return NULL;
		}
		if (!s->els) {
			s->els = null_statement(s->tok);
			s->els->kind = ND_BLOCK;
		}
		return s;
	default:
		optimize_expr(o, s->lhs);
		return s;
	}
}

/* ---- what is still used ---- */

/* The program's global that embedded C's pragma names (resolve.c joined it). */
struct symbol *pragma_global(struct elaborator *el, const char *name, size_t len)
{
	for (struct symbol *g = el->prog->globals; g; g = g->next_used)
		if (strlen(g->name) == len && strncmp(g->name, name, len) == 0)
			return g;
	return NULL;
}

static void note_pragma_use(const char *name, size_t len, bool write, void *arg)
{
	struct symbol *g = pragma_global(arg, name, len);

	(void)write;
	if (g)
		g->still_used = true;
}

static bool note_use(struct node *n, void *arg)
{
	struct elaborator *el = arg;

	if (n->kind == ND_CALL)
		for (struct function *f = n->func; f; f = f->next_overload) {
			f->still_used = true;
			if (f->embedded)
				embedded_pragma_globals(f->embedded->text, note_pragma_use, el);
		}
	if (n->kind == ND_EMBEDDED_EXPR)
		embedded_pragma_globals(n->string, note_pragma_use, el);
	if ((n->kind == ND_VAR || n->kind == ND_INDEX) && n->sym)
		n->sym->still_used = true;
	if (n->kind == ND_INDEX && n->lhs->sym)
		n->lhs->sym->still_used = true;
	if (n->kind == ND_FOREACH && n->foreach->array->sym)
		n->foreach->array->sym->still_used = true;
	return true;
}

/* A global scalar, or an element of a global array */
static bool global_target(struct node *n)
{
	if (n->kind == ND_INDEX)
		n = n->lhs;
	return n->kind == ND_VAR && n->sym && n->sym->kind == SYM_GLOBAL;
}

/* What a write's target reads: an element's index expressions, not the array */
static void note_target_reads(struct node *target, void *arg);

/*
 * Reads as the bodies are now, after what the optimizer took out (stap decides which
 * globals the end prints after its optimizer too; embedded C's pragma:read is not one,
 * as in stap, which prints such a global at the end): an assignment's (or <<<'s, or
 * delete's) target is not read by it, and neither is a global's by a statement of its
 * own x++ or x += v (stap prints such a global at the end: display.c).
 */
static bool note_reads(struct node *n, void *arg)
{
	if (n->kind == ND_EXPR_STMT && n->lhs &&
	    (n->lhs->kind == ND_INCREMENT ||
	     (n->lhs->kind == ND_ASSIGN && strcmp(n->lhs->op, "=") != 0)) &&
	    global_target(n->lhs->lhs)) {
		note_target_reads(n->lhs->lhs, arg);
		walk_nodes(n->lhs->rhs, note_reads, arg);
		return false;
	}
	/* delete of a local keeps it, as stap: its assignments stay (they are typed) */
	if (n->kind == ND_DELETE && n->lhs->kind == ND_VAR && n->lhs->sym &&
	    n->lhs->sym->kind != SYM_GLOBAL) {
		n->lhs->sym->read = true;
		return false;
	}
	if ((n->kind == ND_ASSIGN && strcmp(n->op, "=") == 0) || n->kind == ND_ACCUMULATE ||
	    n->kind == ND_DELETE) {
		if (n->lhs->kind == ND_VAR || (n->lhs->kind == ND_INDEX && n->lhs->lhs->kind == ND_VAR)) {
			note_target_reads(n->lhs, arg);
			walk_nodes(n->rhs, note_reads, arg);
			return false;
		}
	}
	if (n->kind == ND_VAR && n->sym)
		n->sym->read = true;
	if (n->kind == ND_FOREACH) {	/* its keys and value it writes */
		if (n->foreach->array->sym)
			n->foreach->array->sym->read = true;
		walk_nodes(n->foreach->array, note_reads, arg);
		for (struct node *f = n->foreach->filter; f; f = f->next)
			walk_nodes(f, note_reads, arg);
		walk_nodes(n->foreach->limit, note_reads, arg);
		walk_nodes(n->then, note_reads, arg);
		return false;
	}
	return true;
}

static void note_target_reads(struct node *target, void *arg)
{
	if (target->kind == ND_INDEX)
		for (struct node *k = target->args; k; k = k->next)
			walk_nodes(k, note_reads, arg);
}

static void recount_reads(struct elaborator *el)
{
	for (struct symbol *g = el->prog->globals; g; g = g->next_used)
		g->read = false;
	for (struct probe_body *h = el->prog->bodies; h; h = h->next)
		for (struct symbol *l = h->locals; l; l = l->next)
			l->read = false;
	for (struct function *f = el->prog->functions; f; f = f->next_used) {
		for (struct symbol *l = f->locals; l; l = l->next)
			l->read = false;
		for (struct symbol *p = f->params; p; p = p->next)
			p->read = false;
	}
	for (struct probe_body *h = el->prog->bodies; h; h = h->next)
		if (!h->elided)
			walk_nodes(h->body, note_reads, el);
	for (struct function *f = el->prog->functions; f; f = f->next_used)
		walk_nodes(f->body, note_reads, el);
	for (struct derived_probe *dp = el->prog->probes; dp; dp = dp->next)
		if (!dp->handler->elided)
			walk_nodes(dp->condition, note_reads, el);
}

/* At -vvv, like stap, each local dropped is named. */
static void drop_unused_locals(struct elaborator *el, struct symbol **lp)
{
	while (*lp) {
		if ((*lp)->still_used) {
			lp = &(*lp)->next;
			continue;
		}
		if (verbose_at(el->session, 2, 3))
			semantic_warning(el, (*lp)->tok, "Eliding unused variable '%s'", (*lp)->name);
		*lp = (*lp)->next;
	}
}

/* Drops functions nothing calls any more and, with VARIABLES too, the globals and locals
 * nothing refers to. */
static void drop_unused(struct elaborator *el, bool variables)
{
	struct function **fp;
	struct symbol **gp;

	for (struct function *f = el->prog->functions; f; f = f->next_used)
		f->still_used = false;
	for (struct symbol *g = el->prog->globals; g; g = g->next_used)
		g->still_used = false;
	for (struct probe_body *h = el->prog->bodies; h; h = h->next) {
		for (struct symbol *l = h->locals; l; l = l->next)
			l->still_used = false;
		if (!h->elided)
			walk_nodes(h->body, note_use, el);
	}
	for (struct derived_probe *dp = el->prog->probes; dp; dp = dp->next)
		if (!dp->handler->elided)
			walk_nodes(dp->condition, note_use, el);
	/* functions called only by dropped functions go too: iterate */
	for (bool more = true; more;) {
		more = false;
		for (struct function *f = el->prog->functions; f; f = f->next_used)
			if (f->still_used && !f->walked) {
				f->walked = true;
				for (struct symbol *l = f->locals; l; l = l->next)
					l->still_used = false;
				walk_nodes(f->body, note_use, el);
				more = true;
			}
	}
	for (fp = &el->prog->functions; *fp;) {
		if ((*fp)->still_used) {
			(*fp)->walked = false;
			fp = &(*fp)->next_used;
		} else {
			(*fp)->used = false;
			*fp = (*fp)->next_used;
			el->prog->nfunctions--;
		}
	}
	if (!variables)
		return;
	for (gp = &el->prog->globals; *gp;) {
		if ((*gp)->still_used) {
			gp = &(*gp)->next_used;
		} else {
			(*gp)->used = false;
			*gp = (*gp)->next_used;
			el->prog->nglobals--;
		}
	}
	for (struct probe_body *h = el->prog->bodies; h; h = h->next)
		drop_unused_locals(el, &h->locals);
	for (struct function *f = el->prog->functions; f; f = f->next_used)
		drop_unused_locals(el, &f->locals);
}

/*
 * Whether a probe of H stays with an empty handler: a perf counter does something, and
 * stap keeps a probe with a condition that is not a constant (its condition is state it
 * keeps: no "has been elided" for it).
 */
static bool works_without_handler(struct elaborator *el, struct probe_body *h)
{
	int64_t value;

	for (struct derived_probe *dp = el->prog->probes; dp; dp = dp->next) {
		if (dp->handler != h)
			continue;
		if (dp->family->works_without_handler && dp->family->works_without_handler(dp))
			return true;
		if (dp->condition && !constant_value(dp->condition, &value))
			return true;
	}
	return false;
}

/* The probes' indexes from 0 again, in their order, after some were dropped. */
static void renumber_probes(struct program *prog)
{
	int index = 0;

	for (struct derived_probe *dp = prog->probes; dp; dp = dp->next)
		dp->index = index++;
}

/* Handlers with nothing left to run go, with their probes; true if one did. */

static bool drop_inert_handlers(struct elaborator *el)
{
	struct derived_probe **dpp;
	bool dropped = false;

	for (struct probe_body *h = el->prog->bodies; h; h = h->next) {
		if (h->elided || (h->body && list_has_side_effects(h->body->body)) ||
		    works_without_handler(el, h))
			continue;
		h->elided = true;
		dropped = true;
		for (struct derived_probe *dp = el->prog->probes; dp; dp = dp->next)
			if (dp->handler == h) {
				semantic_warning(el, h->tok, "Probe '%s' has been elided",
						 probe_point_first_name(dp->point));
				break;
			}
	}
	for (dpp = &el->prog->probes; *dpp;) {
		if ((*dpp)->handler->elided) {
			*dpp = (*dpp)->next;
			el->prog->nprobes--;
		} else {
			dpp = &(*dpp)->next;
		}
	}
	if (dropped)	/* stp_probes[] has no holes: the runtime walks all of it (-t) */
		renumber_probes(el->prog);
	return dropped;
}

static void optimize_bodies(struct optimizer *o, enum walk walk)
{
	o->walk = walk;
	for (struct probe_body *h = o->el->prog->bodies; h; h = h->next)
		if (!h->elided)
			h->body->body = optimize_list(o, h->body->body);
	for (struct function *f = o->el->prog->functions; f; f = f->next_used) {
		if (!f->body)
			continue;
		f->body->body = optimize_list(o, f->body->body);
		if (o->elide && walk == ELIDE_STATEMENTS && !f->body->body && o->round == 0)
			semantic_warning(o->el, f->tok, "side-effect-free function '%s'", f->name);
	}
}

static bool is_next(struct node *n, void *arg)
{
	*(bool *)arg |= n->kind == ND_NEXT;
	return !*(bool *)arg;
}

/* A function whose body has "next" (STAP_NEXT in embedded C) may pass a call on to the
 * following overload. */
bool may_pass_call_on(struct function *f)
{
	bool found = false;

	if (f->embedded)
		return strstr(f->embedded->text, "STAP_NEXT") != NULL;
	walk_nodes(f->body, is_next, &found);
	return found;
}

/*
 * After the types (which stap checks against every overload of a call): an overload
 * chain ends at the first function that cannot pass a call on, and those after it,
 * which never run, go as unused (of two definitions alike, the first stays).
 */
void drop_unreachable_overloads(struct elaborator *el)
{
	for (struct function *f = el->prog->functions; f; f = f->next_used)
		if (f->next_overload && !may_pass_call_on(f))
			f->next_overload = NULL;
	drop_unused(el, true);
}

/* With -u, after the types: the functions no longer called go (stap -u keeps unused
 * variables, typed by what no longer runs, but not such functions). */
void drop_uncalled_functions(struct elaborator *el)
{
	drop_unused(el, false);
}

/* With ELIDE false (-u), constants fold, dead branches go and an expression statement is
 * split into its parts (a call of a function without effects into its arguments), but
 * nothing else goes (drop_uncalled_functions() after the types). */
void optimize(struct elaborator *el, bool elide)
{
	struct optimizer o = { .el = el, .elide = elide };

	do {
		o.changed = false;
		find_impure_functions(el);
		recount_reads(el);
		optimize_bodies(&o, ELIDE_ASSIGNMENTS);
		optimize_bodies(&o, ELIDE_STATEMENTS);
		if (elide)
			drop_unused(el, true);
		o.round++;
	} while (o.changed);
	/* what only the handlers dropped used goes too (a function they alone called,
	 * whose parameters nothing else would give a type) */
	if (elide && drop_inert_handlers(el))
		drop_unused(el, true);
}
