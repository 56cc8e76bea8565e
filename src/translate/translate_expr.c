/*
 * translate_expr.c - pass 3: expressions as C expressions.
 *
 * Each expression becomes one C expression, often a GNU statement expression ({ ... })
 * that evaluates its operands left to right into C temporaries (_v1, _k2[...]) and stops
 * at the first soft error (c->last_error).  Values are s64 or const char *; a string
 * that needs storage gets a temporary in the frame (l->_tmpN, MAXSTRINGLEN bytes).
 *
 * A target variable, @var or @cast (a target_access, stap.h) becomes one statement
 * expression: the address (or value) its location gives, each step through memory, then
 * the result, all through the runtime's fault-safe reads (runtime/target_vars.c).  The
 * handler's error location is set to the target expression first, so a bad pointer's
 * soft error names it: "kernel read fault at 0x... near identifier '$file' at
 * script.stp:3:9".  Its steps' index expressions are expressions again (hence one file).
 */
#include "translate.h"
#include "emit.h"
#include "debuginfo/ctype.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

const char *stat_aggregate(const char *name)
{
	static const char *const names[][2] = {
		{ "@count", "STP_AGG_COUNT" }, { "@sum", "STP_AGG_SUM" }, { "@min", "STP_AGG_MIN" },
		{ "@max", "STP_AGG_MAX" }, { "@avg", "STP_AGG_AVG" },
		{ "@variance", "STP_AGG_VARIANCE" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (name && strcmp(name, names[i][0]) == 0)
			return names[i][1];
	return "STP_AGG_COUNT";
}

static char *translate_target(struct body *b, struct node *n);
static char *translate_target_place(struct body *b, struct node *n, int id);

/* ---- expressions ---- */

static bool has_side_effects(struct node *n)
{
	if (!n)
		return false;
	switch (n->kind) {
	case ND_ASSIGN: case ND_CALL: case ND_PRINT: case ND_INCREMENT: case ND_ACCUMULATE:
	case ND_INDEX: case ND_STAT: case ND_HIST: case ND_IN: case ND_EMBEDDED_EXPR:
	case ND_REGEX:
		return true;	/* or may raise an error, or uses temporaries; =~ sets matched() */
	case ND_BINARY:
		if (strcmp(n->op, "/") == 0 || strcmp(n->op, "%") == 0)
			return true;
		break;
	default:
		break;
	}
	return has_side_effects(n->lhs) || has_side_effects(n->rhs) ||
	       has_side_effects(n->cond) || has_side_effects(n->then) ||
	       has_side_effects(n->els);
}

/* A local variable of the body (a probe's or function's), not a global, a target
 * variable or a procfs probe's $value. */
static bool is_local(struct body *b, struct node *n)
{
	return n->kind == ND_VAR && !n->access && !global_of(b->t, n->sym) &&
	       !is_procfs_value(b, n);
}

/*
 * Whether evaluating N can raise no error: numbers, strings, locals, and the operators
 * on them but division and modulo (by zero), an assignment to a local among them.  Its
 * statement needs no place for messages and no test after it (translate_statement()).
 */
bool cannot_fail(struct body *b, struct node *n)
{
	if (!n)
		return true;
	switch (n->kind) {
	case ND_NUMBER: case ND_STRING:
		return true;
	case ND_VAR:
		return is_local(b, n);
	case ND_BINARY:
		if (strcmp(n->op, "/") == 0 || strcmp(n->op, "%") == 0)
			return false;
		break;
	case ND_ASSIGN:
		if (strcmp(n->op, "/=") == 0 || strcmp(n->op, "%=") == 0)
			return false;
		break;
	case ND_COMPARE: case ND_LOGICAL: case ND_UNARY: case ND_TERNARY: case ND_CONCAT:
		break;
	default:
		return false;
	}
	return cannot_fail(b, n->lhs) && cannot_fail(b, n->rhs) && cannot_fail(b, n->cond) &&
	       cannot_fail(b, n->then) && cannot_fail(b, n->els);
}

int new_temp(struct body *b)
{
	return b->ntemps++;
}

static const char *c_type(enum stap_type type)
{
	return type == TYPE_STRING ? "const char *" : "s64 ";
}

/* The C for "a OP b" on longs, given operand expressions that are safe to repeat. */
static char *long_operation(struct body *body, const char *op, const char *a, const char *b,
			    struct token *tok)
{
	if (strcmp(op, "/") == 0 || strcmp(op, "%") == 0) {
		char *where = body_location(body, tok);
		char *s = xasprintf("stp_%s(c, %s, %s, %s)", op[0] == '/' ? "divide" : "modulo",
				    a, b, where);

		free(where);
		return s;
	}
	if (strcmp(op, "<<") == 0)
		return xasprintf("stp_shift_left(%s, %s)", a, b);
	if (strcmp(op, ">>") == 0)
		return xasprintf("stp_shift_right(%s, %s)", a, b);
	if (strcmp(op, ">>>") == 0)
		return xasprintf("stp_shift_right_logical(%s, %s)", a, b);
	if (strcmp(op, "+") == 0 || strcmp(op, "-") == 0 || strcmp(op, "*") == 0)
		return xasprintf("(s64)((u64)(%s) %s (u64)(%s))", a, op, b);	/* wraps */
	return xasprintf("(%s %s %s)", a, op, b);
}

/* Evaluates both operands left to right into C temporaries when order matters. */
static char *ordered_operands(struct body *b, struct node *n, char **left, char **right)
{
	char *lhs = translate_expr(b, n->lhs), *rhs = translate_expr(b, n->rhs);
	int id = b->unique++;
	char *prologue;

	if (!has_side_effects(n->lhs) && !has_side_effects(n->rhs)) {
		*left = lhs;
		*right = rhs;
		return xstrdup("");
	}
	*left = xasprintf("_l%d", id);
	*right = xasprintf("_r%d", id);
	prologue = xasprintf("%s%s = %s; %s%s = %s; ", c_type(n->lhs->type), *left, lhs,
			     c_type(n->rhs->type), *right, rhs);
	free(lhs);
	free(rhs);
	return prologue;
}

static char *arithmetic(struct body *b, struct node *n, const char *left, const char *right)
{
	return long_operation(b, n->op, left, right, n->tok);
}

static char *comparison(struct body *b, struct node *n, const char *left, const char *right)
{
	(void)b;	/* the same shape as arithmetic() for binary() */
	if (n->lhs->type == TYPE_STRING)
		return xasprintf("(s64)(stp_string_compare(%s, %s) %s 0)", left, right, n->op);
	return xasprintf("(s64)(%s %s %s)", left, n->op, right);
}

/* A binary operator's C, OPERATION of its operands (evaluated in order first if need be). */
static char *binary(struct body *b, struct node *n,
		    char *(*operation)(struct body *b, struct node *n, const char *left,
				       const char *right))
{
	char *left, *right, *prologue = ordered_operands(b, n, &left, &right);
	char *op = operation(b, n, left, right);
	char *s = *prologue ? xasprintf("({ %s%s; })", prologue, op) : xstrdup(op);

	free(op);
	free(prologue);
	free(left);
	free(right);
	return s;
}

static char *concat(struct body *b, struct node *n)
{
	char *lhs = translate_expr(b, n->lhs), *rhs = translate_expr(b, n->rhs);
	int temp = new_temp(b);
	int id = b->unique++;
	/* the right side may use the same temporaries as the left: take it first */
	char *s = xasprintf("({ const char *_a%d = %s; const char *_b%d = %s; "
			    "stp_string_concat(l->_tmp%d, _a%d, _b%d); })",
			    id, lhs, id, rhs, temp, id, id);

	free(lhs);
	free(rhs);
	return s;
}

/*
 * "union stp_key __kID[N]; __kID[0].l = ...;" evaluating the index expressions in order;
 * MASK gets a bit for each position given (not a '*' wildcard).
 */
char *keys_setup(struct body *b, struct node *args, int id, unsigned int *mask)
{
	struct strbuf sb = { 0 };
	int i = 0, nargs = 0;

	for (struct node *a = args; a; a = a->next)
		nargs++;
	sb_printf(&sb, "union stp_key _k%d[%d]; ", id, nargs ? nargs : 1);
	if (mask)
		*mask = 0;
	for (struct node *a = args; a; a = a->next, i++) {
		char *v;

		if (a->kind == ND_WILDCARD) {
			sb_printf(&sb, "_k%d[%d].l = 0; ", id, i);
			continue;
		}
		if (mask)
			*mask |= 1u << i;
		v = translate_expr(b, a);
		sb_printf(&sb, "_k%d[%d].%c = %s; ", id, i, a->type == TYPE_STRING ? 's' : 'l', v);
		free(v);
	}
	return sb_steal(&sb);
}

bool has_wildcard_key(struct node *args)
{
	for (struct node *a = args; a; a = a->next)
		if (a->kind == ND_WILDCARD)
			return true;
	return false;
}

/* A statistic's current value (const struct stp_stat *, NULL when empty) and its setup. */
char *stat_source(struct body *b, struct node *n, char **setup, struct global_c **gp)
{
	struct global_c *g = global_named(b->t, n);
	int id;

	*gp = g;
	if (n->kind == ND_VAR) {
		*setup = xstrdup("");
		return xasprintf("stp_pstat_aggregate(%s)", g->name);
	}
	id = b->unique++;
	*setup = keys_setup(b, n->args, id, NULL);
	return xasprintf("stp_pmap_lookup(%s, _k%d)", g->name, id);
}

static char *stat_value(struct body *b, struct node *n)
{
	struct global_c *g;
	char *setup, *src = stat_source(b, n->lhs, &setup, &g);
	char *where = body_location(b, n->tok);	/* stap places "empty aggregate" at @min */
	int id = b->unique++;
	char *s = xasprintf("({ %sconst char *_w%d = c->last_stmt; c->last_stmt = %s; "
			    "s64 _a%d = stp_stat_value(c, %s, &%s_stat, %s); "
			    "if (likely(!c->last_error)) c->last_stmt = _w%d; _a%d; })",
			    setup, id, where, id, src, g->name, stat_aggregate(n->string), id, id);

	free(setup);
	free(src);
	free(where);
	return s;
}

/* @hist_log(x)[i] */
static char *hist_bucket(struct body *b, struct node *n)
{
	struct global_c *g;
	char *setup, *src = stat_source(b, n->lhs->lhs, &setup, &g);
	char *index = translate_expr(b, n->args);
	char *where = body_location(b, n->lhs->tok);	/* stap's "empty aggregate" names @hist_* */
	int id = b->unique++;
	char *s = xasprintf("({ %sconst struct stp_stat *_s%d = %s; s64 _i%d = %s; "
			    "stp_stat_nonempty(c, _s%d, %s) ? "
			    "stp_stat_bucket(_s%d, &%s_stat, _i%d) : 0; })",
			    setup, id, src, id, index, id, where, id, g->name, id);

	free(setup);
	free(src);
	free(index);
	free(where);
	return s;
}

/* print(@hist_*(x)), or (temp >= 0) sprint(@hist_*(x)): the drawing in a string; an
 * empty statistic is stap's error "empty aggregate" */
static char *print_histogram(struct body *b, struct node *hist, int temp)
{
	struct global_c *g;
	char *setup, *src = stat_source(b, hist->lhs, &setup, &g);
	int id = b->unique++;
	char *out = temp < 0 ? xstrdup("NULL") : xasprintf("l->_tmp%d", temp);
	char *clear = temp < 0 ? xstrdup("") : xasprintf("%s[0] = '\\0'; ", out);
	char *s = xasprintf("({ %sconst struct stp_stat *_s%d = %s; %s"
			    "if (likely(!c->last_error) && stp_stat_nonempty(c, _s%d, NULL)) "
			    "stp_stat_print_hist(_s%d, &%s_stat, %s); %s; })",
			    setup, id, src, clear, id, id, g->name, out,
			    temp < 0 ? "(s64)0" : out);

	free(setup);
	free(src);
	free(out);
	free(clear);
	return s;
}

/* An array element's value: 0 or "" when it is not there. */
static char *array_read(struct body *b, struct node *n)
{
	struct global_c *g = global_named(b->t, n);
	int id = b->unique++;
	char *setup = keys_setup(b, n->args, id, NULL);
	char *s;

	if (n->type == TYPE_STRING)
		s = xasprintf("({ %sstruct stp_map_entry *_e%d = stp_map_find(%s, _k%d); "
			      "stp_string_copy(l->_tmp%d, _e%d ? stp_entry_string(_e%d) : \"\"); })",
			      setup, id, g->name, id, new_temp(b), id, id);
	else
		s = xasprintf("({ %sstruct stp_map_entry *_e%d = stp_map_find(%s, _k%d); "
			      "_e%d ? *stp_entry_long(_e%d) : 0; })",
			      setup, id, g->name, id, id, id);
	free(setup);
	return s;
}

static char *membership(struct body *b, struct node *n)
{
	struct global_c *g = global_named(b->t, n->lhs);
	int id = b->unique++;
	unsigned int mask;
	char *setup = keys_setup(b, n->args, id, &mask);
	char *test;
	char *s;

	if (has_wildcard_key(n->args))
		test = xasprintf("stp_map_exists_matching(%s%s%s, &%s_desc, _k%d, %#xu)",
				 g->is_stats ? "stp_pmap_aggregate(" : "", g->name,
				 g->is_stats ? ")" : "", g->name, id, mask);
	else if (g->is_stats)
		test = xasprintf("stp_pmap_lookup(%s, _k%d) != NULL", g->name, id);
	else
		test = xasprintf("stp_map_find(%s, _k%d) != NULL", g->name, id);
	s = xasprintf("({ %s(s64)(%s); })", setup, test);
	free(setup);
	free(test);
	return s;
}

/*
 * Where an assignment stores: SETUP evaluates the keys, LOCATE finds or makes the element
 * (and may raise "Array overflow"), PTR is then the value's address (s64 * or char *),
 * NULL at run time when there is no room.
 */
struct place {
	char *setup;
	char *locate;
	char *ptr;
	char *commit;		/* a target variable's: writes the value back (guru mode) */
};


static struct place place_of(struct body *b, struct node *n)
{
	struct place p = { xstrdup(""), xstrdup(""), NULL, xstrdup("") };
	struct global_c *g = global_named(b->t, n);
	bool string = n->type == TYPE_STRING;
	int id;

	if (n->access) {	/* a target variable, written in guru mode: a copy, then back */
		id = b->unique++;
		free(p.setup);
		free(p.commit);
		p.setup = translate_target_place(b, n, id);
		p.ptr = xasprintf("(&_tv%d)", id);
		p.commit = xasprintf("stp_%s_write(c, _t%d, %d, %d, %d, %d, _tv%d); ",
				     n->access->user ? "user" : "target", id,
				     n->access->start_is_value && !n->access->nsteps ?
				     n->access->regno : -1, n->access->size,
				     n->access->bit_offset, n->access->bit_size, id);
	} else if (is_procfs_value(b, n)) {
		p.ptr = xstrdup("STP_PROCFS_VALUE(c)");
	} else if (n->kind == ND_VAR && !g) {
		p.ptr = xasprintf(string ? "(l->l_%s)" : "(&l->l_%s)", n->string);
	} else if (n->kind == ND_VAR) {
		p.ptr = xasprintf(string ? "(%s)" : "(&%s)", g->name);
	} else {
		id = b->unique++;
		free(p.setup);
		free(p.locate);
		p.setup = keys_setup(b, n->args, id, NULL);
		p.locate = xasprintf("struct stp_map_entry *_e%d = stp_map_insert(%s, _k%d); "
				     "if (!_e%d) stp_array_overflow(c, &%s_desc); ",
				     id, g->name, id, id, g->name);
		p.ptr = xasprintf(string ? "(_e%d ? stp_entry_string(_e%d) : NULL)" :
					   "(_e%d ? stp_entry_long(_e%d) : NULL)", id, id);
	}
	return p;
}

static void free_place(struct place *p)
{
	free(p->setup);
	free(p->locate);
	free(p->commit);
	free(p->ptr);
}

static char *assign(struct body *b, struct node *n)
{
	struct place p;
	char *rhs = translate_expr(b, n->rhs);
	int id = b->unique++;
	char *s;

	/* a local = a value: stored unless the value's evaluation failed, which one that
	 * cannot fail never does */
	if (is_local(b, n->lhs) && strcmp(n->op, "=") == 0) {
		bool sure = cannot_fail(b, n->rhs);

		if (n->lhs->type == TYPE_STRING)
			s = sure ? xasprintf("stp_string_copy(l->l_%s, %s)", n->lhs->string, rhs) :
			    xasprintf("({ const char *_v%d = %s; if (likely(!c->last_error)) "
				      "stp_string_copy(l->l_%s, _v%d); (const char *)l->l_%s; })",
				      id, rhs, n->lhs->string, id, n->lhs->string);
		else
			s = sure ? xasprintf("(l->l_%s = %s)", n->lhs->string, rhs) :
			    xasprintf("({ s64 _v%d = %s; if (likely(!c->last_error)) l->l_%s = _v%d; "
				      "_v%d; })", id, rhs, n->lhs->string, id, id);
		free(rhs);
		return s;
	}
	p = place_of(b, n->lhs);
	if (n->lhs->type == TYPE_STRING) {
		bool append = strcmp(n->op, ".=") == 0;

		/* a procfs read probe's $value grows to the file's maxsize */
		const char *op = !append ? "stp_string_copy" :
				 is_procfs_value(b, n->lhs) ? "stp_procfs_append" :
				 "stp_string_append";

		s = xasprintf("({ %sconst char *_v%d = %s; char *_p%d = NULL; "
			      "if (likely(!c->last_error)) { %s_p%d = %s; if (_p%d) %s(_p%d, _v%d); } "
			      "_p%d ? (const char *)_p%d : \"\"; })",
			      p.setup, id, rhs, id, p.locate, id, p.ptr, id, op, id, id, id, id);
	} else if (strcmp(n->op, "=") == 0) {
		s = xasprintf("({ %ss64 _v%d = %s; "
			      "if (likely(!c->last_error)) { %ss64 *_p%d = %s; if (_p%d) *_p%d = _v%d; "
			      "%s} _v%d; })",
			      p.setup, id, rhs, p.locate, id, p.ptr, id, id, id, p.commit, id);
	} else {
		/* x OP= y: y first, then x = x OP y */
		char op[4] = { 0 };
		char *old = xasprintf("(*_p%d)", id), *value = xasprintf("_v%d", id);
		char *result;

		memcpy(op, n->op, strlen(n->op) - 1);
		result = long_operation(b, op, old, value, n->tok);
		s = xasprintf("({ %ss64 _v%d = %s; s64 _n%d = 0; "
			      "if (likely(!c->last_error)) { %ss64 *_p%d = %s; "
			      "if (_p%d) { _n%d = %s; if (likely(!c->last_error)) *_p%d = _n%d; } %s} "
			      "_n%d; })",
			      p.setup, id, rhs, id, p.locate, id, p.ptr, id, id, result, id, id,
			      p.commit, id);
		free(old);
		free(value);
		free(result);
	}
	free(rhs);
	free_place(&p);
	return s;
}

static char *increment(struct body *b, struct node *n)
{
	struct place p = place_of(b, n->lhs);
	int id = b->unique++;
	const char *op = strcmp(n->op, "++") == 0 ? "+" : "-";
	char *s = xasprintf("({ %ss64 _n%d = 0; if (likely(!c->last_error)) { %ss64 *_p%d = %s; "
			    "if (_p%d) { s64 _o%d = *_p%d; *_p%d = (s64)((u64)_o%d %s 1); "
			    "_n%d = %s; } %s} _n%d; })",
			    p.setup, id, p.locate, id, p.ptr, id, id, id, id, id, op, id,
			    n->prefix ? xasprintf("*_p%d", id) : xasprintf("_o%d", id), p.commit, id);

	free_place(&p);
	return s;
}

static char *accumulate(struct body *b, struct node *n)
{
	struct global_c *g = global_named(b->t, n->lhs);
	char *rhs = translate_expr(b, n->rhs);
	int id = b->unique++;
	char *s;

	if (n->lhs->kind == ND_VAR) {
		s = xasprintf("({ s64 _v%d = %s; if (likely(!c->last_error)) "
			      "stp_pstat_add(%s, _v%d); _v%d; })", id, rhs, g->name, id, id);
	} else {
		char *setup = keys_setup(b, n->lhs->args, id, NULL);

		s = xasprintf("({ %ss64 _v%d = %s; if (likely(!c->last_error) && "
			      "stp_pmap_add(%s, _k%d, _v%d)) stp_aggregation_overflow(c, &%s_desc); "
			      "_v%d; })", setup, id, rhs, g->name, id, id, g->name, id);
		free(setup);
	}
	free(rhs);
	return s;
}

/* print family: each argument to a sink, the print buffer or a string temporary */
static void put_value(struct strbuf *sb, const char *value, enum stap_type type, int temp)
{
	if (temp < 0)
		sb_printf(sb, type == TYPE_STRING ? "_stp_print(%s); " : "_stp_print_long(%s); ",
			  value);
	else
		sb_printf(sb, type == TYPE_STRING ? "stp_string_append(l->_tmp%d, %s); " :
						    "stp_string_append_long(l->_tmp%d, %s); ",
			  temp, value);
}

static void put_literal(struct strbuf *sb, const char *text, int temp)
{
	char *lit = c_string(text);

	if (temp < 0)
		sb_printf(sb, "_stp_print(%s); ", lit);
	else
		sb_printf(sb, "stp_string_append(l->_tmp%d, %s); ", temp, lit);
	free(lit);
}

/* Whether a printf FORMAT may read memory (%m, %M), or is not known until it runs. */
static bool reads_memory(struct node *format)
{
	if (format->kind != ND_STRING)
		return true;
	for (const char *p = strchr(format->string, '%'); p; p = strchr(p, '%')) {
		p++;
		if (*p == '%') {
			p++;
			continue;
		}
		p += strspn(p, "-+ #0123456789.*");	/* flags, width, precision */
		if (*p == 'm' || *p == 'M')
			return true;
	}
	return false;
}

static char *print_call(struct body *b, struct node *n)
{
	struct strbuf sb = { 0 };
	enum print_kind k = n->print;
	bool to_string = k >= PRINT_SPRINT;
	bool delimited = k == PRINT_PRINTD || k == PRINT_PRINTDLN || k == PRINT_SPRINTD ||
			 k == PRINT_SPRINTDLN;
	bool newline = k == PRINT_PRINTLN || k == PRINT_PRINTDLN || k == PRINT_SPRINTLN ||
		       k == PRINT_SPRINTDLN;
	int id = b->unique++, i = 0, nargs = 0;
	int temp = to_string ? new_temp(b) : -1;

	if ((k == PRINT_PRINT || k == PRINT_PRINTLN || k == PRINT_SPRINT || k == PRINT_SPRINTLN) &&
	    n->args && n->args->kind == ND_HIST && !n->args->next)
		return print_histogram(b, n->args, temp);

	sb_puts(&sb, "({ ");
	if (n->pretty && temp >= 0)	/* $var$: a fault while reading it is "ERROR" */
		sb_printf(&sb, "const char *_e%d = c->last_error; ", id);
	for (struct node *a = n->args; a; a = a->next, i++, nargs++) {
		char *arg = translate_expr(b, a);

		/* a printf format is a string whatever pass 2 noted */
		bool format = i == 0 && (k == PRINT_PRINTF || k == PRINT_SPRINTF);

		sb_printf(&sb, "%s_p%d_%d = %s; ", c_type(format ? TYPE_STRING : a->type), id, i,
			  arg);
		free(arg);
	}
	if (temp >= 0)
		sb_printf(&sb, "l->_tmp%d[0] = '\\0'; ", temp);
	sb_puts(&sb, "if (likely(!c->last_error)) { ");
	if (k == PRINT_PRINTF || k == PRINT_SPRINTF) {
		sb_printf(&sb, "union stp_format_arg _a%d[%d]; ", id, nargs > 1 ? nargs - 1 : 1);
		i = 0;
		for (struct node *a = n->args->next; a; a = a->next, i++)
			sb_printf(&sb, "_a%d[%d].%c = _p%d_%d; ", id, i,
				  a->type == TYPE_STRING ? 's' : 'l', id, i + 1);
		char *where = reads_memory(n->args) ? body_location(b, n->tok) : NULL;

		if (where)	/* stap names printf/sprintf for a %m that faults */
			sb_printf(&sb, "const char *_w%d = c->last_stmt; c->last_stmt = %s; ",
				  id, where);
		if (temp < 0)
			sb_printf(&sb, "stp_printf_args(_p%d_0, _a%d, %d); ", id, id, nargs - 1);
		else
			sb_printf(&sb, "stp_format(l->_tmp%d, MAXSTRINGLEN, _p%d_0, _a%d, %d); ",
				  temp, id, id, nargs - 1);
		if (where)
			sb_printf(&sb, "if (likely(!c->last_error)) c->last_stmt = _w%d; ", id);
		free(where);
	} else {
		struct node *a = n->args;

		i = 0;
		if (delimited) {	/* the first argument is the delimiter */
			a = a->next;
			i = 1;
		}
		for (int first = i; a; a = a->next, i++) {
			char *value = xasprintf("_p%d_%d", id, i);

			if (delimited && i > first)
				put_value(&sb, xasprintf("_p%d_0", id), TYPE_STRING, temp);
			put_value(&sb, value, a->type, temp);
			free(value);
		}
		if (newline)
			put_literal(&sb, "\n", temp);
	}
	sb_puts(&sb, "} ");
	if (n->pretty && temp >= 0)	/* as stap: try { sprintf(...) } catch { "ERROR" } */
		sb_printf(&sb, "if (unlikely(c->last_error) && !_e%d && "
			  "c->actions_remaining >= 0) { c->last_error = NULL; "
			  "strscpy(l->_tmp%d, \"ERROR\", MAXSTRINGLEN); } ", id, temp);
	if (temp >= 0)
		sb_printf(&sb, "(const char *)l->_tmp%d; ", temp);
	else
		sb_puts(&sb, "(s64)0; ");
	sb_puts(&sb, "})");
	return sb_steal(&sb);
}

/*
 * Arguments are evaluated in the caller's frame, then copied into the callee's frame one
 * level deeper; a string result is copied back into a temporary of the caller.  Overloads
 * of one arity are tried in priority order: one that runs `next` passes the call on.
 * An error raised in an embedded-C function is placed at the function, as stap places
 * it ("kernel long copy fault at 0x0 ... near identifier 'kernel_long' at
 * .../conversions.stp:13:10"): its name in its declaration.  A call that returns without
 * error leaves the caller's place as it was, for the errors of the rest of its statement.
 */
static char *plain_function_call(struct body *b, struct node *n);

/*
 * A function whose embedded C says it is stable (its value does not change during a hit,
 * like pid()) and takes no argument is called once per hit and scope of a probe: its
 * value is kept in the probe's frame, which each hit starts zeroed, as stap does.  Calls
 * from script functions are not kept (stap keeps only the probe's own).  A call uses the
 * value a call before it kept in its scope or an enclosing one, else keeps its own for
 * the rest of its scope.  Scopes are the handler, its blocks (of two statements or more,
 * but under -u) and, outside loops, the branches of an if (translate_branch()): so a value
 * kept in a loop is seen after it, unless kept in a block of the loop's.  Measured with
 * stap 4.8 (one call each time a scope with calls is entered, as stap hoists the calls to
 * the top of the scope they belong to): x = f(); y = f() call f once; a call in each
 * branch of an if and one after it, twice; a call in the if's condition and then in a
 * loop of its branch, once; a call in a loop and one after it, once, but twice when the
 * loop's body is a block of two statements and the call is in an if in it.
 */
static bool is_stable_call(struct body *b, struct node *n)
{
	struct function *f = n->func;

	return !b->function && !b->guarded && f->embedded && !f->next_overload &&
	       f->nparams == 0 && f->return_type != TYPE_UNKNOWN &&
	       strstr(f->embedded->text, "/* stable */");
}

static char *function_call(struct body *b, struct node *n)
{
	char *call, *kept;
	int k;

	if (!is_stable_call(b, n))
		return plain_function_call(b, n);
	for (k = 0; k < b->nstables; k++)	/* the scopes not over enclose this one */
		if (b->stables[k] == n->func && b->stable_scope[k] >= 0)
			break;
	if (k == b->nstables) {
		b->stables = xrealloc(b->stables, (k + 1) * sizeof(*b->stables));
		b->stable_scope = xrealloc(b->stable_scope, (k + 1) * sizeof(*b->stable_scope));
		b->stables[k] = n->func;
		b->stable_scope[k] = b->scope;
		b->nstables++;
	}
	call = plain_function_call(b, n);
	if (n->func->return_type == TYPE_STRING)
		kept = xasprintf("({ if (!l->_stable%d_set) { stp_string_copy(l->_stable%d, %s); "
				 "l->_stable%d_set = !c->last_error; } (const char *)l->_stable%d; })",
				 k, k, call, k, k);
	else
		kept = xasprintf("({ if (!l->_stable%d_set) { l->_stable%d = %s; "
				 "l->_stable%d_set = !c->last_error; } l->_stable%d; })",
				 k, k, call, k, k);
	free(call);
	return kept;
}

/* Whether every overload of F (the last one kept) may pass the call on. */
static bool may_pass_on(struct function *f)
{
	while (f->next_overload)
		f = f->next_overload;
	return may_pass_call_on(f);
}

/*
 * A call of a function that has no overloads and does not pass the call on goes through
 * its caller function, emitted once per module (function_caller()): the frame, the
 * nesting check and the return value are written there once, not at every call, which
 * made a script of many calls (the syscall tapset's aliases: errsnoop.stp) mostly copies
 * of them for the compiler.  Other calls are written out where they are made.
 */
bool has_caller_function(struct function *f)
{
	return !f->next_overload && !may_pass_call_on(f);
}

/* What a caller function of F is called: "call_" and F's C name. */
static char *caller_name(struct translator *t, struct function *f)
{
	return xasprintf("call_%s", function_c_name(t, f));
}

/* The C function through which F is called (has_caller_function()): the arguments in
 * order, F's value (0 or "" when the call failed, the string in F's frame until the next
 * call); a call where an operator names itself (@kderef) sets its own place. */
char *function_caller(struct translator *t, struct function *f)
{
	const char *name = function_c_name(t, f);
	char *caller = caller_name(t, f), *where = c_location(f->tok);
	bool has_value = f->return_type != TYPE_UNKNOWN;
	const char *failed = !has_value ? "" : f->return_type == TYPE_STRING ? " \"\"" : " 0";
	struct strbuf sb = { 0 };
	struct symbol *param;
	int i;

	sb_printf(&sb, "static noinline __maybe_unused %s%s(struct context *c",
		  has_value ? c_type(f->return_type) : "void ", caller);
	for (param = f->params, i = 0; param; param = param->next, i++)
		sb_printf(&sb, ", %sa%d", c_type(param->type), i);
	sb_printf(&sb, ")\n{\n\tstruct %s_locals *f;\n\tconst char *w = c->last_stmt;\n\n", name);
	sb_printf(&sb, "\tif (unlikely(c->nesting >= MAXNESTING)) {\n\t\tc->last_stmt = %s;\n"
		  "\t\tstp_soft_error(c, \"MAXNESTING exceeded\");\n\t\treturn%s;\n\t}\n",
		  where, failed);
	sb_printf(&sb, "\tf = &STP_FRAME(c, c->nesting + 1)->%s;\n", name);
	for (param = f->params, i = 0; param; param = param->next, i++) {
		if (param->type == TYPE_STRING)
			sb_printf(&sb, "\tstp_string_copy(f->l_%s, a%d);\n", param->name, i);
		else
			sb_printf(&sb, "\tf->l_%s = a%d;\n", param->name, i);
	}
	if (f->embedded)
		sb_printf(&sb, "\tc->last_stmt = %s;\n", where);
	/* F never runs next (has_caller_function()), so the call is always done */
	sb_printf(&sb, "\tc->nesting++;\n\t%s(c);\n\tc->nesting--;\n"
		  "\tif (likely(!c->last_error))\n\t\tc->last_stmt = w;\n", name);
	if (has_value)
		sb_puts(&sb, "\treturn f->__retvalue;\n");
	sb_puts(&sb, "}\n");
	free(caller);
	free(where);
	return sb_steal(&sb);
}

static char *plain_function_call(struct body *b, struct node *n)
{
	struct function *first = n->func;
	struct strbuf sb = { 0 };
	int id = b->unique++;
	int i = 0;
	struct symbol *param;
	struct node *a;
	bool has_value = first->return_type != TYPE_UNKNOWN;
	int temp = first->return_type == TYPE_STRING ? new_temp(b) : -1;
	char *where;

	sb_puts(&sb, "({ ");
	if (has_value)
		sb_printf(&sb, "%s_ret%d = %s; ", c_type(first->return_type), id,
			  first->return_type == TYPE_STRING ? "\"\"" : "0");
	for (a = n->args, param = first->params; a; a = a->next, param = param->next, i++) {
		char *arg = translate_expr(b, a);

		sb_printf(&sb, "%s_arg%d_%d = %s; ", c_type(param->type), id, i, arg);
		free(arg);
	}
	if (has_caller_function(first) && !(first->embedded && n->op)) {
		char *caller = caller_name(b->t, first);

		sb_puts(&sb, "if (likely(!c->last_error)) ");
		if (temp >= 0)
			sb_printf(&sb, "_ret%d = stp_string_copy(l->_tmp%d, ", id, temp);
		else if (has_value)
			sb_printf(&sb, "_ret%d = ", id);
		sb_printf(&sb, "%s(c", caller);
		for (i = 0; i < first->nparams; i++)
			sb_printf(&sb, ", _arg%d_%d", id, i);
		sb_puts(&sb, temp >= 0 ? ")); " : "); ");
		free(caller);
		charge_call(b, n, first, &sb);
		if (has_value)
			sb_printf(&sb, "_ret%d; ", id);
		sb_puts(&sb, "})");
		return sb_steal(&sb);
	}
	where = body_location(b, first->tok);	/* stap places MAXNESTING at the function called */
	sb_printf(&sb, "if (likely(!c->last_error)) { "
		  "if (unlikely(c->nesting >= MAXNESTING)) { c->last_stmt = %s; "
		  "stp_soft_error(c, \"MAXNESTING exceeded\"); } else { bool _done%d = false; "
		  "const char *_w%d = c->last_stmt; ",
		  where, id, id);
	free(where);
	for (struct function *f = first; f; f = f->next_overload) {
		const char *name = function_c_name(b->t, f);

		if (f != first)
			sb_printf(&sb, "if (!_done%d) ", id);
		/* the callee sets the rest of its frame (emit_frame_fields()) */
		sb_printf(&sb, "{ struct %s_locals *_f%d = &STP_FRAME(c, c->nesting + 1)->%s; "
			  "(void)_f%d; ", name, id, name, id);
		for (param = f->params, i = 0; param; param = param->next, i++) {
			if (param->type == TYPE_STRING)
				sb_printf(&sb, "stp_string_copy(_f%d->l_%s, _arg%d_%d); ", id,
					  param->name, id, i);
			else
				sb_printf(&sb, "_f%d->l_%s = _arg%d_%d; ", id, param->name, id, i);
		}
		if (f->embedded) {	/* @kderef(...) is placed where it is written */
			char *decl = body_location(b, n->op ? n->tok : f->tok);

			sb_printf(&sb, "c->last_stmt = %s; ", decl);
			free(decl);
		}
		sb_printf(&sb, "c->nesting++; %s(c); c->nesting--; ", name);
		sb_printf(&sb, "if (likely(!c->last_error)) c->last_stmt = _w%d; ", id);
		sb_printf(&sb, "if (c->next_called) { c->next_called = false; } else { _done%d = true; ",
			  id);
		if (temp >= 0)
			sb_printf(&sb, "_ret%d = stp_string_copy(l->_tmp%d, _f%d->__retvalue); ", id,
				  temp, id);
		else if (has_value)
			sb_printf(&sb, "_ret%d = _f%d->__retvalue; ", id, id);
		sb_puts(&sb, "} } ");
	}
	if (may_pass_on(first)) {	/* every overload ran `next` */
		where = body_location(b, n->tok);
		sb_printf(&sb, "if (!_done%d && likely(!c->last_error)) { c->last_stmt = %s; "
			  "stp_soft_error(c, \"all functions exhausted\"); } ", id, where);
		free(where);
	}
	sb_printf(&sb, "(void)_done%d; } } ", id);
	charge_call(b, n, first, &sb);
	if (has_value)
		sb_printf(&sb, "_ret%d; ", id);
	sb_puts(&sb, "})");
	return sb_steal(&sb);
}

/*
 * str =~ "re" (!~ negates): the expression's tables are written once per distinct
 * pattern (translate.c); the match, and its groups for matched(), go to the context.
 */
static char *regex_match(struct body *b, struct node *n)
{
	struct translator *t = b->t;
	const char *pattern = n->rhs->raw ? n->rhs->raw : n->rhs->string;
	char *subject = translate_expr(b, n->lhs), *s;
	int k, id = b->unique++;

	for (k = 0; k < t->nregexes; k++)
		if (strcmp(t->regexes[k].pattern, pattern) == 0)
			break;
	if (k == t->nregexes) {
		char *error;
		struct regex *re = regex_compile(pattern, &error);

		if (!re) {	/* pass 2 compiled it already */
			diag_at("translation error", n->rhs->tok, "%s", error);
			free(error);
			t->errors++;
		}
		t->regexes = xrealloc(t->regexes, (t->nregexes + 1) * sizeof(*t->regexes));
		t->regexes[k].pattern = pattern;
		t->regexes[k].re = re;
		t->nregexes++;
	}
	s = xasprintf("({ const char *_s%d = %s; (s64)(likely(!c->last_error) && "
		      "%sstp_regex_match(&c->regex, &stp_regex_%d, _s%d, c->regex_scratch)); })",
		      id, subject, strcmp(n->op, "!~") == 0 ? "!" : "", k, id);
	free(subject);
	return s;
}

static char *embedded_expression(struct body *b, struct node *n)
{
	if (n->type == TYPE_STRING)
		return xasprintf("stp_string_copy(l->_tmp%d, (%s))", new_temp(b), n->string);
	return xasprintf("((s64)(%s))", n->string);
}

char *translate_expr(struct body *b, struct node *n)
{
	struct global_c *g;
	char *x, *y, *z, *s;

	switch (n->kind) {
	case ND_NUMBER:
		if (n->number == INT64_MIN)
			return xstrdup("(-9223372036854775807LL - 1)");
		return xasprintf("%" PRId64 "LL", n->number);
	case ND_STRING:
		return body_literal(b, c_string(n->string));
	case ND_VAR:
		g = global_of(b->t, n->sym);
		return g ? xstrdup(g->name) : xasprintf("l->l_%s", n->string);
	case ND_TARGET:
	case ND_AT_VAR:
	case ND_CAST:
	case ND_AUTOCAST:
		if (n->access)
			return translate_target(b, n);
		return xstrdup("((const char *)STP_PROCFS_VALUE(c))");	/* procfs's $value */
	case ND_INDEX:
		if (n->lhs->kind == ND_HIST)
			return hist_bucket(b, n);
		return array_read(b, n);
	case ND_IN:
		return membership(b, n);
	case ND_STAT:
		return stat_value(b, n);
	case ND_CALL:
		return function_call(b, n);
	case ND_PRINT:
		return print_call(b, n);
	case ND_ASSIGN:
		return assign(b, n);
	case ND_INCREMENT:
		return increment(b, n);
	case ND_ACCUMULATE:
		return accumulate(b, n);
	case ND_EMBEDDED_EXPR:
		return embedded_expression(b, n);
	case ND_REGEX:
		return regex_match(b, n);
	case ND_ENTRY: {	/* kept by the entry for this return */
		char *where = entry_offset(b->handler, (int)n->number);

		s = n->type == TYPE_STRING ?
			xasprintf("((const char *)stp_kept_string(c, %s))", where) :
			xasprintf("(*stp_kept_long(c, %s))", where);
		free(where);
		return s;
	}
	case ND_BINARY:
		return binary(b, n, arithmetic);
	case ND_CONCAT:
		return concat(b, n);
	case ND_COMPARE:
		return binary(b, n, comparison);
	case ND_LOGICAL:
		x = translate_expr(b, n->lhs);
		b->conditional++;
		y = translate_expr(b, n->rhs);
		b->conditional--;
		s = xasprintf("(s64)((%s) %s (%s))", x, n->op, y);
		free(x);
		free(y);
		return s;
	case ND_UNARY:
		x = translate_expr(b, n->lhs);
		if (strcmp(n->op, "-") == 0)
			s = xasprintf("(s64)(0ULL - (u64)(%s))", x);
		else if (strcmp(n->op, "!") == 0)
			s = xasprintf("(s64)!(%s)", x);
		else if (strcmp(n->op, "~") == 0)
			s = xasprintf("(~(%s))", x);
		else
			s = xasprintf("(%s)", x);
		free(x);
		return s;
	case ND_TERNARY:
		x = translate_expr(b, n->cond);
		b->conditional++;
		y = translate_expr(b, n->then);
		z = translate_expr(b, n->els);
		b->conditional--;
		s = xasprintf("((%s) ? (%s) : (%s))", x, y, z);
		free(x);
		free(y);
		free(z);
		return s;
	default:	/* check_translatable() let through something translate_expr() does not know */
		diag_at("translation error", n->tok, "internal error: cannot translate this "
			"expression");
		b->t->errors++;
		return xstrdup("0");
	}
}

/* ---- target variables, @var and @cast ---- */

/* The number of chars of the array a string result reads (its type's count). */
static int64_t string_length(const struct target_access *a)
{
	struct ctype *t = ctype_resolve(a->type);

	return t && t->kind == CT_ARRAY && t->count > 0 ? t->count : 0;
}

/* "u64 _tID = START; ...steps...; " : the address (or the value) of N's access. */
static char *target_steps(struct body *b, const struct target_access *a, int id)
{
	struct strbuf sb = { 0 };
	char *start = a->base ? translate_expr(b, a->base) : xstrdup(a->start);

	sb_printf(&sb, "u64 _t%d = (u64)(%s); ", id, start);
	free(start);
	for (int i = 0; i < a->nsteps; i++) {
		const struct target_step *s = &a->steps[i];
		char *index;

		switch (s->kind) {
		case TSTEP_ADD:
			sb_printf(&sb, "_t%d += %" PRId64 "LL; ", id, s->offset);
			break;
		case TSTEP_LOAD:
			sb_printf(&sb, "_t%d = stp_%s_deref(c, _t%d, 8); ", id,
				  a->user ? "user" : "target", id);
			break;
		case TSTEP_INDEX:
			index = translate_expr(b, s->index);
			sb_printf(&sb, "_t%d += (u64)(s64)(%s) * %" PRId64 "ULL; ", id, index,
				  s->scale);
			free(index);
			break;
		}
	}
	return sb_steal(&sb);
}

/* "s64 _vID = stp_target_read(c, _tID, ...)" as C, the number N's access reads. */
static char *number_read(const struct target_access *a, int id)
{
	return xasprintf("stp_%s_%s(c, _t%d, %d, %d, %d, %d)", a->user ? "user" : "target",
			 a->start_is_value && !a->nsteps ? "value" : "read", id, a->size,
			 a->is_signed, a->bit_offset, a->bit_size);
}

/* "s64 _tvID = ...;": N's value now, to be written back at _tID (guru mode's writes) */
static char *translate_target_place(struct body *b, struct node *n, int id)
{
	char *where = body_location(b, n->tok), *steps = target_steps(b, n->access, id);
	char *read = number_read(n->access, id);
	char *s = xasprintf("c->last_stmt = %s; %ss64 _tv%d = %s; ", where, steps, id, read);

	free(where);
	free(steps);
	free(read);
	return s;
}

/* A target variable, @var or @cast (N->access) as C */
static char *translate_target(struct body *b, struct node *n)
{
	const struct target_access *a = n->access;
	struct strbuf sb = { 0 };
	int id = b->unique++, temp;
	char *where = body_location(b, n->tok), *steps = target_steps(b, a, id), *read;

	sb_printf(&sb, "({ const char *_w%d = c->last_stmt; c->last_stmt = %s; %s", id, where,
		  steps);
	free(where);
	free(steps);
	switch (a->result) {
	case TRESULT_ADDRESS:
		sb_printf(&sb, "if (likely(!c->last_error)) c->last_stmt = _w%d; (s64)_t%d; })", id,
			  id);
		break;
	case TRESULT_STRING:
		temp = new_temp(b);
		sb_printf(&sb, "stp_%s_string(c, l->_tmp%d, _t%d, %" PRId64 "); "
			  "if (likely(!c->last_error)) c->last_stmt = _w%d; "
			  "(const char *)l->_tmp%d; })", a->user ? "user" : "target", temp, id,
			  string_length(a), id, temp);
		break;
	case TRESULT_LONG:
		read = number_read(a, id);
		sb_printf(&sb, "s64 _v%d = %s; if (likely(!c->last_error)) c->last_stmt = _w%d; "
			  "_v%d; })", id, read, id, id);
		free(read);
		break;
	}
	return sb_steal(&sb);
}
