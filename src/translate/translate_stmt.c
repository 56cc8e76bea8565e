/*
 * translate_stmt.c - pass 3: statements as lines of C in a handler or function body.
 *
 * Each statement (and each loop iteration) spends one MAXACTION unit, charged in lumps as
 * stap charges them (charge()); a soft error unwinds to `out` (or to the enclosing catch).
 */
#include "translate.h"
#include "emit.h"

#include <stdlib.h>
#include <string.h>

static void indent(struct strbuf *sb, int depth)
{
	for (int i = 0; i < depth; i++)
		sb_putc(sb, '\t');
}

void body_line(struct body *b, int depth, const char *fmt, ...)
{
	va_list ap;

	indent(&b->code, depth);
	va_start(ap, fmt);
	sb_vprintf(&b->code, fmt, ap);
	va_end(ap);
	sb_putc(&b->code, '\n');
}

/*
 * A handler's literals wait in its table; the code holds "\001K<n>\001" in their place
 * until share_handlers() chooses the literal or _K[n] (c_string() escapes control bytes,
 * so no literal holds the marker).
 */
char *body_literal(struct body *b, char *lit)
{
	char *marker;

	if (!b->hoist)
		return lit;
	marker = xasprintf("\001K%d\001", b->consts.count);
	strlist_add(&b->consts, lit);
	free(lit);
	return marker;
}

char *body_location(struct body *b, struct token *tok)
{
	return body_literal(b, c_location(tok));
}

/* ---- statements ---- */

/*
 * MAXACTION, charged as stap 4.8 charges it (measured in the guest; doc/runtime.md): a
 * statement spends one action and a loop iteration one, but the spending is written down
 * in lumps, at the points where control flow may go elsewhere: an if, a loop or a try
 * charges what is owed (with its own action) before it decides anything, a jump (break,
 * continue, next, return) before it jumps, and the end of a block, a branch or a loop
 * body what its statements owe after they ran.  The hit fails when its budget reaches 0,
 * named at the place of the lump that spent it.  A for loop with an initializer spends
 * two before its first iteration, a while loop one; the iteration that finds the
 * condition false owes its action to the next lump after the loop.  stap's optimizer
 * merges nested blocks and takes a block of one statement for that statement, so the
 * places are those unless -u.  B->pending is what the code written so far owes.
 */
static void charge(struct body *b, struct token *tok, int depth)
{
	char *where;

	if (b->counted) {	/* the handler's whole count was checked at its start */
		b->pending = 0;
		return;
	}
	if (b->entry_open) {	/* always runs, and first: charged at the function's entry */
		b->entry_open = false;
		b->entry_lump = b->pending;
		b->pending = 0;
		return;
	}
	if (b->pending <= 0)
		return;
	where = body_location(b, tok);
	body_line(b, depth, "if (unlikely((c->actions_remaining -= %d) <= 0) && "
		  "stp_out_of_actions(c, %s))", b->pending, where);
	body_line(b, depth + 1, "goto out;");
	b->pending = 0;
	free(where);
}

static bool calls_script_function(struct node *n, void *found)
{
	if (n->kind == ND_CALL && n->func && !n->func->embedded)
		*(bool *)found = true;
	return !*(bool *)found;
}

/*
 * The actions of a handler without loops or calls of script functions: each statement
 * but a block or a try, in every branch; -1 for any other handler.  stap 4.8 checks such
 * a handler's count against the budget once, before it runs (measured: four println()s
 * with a budget of 3 print nothing, "MAXACTION exceeded" without a place; with 4, all
 * four and no error), and charges nothing while it runs.  Not with -u (measured: the
 * handler runs, then its block's lump fails).
 */
static int counted_actions(struct node *n)
{
	int total = 0, part;
	bool calls = false;

	for (; n; n = n->next) {
		switch (n->kind) {
		case ND_FOR:
		case ND_FOREACH:
			return -1;
		case ND_NULL_STMT:
			continue;
		case ND_BLOCK:
			part = counted_actions(n->body);
			break;
		case ND_IF:
		case ND_TRY:
			part = counted_actions(n->then);
			if (part >= 0 && n->els) {
				int els = counted_actions(n->els);

				part = els < 0 ? -1 : part + els;
			}
			if (part >= 0 && n->kind == ND_IF)
				part++;
			break;
		default:
			part = 1;
			break;
		}
		walk_nodes(n->kind == ND_IF ? n->cond : n->kind == ND_BLOCK || n->kind == ND_TRY ?
			   NULL : n, calls_script_function, &calls);
		if (part < 0 || calls)
			return -1;
		total += part;
	}
	return total;
}

static bool is_return(struct node *n, void *found)
{
	*(bool *)found |= n->kind == ND_RETURN;
	return !*(bool *)found;
}

/*
 * A function's actions, as stap charges them: its first lump at its entry, named at its
 * name where it is defined, and a return's own action with the caller's lump after the
 * call, named at the call (charge_call()).
 */
void translate_function_body(struct body *b, struct function *f)
{
	struct strbuf code;
	char *where;

	b->entry_open = true;
	translate_part(b, f->body, 1);
	b->entry_open = false;
	if (b->entry_lump <= 0)
		return;
	code = b->code;
	b->code = (struct strbuf){ 0 };
	where = body_location(b, f->tok);
	body_line(b, 1, "if (unlikely((c->actions_remaining -= %d) <= 0) && "
		  "stp_out_of_actions(c, %s))", b->entry_lump, where);
	body_line(b, 2, "goto out;");
	sb_puts(&b->code, code.data ? code.data : "");
	sb_free(&code);
	free(where);
}

/*
 * After a call of script function F that returns through a return statement: its
 * return's action and what the caller owes, in SB's expression (where an operand may
 * not run, only the return's: the caller's lump stays for a place that always runs).
 */
void charge_call(struct body *b, struct node *call, struct function *f, struct strbuf *sb)
{
	bool returns = false;
	int amount;
	char *where;

	if (f->embedded || !f->body)
		return;
	walk_nodes(f->body, is_return, &returns);
	if (!returns)
		return;
	amount = 1 + (b->conditional ? 0 : b->pending);
	if (!b->conditional)
		b->pending = 0;
	where = body_location(b, call->tok);
	sb_printf(sb, "if (likely(!c->last_error) && unlikely((c->actions_remaining -= %d) <= 0)) "
		  "stp_out_of_actions(c, %s); ", amount, where);
	free(where);
}

/* How many statements a block holds, nested blocks merged, empty ones left out; ONE gets
 * the last of them. */
static int block_statements(struct node *block, struct node **one)
{
	int count = 0;

	for (struct node *s = block->body; s; s = s->next) {
		if (s->kind == ND_BLOCK)
			count += block_statements(s, one);
		else if (s->kind != ND_NULL_STMT) {
			*one = s;
			count++;
		}
	}
	return count;
}

/* The place a lump owed at the end of N is charged at: a block's, or the statement a
 * block of one statement is. */
static struct token *lump_place(struct body *b, struct node *n)
{
	struct node *one;

	while (n->kind == ND_BLOCK && !b->t->session->unoptimized && block_statements(n, &one) == 1)
		n = one;
	return n->tok;
}

/* A loop body, a branch, a try or catch block, a function's body: its statements, then
 * what they owe. */
void translate_part(struct body *b, struct node *n, int depth)
{
	if (!n)
		return;
	translate_statement(b, n, depth);
	charge(b, lump_place(b, n), depth);
}

/* A scope of stable values (function_call() in translate_expr.c) opens; returns the one
 * it is in, which close_stable_scope() gets back. */
static int open_stable_scope(struct body *b)
{
	int outer = b->scope;

	b->scope = ++b->scopes;
	return outer;
}

/* The values kept in the scope that closes are not seen after it. */
static void close_stable_scope(struct body *b, int outer)
{
	for (int k = 0; k < b->nstables; k++)
		if (b->stable_scope[k] == b->scope)
			b->stable_scope[k] = -1;
	b->scope = outer;
}

/* An if's branch: a scope of stable values outside loops, as in stap (measured: a call in
 * each branch and one after the if call it twice, but a branch in a loop keeps its value
 * for after the loop unless it is a block of its own). */
static void translate_branch(struct body *b, struct node *n, int depth)
{
	int outer = b->loops ? -1 : open_stable_scope(b);

	translate_part(b, n, depth);
	if (outer >= 0)
		close_stable_scope(b, outer);
}

/* A statement names itself for error messages (other than MAXACTION's). */
static void statement_prologue(struct body *b, struct node *n, int depth)
{
	char *where = body_location(b, n->tok);

	body_line(b, depth, "c->last_stmt = %s;", where);
	free(where);
}

static void check_error(struct body *b, int depth)
{
	body_line(b, depth, "if (unlikely(c->last_error))");
	body_line(b, depth + 1, "goto %s;", b->error_label);
}

/* A loop's iteration owes an action, charged with its body's statements. */
static void loop_prologue(struct body *b, int depth)
{
	check_error(b, depth);
	b->pending = 1;
}

/* Whether a loop's body breaks out of it (not out of a loop inside it). */
static bool breaks_out(struct node *n)
{
	if (!n)
		return false;
	switch (n->kind) {
	case ND_BREAK:
		return true;
	case ND_BLOCK:
		for (struct node *s = n->body; s; s = s->next)
			if (breaks_out(s))
				return true;
		return false;
	case ND_IF:
		return breaks_out(n->then) || breaks_out(n->els);
	case ND_TRY:
		return breaks_out(n->then) || breaks_out(n->els);
	default:
		return false;
	}
}

static void for_loop(struct body *b, struct node *n, int depth)
{
	/* init and incr are expression statements */
	struct node *init_expr = n->init && n->init->kind == ND_EXPR_STMT ? n->init->lhs : n->init;
	struct node *incr_expr = n->incr && n->incr->kind == ND_EXPR_STMT ? n->incr->lhs : n->incr;
	char *init = init_expr ? translate_expr(b, init_expr) : NULL;
	char *cond, *incr;

	b->conditional++;	/* they run each turn, with other lumps owed */
	cond = n->cond ? translate_expr(b, n->cond) : NULL;
	incr = incr_expr ? translate_expr(b, incr_expr) : NULL;
	b->conditional--;

	bool breaks = breaks_out(n->then);

	if (init)		/* the loop's own action is counted already */
		b->pending++;
	if (init) {
		body_line(b, depth, "(void)%s;", init);
		check_error(b, depth);
	}
	charge(b, n->tok, depth);
	body_line(b, depth, "for (;; %s%s%s) {", incr ? "(void)(" : "", incr ? incr : "", incr ? ")" : "");
	loop_prologue(b, depth + 1);
	if (cond) {
		int id = b->unique++;

		body_line(b, depth + 1, "s64 _cond%d = %s;", id, cond);
		check_error(b, depth + 1);
		body_line(b, depth + 1, "if (!_cond%d) {", id);
		/* the last iteration's action goes to the next lump, or here if a break
		   may leave the loop owing nothing */
		if (breaks) {
			charge(b, n->tok, depth + 2);
			b->pending = 1;
		}
		body_line(b, depth + 2, "break;");
		body_line(b, depth + 1, "}");
	}
	b->loops++;
	translate_part(b, n->then, depth + 1);
	b->loops--;
	charge(b, n->tok, depth + 1);	/* no body: the iteration's own, never skipped */
	body_line(b, depth, "}");
	b->pending = cond && !breaks ? 1 : 0;
	free(init);
	free(cond);
	free(incr);
}

/* A foreach key or value variable gets the entry's. */
static enum stap_type var_type(struct node *var)
{
	return var->sym ? var->sym->type : var->type;
}

static void assign_from_entry(struct body *b, struct node *var, const char *value, int depth)
{
	if (var_type(var) == TYPE_STRING)
		body_line(b, depth, "stp_string_copy(l->l_%s, %s);", var->string, value);
	else
		body_line(b, depth, "l->l_%s = %s;", var->string, value);
}

/* foreach (bucket in @hist_linear(x, ...)): every bucket number, out-of-range ones too */
static void foreach_bucket(struct body *b, struct node *n, int depth)
{
	struct foreach *fe = n->foreach;
	struct global_c *g;
	char *setup, *src = stat_source(b, fe->array->lhs, &setup, &g);
	int id = b->unique++;

	body_line(b, depth, "{");
	body_line(b, depth + 1, "%sconst struct stp_stat *_s%d = %s;", setup, id, src);
	body_line(b, depth + 1, "s64 _b%d;", id);
	if (fe->limit) {
		char *limit = translate_expr(b, fe->limit);

		body_line(b, depth + 1, "s64 _limit%d = %s;", id, limit);
		free(limit);
	}
	check_error(b, depth + 1);
	charge(b, n->tok, depth + 1);
	body_line(b, depth + 1, "for (_b%d = 0; _s%d && _b%d < %s_stat.buckets%s; _b%d++) {", id, id, id,
	     g->name, fe->limit ? xasprintf(" && _b%d < _limit%d", id, id) : "", id);
	loop_prologue(b, depth + 2);
	assign_from_entry(b, fe->keys, xasprintf("_b%d", id), depth + 2);
	if (fe->value)
		assign_from_entry(b, fe->value, xasprintf("stp_stat_bucket(_s%d, &%s_stat, _b%d)",
							  id, g->name, id), depth + 2);
	b->loops++;
	translate_part(b, n->then, depth + 2);
	b->loops--;
	charge(b, n->tok, depth + 2);
	body_line(b, depth + 1, "}");
	b->pending = 0;
	body_line(b, depth, "}");
	free(setup);
	free(src);
}

static void foreach_loop(struct body *b, struct node *n, int depth)
{
	struct foreach *fe = n->foreach;
	struct global_c *g = global_named(b->t, fe->array);
	int id = b->unique++;
	unsigned int mask = 0;
	int i = 0;

	if (fe->array->kind == ND_HIST) {
		foreach_bucket(b, n, depth);
		return;
	}

	body_line(b, depth, "{");
	depth++;
	if (g->is_stats)
		body_line(b, depth, "struct stp_map *_m%d = stp_pmap_aggregate(%s);", id, g->name);
	else
		body_line(b, depth, "struct stp_map *_m%d = %s;", id, g->name);
	body_line(b, depth, "struct stp_map_entry *_e%d;", id);
	if (g->is_stats) {
		/* the CPUs' keys together may be more than the array holds: stap's error */
		body_line(b, depth, "if (unlikely(stp_pmap_overflowed(%s)))", g->name);
		body_line(b, depth + 1, "stp_merge_overflow(c, &%s_desc);", g->name);
		check_error(b, depth);
	}
	if (fe->limit) {
		char *limit = translate_expr(b, fe->limit);

		body_line(b, depth, "s64 _limit%d = %s, _count%d = 0;", id, limit, id);
		check_error(b, depth);
		free(limit);
	}
	if (fe->filter) {
		char *setup = keys_setup(b, fe->filter, id, &mask);

		body_line(b, depth, "%s", setup);
		check_error(b, depth);
		free(setup);
	}
	if (fe->sort_key >= 0) {
		char top[32] = "0";	/* a limit sorts only the first ones, as stap's */

		if (fe->limit)
			snprintf(top, sizeof(top), "_limit%d", id);
		body_line(b, depth, "stp_map_sort(_m%d, %d, %d, %s, %s);", id, fe->sort_key,
		     fe->sort_direction, stat_aggregate(fe->sort_aggregate), top);
	}
	charge(b, n->tok, depth);
	body_line(b, depth, "for (_e%d = stp_map_first(_m%d); _e%d; _e%d = stp_map_next(_m%d, _e%d)) {",
	     id, id, id, id, id, id);
	loop_prologue(b, depth + 1);
	if (fe->filter) {
		body_line(b, depth + 1, "if (!stp_keys_match(&%s_desc, _e%d, _k%d, %#xu))", g->name, id,
		     id, mask);
		body_line(b, depth + 2, "continue;");
	}
	if (fe->limit) {
		body_line(b, depth + 1, "if (_count%d++ >= _limit%d)", id, id);
		body_line(b, depth + 2, "break;");
	}
	for (struct node *k = fe->keys; k; k = k->next, i++) {
		char *value = xasprintf(var_type(k) == TYPE_STRING ? "stp_entry_key_string(_e%d, %d)" :
								"stp_entry_key_long(_e%d, %d)", id, i);

		assign_from_entry(b, k, value, depth + 1);
		free(value);
	}
	if (fe->value) {
		char *value = xasprintf(var_type(fe->value) == TYPE_STRING ? "stp_entry_string(_e%d)" :
									 "*stp_entry_long(_e%d)", id);

		assign_from_entry(b, fe->value, value, depth + 1);
		free(value);
	}
	b->loops++;
	translate_part(b, n->then, depth + 1);
	b->loops--;
	charge(b, n->tok, depth + 1);
	body_line(b, depth, "}");
	b->pending = 0;
	depth--;
	body_line(b, depth, "}");
}

static void delete_statement(struct body *b, struct node *n, int depth)
{
	struct node *target = n->lhs;
	struct global_c *g = global_named(b->t, target);
	int id = b->unique++;

	/* the variable's type: a delete's own node may not have been given one */
	enum stap_type type = target->kind == ND_VAR && target->sym ? target->sym->type :
								      target->type;

	if (target->kind == ND_VAR && !g) {
		body_line(b, depth, type == TYPE_STRING ? "l->l_%s[0] = '\\0';" : "l->l_%s = 0;",
		     target->string);
	} else if (target->kind == ND_VAR && g->is_array) {
		body_line(b, depth, "%s(%s);", g->is_stats ? "stp_pmap_clear" : "stp_map_clear", g->name);
	} else if (target->kind == ND_VAR && g->is_stats) {
		body_line(b, depth, "stp_pstat_clear(%s);", g->name);
	} else if (target->kind == ND_VAR) {
		body_line(b, depth, type == TYPE_STRING ? "%s[0] = '\\0';" : "%s = 0;", g->name);
	} else {
		unsigned int mask;
		char *setup = keys_setup(b, target->args, id, &mask);

		body_line(b, depth, "{");
		body_line(b, depth + 1, "%s", setup);
		check_error(b, depth + 1);
		if (has_wildcard_key(target->args) && g->is_stats)
			body_line(b, depth + 1, "stp_delete_matching(stp_pmap_aggregate(%s), %s, &%s_desc, "
			     "_k%d, %#xu);", g->name, g->name, g->name, id, mask);
		else if (has_wildcard_key(target->args))
			body_line(b, depth + 1, "stp_delete_matching(%s, NULL, &%s_desc, _k%d, %#xu);",
			     g->name, g->name, id, mask);
		else
			body_line(b, depth + 1, "stp_%s_delete(%s, _k%d);", g->is_stats ? "pmap" : "map",
			     g->name, id);
		body_line(b, depth, "}");
		free(setup);
	}
}

/* try { } catch (msg) { }: a soft error in the try block goes to the catch block. */
static void try_catch(struct body *b, struct node *n, int depth)
{
	int id = b->unique++;
	const char *outer = b->error_label;
	char *label = xasprintf("catch_%d", id);

	charge(b, n->tok, depth);	/* a try spends nothing itself */
	body_line(b, depth, "{");
	b->error_label = label;
	translate_part(b, n->then, depth + 1);
	b->error_label = outer;
	body_line(b, depth + 1, "goto caught_%d;", id);
	body_line(b, depth, "catch_%d:", id);
	/* abort() and running out of actions are caught by no catch */
	body_line(b, depth + 1, "if (c->aborted || c->actions_remaining < 0)");
	body_line(b, depth + 2, "goto %s;", outer);
	if (n->catch_var)
		body_line(b, depth + 1, "stp_string_copy(l->l_%s, c->last_error);", n->catch_var->string);
	body_line(b, depth + 1, "c->last_error = NULL;");
	b->pending = 0;
	translate_part(b, n->els, depth + 1);
	body_line(b, depth, "caught_%d:", id);
	body_line(b, depth + 1, ";");
	body_line(b, depth, "}");
	free(label);
}

void translate_statement(struct body *b, struct node *n, int depth)
{
	char *x;

	if (!n)
		return;
	switch (n->kind) {
	case ND_BLOCK: {	/* what it owes is charged by its part (translate_part()) */
		int outer = open_stable_scope(b);	/* a block is a scope of stable values */

		for (struct node *s = n->body; s; s = s->next)
			translate_statement(b, s, depth);
		if (b->t->session->unoptimized)
			charge(b, n->tok, depth);
		close_stable_scope(b, outer);
		return;
	}
	case ND_NULL_STMT:
		return;
	case ND_TRY:
		break;
	default:
		b->pending++;
		break;
	}
	/* a statement that cannot fail needs no place for messages, nor a test after it */
	bool sure = n->kind == ND_EXPR_STMT && cannot_fail(b, n->lhs);

	if (!sure)
		statement_prologue(b, n, depth);
	switch (n->kind) {
	case ND_EXPR_STMT:
		if (sure) {
			x = translate_expr(b, n->lhs);
			body_line(b, depth, "(void)%s;", x);
			free(x);
			break;
		}
		if (n->lhs->kind == ND_EMBEDDED_EXPR) {
			/* `%{ CODE %}` as a statement is CODE as one, whatever its value:
			   STAP_GLOBAL_SET_x(...) in it is a statement */
			body_line(b, depth, "{ %s; }", n->lhs->string);
			check_error(b, depth);
			break;
		}
		x = translate_expr(b, n->lhs);
		body_line(b, depth, "(void)%s;", x);
		free(x);
		check_error(b, depth);
		break;
	case ND_IF: {
		int id = b->unique++;

		charge(b, n->tok, depth);
		x = translate_expr(b, n->cond);
		body_line(b, depth, "{");
		body_line(b, depth + 1, "s64 _cond%d = %s;", id, x);
		free(x);
		check_error(b, depth + 1);
		body_line(b, depth + 1, "if (_cond%d) {", id);
		translate_branch(b, n->then, depth + 2);
		if (n->els) {
			body_line(b, depth + 1, "} else {");
			translate_branch(b, n->els, depth + 2);
		}
		body_line(b, depth + 1, "}");
		body_line(b, depth, "}");
		break;
	}
	case ND_FOR:
		for_loop(b, n, depth);
		break;
	case ND_FOREACH:
		foreach_loop(b, n, depth);
		break;
	case ND_BREAK:
		charge(b, n->tok, depth);
		body_line(b, depth, "break;");
		break;
	case ND_CONTINUE:
		charge(b, n->tok, depth);
		body_line(b, depth, "continue;");
		break;
	case ND_DELETE:
		delete_statement(b, n, depth);
		break;
	case ND_TRY:
		try_catch(b, n, depth);
		break;
	case ND_RETURN:
		if (n->lhs) {
			x = translate_expr(b, n->lhs);
			if (b->function->return_type == TYPE_STRING)
				body_line(b, depth, "stp_string_copy(l->__retvalue, %s);", x);
			else
				body_line(b, depth, "l->__retvalue = %s;", x);
			free(x);
			check_error(b, depth);
		}
		if (b->function)	/* its own action is the caller's to charge */
			b->pending--;
		charge(b, n->tok, depth);
		body_line(b, depth, "goto out;");
		break;
	case ND_NEXT:		/* in a function: the next overload takes the call */
		charge(b, n->tok, depth);
		if (b->function)
			body_line(b, depth, "c->next_called = true;");
		body_line(b, depth, "goto out;");
		break;
	default:
		break;
	}
}

/*
 * A probe handler's statements, with the globals' locks pushed down to them, as stap
 * (since 4.4) does: a run of consecutive top-level statements that use globals is a lock
 * region, which takes the locks of the globals the run uses (in the globals' order) and
 * releases them after it; the statements between regions run with no lock held.  So a
 * handler that updates a counter and then does something slow (a udelay() in embedded C,
 * a long loop over locals) holds the counter's lock only for the update, and other CPUs'
 * hits do not time out waiting for it.  A region that cannot take its locks ends the
 * hit there, counted as skipped.  The handler's C keeps the region it holds in _held and
 * _nheld, so that leaving early (an error, next, MAXACTION) releases it (emit_body()).
 */
void translate_handler(struct body *b, struct node *body, int depth)
{
	struct node one = { 0 }, *first;
	int open = -1;		/* the region being written, or -1 */
	/* stap -u charges such a handler as any other, after its statements ran */
	int counted = body && !b->t->session->unoptimized ? counted_actions(body) : 0;

	if (counted > 0) {
		body_line(b, depth, "if (unlikely(c->actions_remaining < %d) && stp_out_of_actions(c, \"\"))",
			  counted);
		body_line(b, depth + 1, "goto out;");
		b->counted = true;
	}

	if (body && body->kind == ND_BLOCK) {
		first = body->body;
	} else {
		if (body) {
			one = *body;
			one.next = NULL;
		}
		first = body ? &one : NULL;
	}
	for (struct node *s = first; s; s = s->next) {
		enum global_access *used = handler_access(b->t, s);
		bool uses = false;

		for (int g = 0; g < b->t->nglobals; g++)
			uses |= used[g] != ACCESS_NONE;
		if (uses && open < 0) {
			open = b->nregions++;
			b->regions = xrealloc(b->regions, b->nregions * sizeof(*b->regions));
			b->regions[open] = used;
			body_line(b, depth, "if (!stp_lock_globals(%s_locks_%d, %s_nlocks_%d))",
				  b->frame, open, b->frame, open);
			body_line(b, depth + 1, "goto out;");
			body_line(b, depth, "_held = %s_locks_%d;", b->frame, open);
			body_line(b, depth, "_nheld = %s_nlocks_%d;", b->frame, open);
		} else if (uses) {
			for (int g = 0; g < b->t->nglobals; g++)
				if (b->regions[open][g] < used[g])
					b->regions[open][g] = used[g];
			free(used);
		} else {
			free(used);
			if (open >= 0) {
				body_line(b, depth, "stp_unlock_globals(_held, _nheld);");
				body_line(b, depth, "_held = NULL;");
				open = -1;
			}
		}
		translate_statement(b, s, depth);
	}
	if (body)
		charge(b, lump_place(b, body), depth);
}
