/*
 * parse.c - pass 1, part 3: tokens to the AST of one file, by recursive descent.
 *
 * parse_file() tokenizes, preprocesses (preprocess.c) and parses.  Each grammar rule is
 * one function with the rule above it.  On a syntax error the parser reports it, skips
 * the token it stopped at and then to the next top-level declaration, as stap's does,
 * and goes on, up to MAX_PARSE_ERRORS (stap has no limit; this one bounds what a
 * generated or hostile file can cost).
 */
#include "stap.h"

#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PARSE_ERRORS 1000
/* Deeper nesting is refused rather than risking the stack of this and later passes. */
#define MAX_NESTING_DEPTH 1000

struct parser {
	struct token *tok;		/* current token */
	struct stapfile *file;
	bool privileged;		/* tapset file or -g: embedded C allowed */
	bool in_function;
	bool old_ternary;		/* --compatible before 4.0: "a ? b : c = d" is
					 * "a ? b : (c = d)", as stap 3.x parsed it */
	bool comment_splits_strings;	/* --compatible before 2.0: two string literals
					 * with a comment between are not one (PR 11208) */
	bool no_autocast;		/* --compatible before 2.6, in the script: no
					 * p->f, f()[i], &x, (e)$ on plain values */
	int depth;			/* recursion depth of the parser */
	int errors;
	bool error_token_kept;		/* the last error was at a token only looked at: the
					 * recovery starts there, not after it (as stap's) */
	jmp_buf recover;
	struct embed **embed_tail;
	struct symbol **global_tail;
	struct probe **probe_tail;
	struct function **function_tail;
};

static struct node *expr(struct parser *ps);
static struct node *statement(struct parser *ps);
static struct node *block(struct parser *ps);
static struct node *unary(struct parser *ps);

/*
 * Reports a syntax error at TOK and unwinds to parse_declarations().  SITE, the line of
 * the parser that raised it (syntax_error() passes its own), makes errors alike: the
 * same message from the same place is shown once, as stap shows its errors once per
 * place in its parser ("expected identifier" of a parameter and of a global both show).
 * Flags with it: SITE_ANY_MESSAGE, alike whatever the message (the lists' "expected one
 * of ...", which stap raises from one place); SITE_AT_LABEL, TOK named "at:".
 */
#define SITE_ANY_MESSAGE 0x40000000
#define SITE_AT_LABEL 0x20000000

static NORETURN void syntax_error_from(struct parser *ps, int site, struct token *tok,
				       const char *fmt, ...) PRINTF_LIKE(4, 5);

static void syntax_error_from(struct parser *ps, int site, struct token *tok,
			      const char *fmt, ...)
{
	struct strbuf message = { 0 };
	char *key;
	va_list ap;

	va_start(ap, fmt);
	sb_vprintf(&message, fmt, ap);
	va_end(ap);
	key = site & SITE_ANY_MESSAGE ? xasprintf("%d", site) :
					xasprintf("%d %s", site, message.data);
	diag_parse_error_keyed(tok, key, site & SITE_AT_LABEL, message.data);
	free(key);
	sb_free(&message);
	ps->errors++;
	longjmp(ps->recover, 1);
}

#define syntax_error(ps, tok, ...) syntax_error_from((ps), __LINE__, (tok), __VA_ARGS__)
/* ... naming TOK "at:", as stap does for a few errors at a token it has read */
#define syntax_error_read(ps, tok, ...) \
	syntax_error_from((ps), __LINE__ | SITE_AT_LABEL, (tok), __VA_ARGS__)
/* ... at a token stap only looked at: the next declaration may begin with it */
#define syntax_error_peeked(ps, tok, ...) \
	((ps)->error_token_kept = true, syntax_error_from((ps), __LINE__, (tok), __VA_ARGS__))

static struct node *new_node(enum node_kind kind, struct token *tok)
{
	struct node *n = xcalloc(1, sizeof(*n));

	n->kind = kind;
	n->tok = tok;
	return n;
}

/* Guards each recursive rule: enter() on the way in, leave() on the way out. */
static void enter(struct parser *ps)
{
	if (++ps->depth > MAX_NESTING_DEPTH)
		syntax_error(ps, ps->tok, "nested too deeply (more than %d levels)",
			     MAX_NESTING_DEPTH);
}

static void leave(struct parser *ps)
{
	ps->depth--;
}

/* Left-associative chains loop rather than recurse, so their height is checked here. */
static void set_height(struct parser *ps, struct node *n, int h)
{
	n->height = h;
	if (h > MAX_NESTING_DEPTH)
		syntax_error(ps, n->tok, "expression nested too deeply (more than %d levels)",
			     MAX_NESTING_DEPTH);
}

static void grow_height(struct parser *ps, struct node *n, struct node *child)
{
	if (child && child->height + 1 > n->height)
		set_height(ps, n, child->height + 1);
}

static struct token *next_token(struct parser *ps)
{
	struct token *tok = ps->tok;

	if (tok->kind != TOK_EOF)
		ps->tok = tok->next;
	return tok;
}

static bool peek(struct parser *ps, const char *text)
{
	return token_is(ps->tok, text);
}

static bool peek_ident(struct parser *ps, const char *name)
{
	return ps->tok->kind == TOK_IDENT && strcmp(ps->tok->text, name) == 0;
}

static bool accept(struct parser *ps, const char *text)
{
	if (!peek(ps, text))
		return false;
	next_token(ps);
	return true;
}

/* The end of the file where one token was wanted: stap's words for it (alike anywhere). */
static void check_not_eof(struct parser *ps)
{
	if (ps->tok->kind == TOK_EOF)
		syntax_error_from(ps, 0, ps->tok, "unexpected end-of-file");
}

/* The token TEXT, or an error from SITE (the caller's line: expect() passes it). */
static struct token *expect_from(struct parser *ps, int site, const char *text)
{
	if (!peek(ps, text)) {
		check_not_eof(ps);
		syntax_error_from(ps, site, ps->tok, "expected '%s'", text);
	}
	return next_token(ps);
}

#define expect(ps, text) expect_from((ps), __LINE__, (text))

/* A plain identifier: not $target, not @operator. */
static struct token *expect_ident_from(struct parser *ps, int site)
{
	struct token *tok = ps->tok;

	if (tok->kind != TOK_IDENT || tok->text[0] == '$' || tok->text[0] == '@') {
		check_not_eof(ps);
		syntax_error_from(ps, site, tok, "expected identifier");
	}
	return next_token(ps);
}

#define expect_ident(ps) expect_ident_from((ps), __LINE__)

/* The place of every list's "expected one of ...": alike, whichever list (as stap's). */
#define SITE_LIST_END (2 | SITE_ANY_MESSAGE)

/* TEXT ending a list: else stap's "expected one of 'CHOICES'" (its list, its order). */
static struct token *expect_closing(struct parser *ps, const char *text, const char *choices)
{
	if (!peek(ps, text)) {
		check_not_eof(ps);
		syntax_error_from(ps, SITE_LIST_END, ps->tok, "expected one of '%s'", choices);
	}
	return next_token(ps);
}

/* A value was wanted: stap says "expected value" at the end of the file.  Alike from
 * wherever a value was wanted, as stap's come from one place. */
static NORETURN void expected_value(struct parser *ps, struct token *tok)
{
	syntax_error_from(ps, 1, tok, tok->kind == TOK_EOF ? "expected value" :
				      "expected literal string or number");
}

static bool is_declaration_start(struct parser *ps)
{
	return peek(ps, "probe") || peek(ps, "function") || peek(ps, "global") ||
	       peek(ps, "private") || ps->tok->kind == TOK_EMBEDDED;
}

/* Skips to the next top-level declaration after an error. */
static void synchronize(struct parser *ps)
{
	while (ps->tok->kind != TOK_EOF && !is_declaration_start(ps))
		next_token(ps);
}

/* Consumes the %{ %} block either way, so recovery does not report it twice. */
static struct token *embedded_code(struct parser *ps)
{
	struct token *tok = next_token(ps);

	if (!ps->privileged)
		syntax_error(ps, tok, "embedded code in unprivileged script; need stap -g");
	return tok;
}

/* ---- literals ---- */

/* string = STRING+     adjacent literals are one string, as in C */
static struct node *string_literal(struct parser *ps)
{
	struct token *tok = ps->tok;
	struct strbuf text = { 0 }, raw = { 0 };
	struct node *n;

	if (tok->kind != TOK_STRING)
		syntax_error(ps, tok, "expected literal string");
	n = new_node(ND_STRING, tok);
	do {
		sb_puts(&text, ps->tok->text);
		sb_puts(&raw, ps->tok->raw);
		next_token(ps);
	} while (ps->tok->kind == TOK_STRING &&
		 !(ps->comment_splits_strings && ps->tok->comment_before));
	n->string = sb_steal(&text);
	n->raw = sb_steal(&raw);
	return n;
}

static struct node *number_literal(struct parser *ps)
{
	struct node *n = new_node(ND_NUMBER, next_token(ps));

	n->number = n->tok->number;
	return n;
}

/* literal = number | string | "-" number */
static struct node *literal(struct parser *ps)
{
	struct token *tok = ps->tok;
	struct node *n;

	if (tok->kind == TOK_STRING)
		return string_literal(ps);
	if (tok->kind == TOK_NUMBER)
		return number_literal(ps);
	if (peek(ps, "-") && tok->next->kind == TOK_NUMBER) {
		next_token(ps);
		n = number_literal(ps);
		n->tok = tok;
		n->number = (int64_t)(0 - (uint64_t)n->number);
		return n;
	}
	expected_value(ps, tok);
}

/* ---- expressions ---- */

static struct node *new_binary(struct parser *ps, enum node_kind kind, struct token *op,
			       struct node *lhs, struct node *rhs)
{
	struct node *n = new_node(kind, op);

	n->op = op->text;
	n->lhs = lhs;
	n->rhs = rhs;
	grow_height(ps, n, lhs);
	grow_height(ps, n, rhs);
	return n;
}

/* Appends N to a list and counts it; the list's height follows its members. */
static void add_arg(struct parser *ps, struct node *owner, struct node ***tail, struct node *n)
{
	**tail = n;
	*tail = &n->next;
	owner->nargs++;
	grow_height(ps, owner, n);
}

/* index_list = (expr | "*") ("," (expr | "*"))*     inside [ ]; pass 2 checks the *s */
static void index_list(struct parser *ps, struct node *owner)
{
	struct node **tail = &owner->args;

	do {
		struct node *n;

		if (peek(ps, "*")) {
			n = new_node(ND_WILDCARD, next_token(ps));
		} else {
			enter(ps);
			n = expr(ps);
			leave(ps);
		}
		add_arg(ps, owner, &tail, n);
	} while (accept(ps, ","));
	expect_closing(ps, "]", "] ,");
}

/* args = (expr ("," expr)*)? ")" */
static void call_args(struct parser *ps, struct node *call)
{
	struct node **tail = &call->args;

	enter(ps);
	if (!accept(ps, ")")) {
		do
			add_arg(ps, call, &tail, expr(ps));
		while (accept(ps, ","));
		expect_closing(ps, ")", ") ,");
	}
	leave(ps);
}

/*
 * The pretty-printing suffix: $var$, $var$$, ->field$; at least KEEP characters stay.
 * Every trailing '$' counts, as stap reads them ($var$$$ is $var->$$$, printed so, and
 * pass 2 reads more than two as $$).
 */
static int strip_pretty_suffix(char *name, size_t keep)
{
	size_t n = strlen(name);
	int pretty = 0;

	while (n > keep && name[n - 1] == '$') {
		name[--n] = '\0';
		pretty++;
	}
	return pretty;
}

/* A token of dollars only: the pretty-printing suffix written apart ("->$", "(p) $$"). */
static bool is_pretty_token(struct token *tok)
{
	return tok->kind == TOK_IDENT && tok->text[0] == '$' &&
	       strspn(tok->text, "$") == strlen(tok->text);
}

/* Nothing may follow a pretty-printing suffix: $var$->f and (p)$$[0] are refused. */
static void after_pretty(struct parser *ps)
{
	if (peek(ps, "->") || peek(ps, "["))
		syntax_error(ps, ps->tok, "-> and [ are not accepted for a pretty-printing variable");
}

/*
 * target_tail = ("->" field | "[" expr "]")* pretty?     after $var, @cast(...), @var(...)
 * pretty      = "$" | "$$" | ...                           (field$, ->$ or apart: p->f $)
 */
static void target_tail(struct parser *ps, struct node *n)
{
	struct target_component **tail = &n->components;

	for (;;) {
		struct target_component *c;

		if (peek(ps, "->")) {
			struct token *arrow = next_token(ps);
			struct token *field = ps->tok;

			if ((field->kind != TOK_IDENT && field->kind != TOK_KEYWORD) ||
			    field->text[0] == '@')
				syntax_error(ps, field, "expected field name after '->'");
			next_token(ps);
			if (field->text[0] == '$') {	/* $var->$ or ->$$ */
				if (!is_pretty_token(field))
					syntax_error(ps, field, "expected field name after '->'");
				n->pretty = strlen(field->text);
				after_pretty(ps);
				return;
			}
			c = xcalloc(1, sizeof(*c));
			c->tok = arrow;
			c->field = xstrdup(field->text);
			n->pretty = strip_pretty_suffix(c->field, 1);
			*tail = c;
			tail = &c->next;
			if (n->pretty) {
				after_pretty(ps);
				return;
			}
		} else if (peek(ps, "[")) {
			c = xcalloc(1, sizeof(*c));
			c->tok = next_token(ps);
			enter(ps);
			c->index = expr(ps);
			leave(ps);
			grow_height(ps, n, c->index);
			expect(ps, "]");
			*tail = c;
			tail = &c->next;
		} else if (is_pretty_token(ps->tok)) {
			n->pretty = strlen(next_token(ps)->text);
			after_pretty(ps);
			return;
		} else {
			return;
		}
	}
}

/* target = "$name" | "$$vars" | "$$parms" | "$$locals" | "$$return" ... with its tail */
static struct node *target(struct parser *ps)
{
	struct node *n = new_node(ND_TARGET, next_token(ps));

	n->string = xstrdup(n->tok->text);
	n->pretty = strip_pretty_suffix(n->string, 2);
	if (n->pretty)
		after_pretty(ps);
	else
		target_tail(ps, n);
	return n;
}

/* A string of @cast or @var: stap's words when it is not one are "expected string". */
static char *cast_string(struct parser *ps)
{
	if (ps->tok->kind != TOK_STRING) {
		check_not_eof(ps);
		syntax_error(ps, ps->tok, "expected string");
	}
	return string_literal(ps)->raw;
}

/* ("," string)? ")" target_tail      the end of @cast and @var: a module, then ->... */
static void module_and_tail(struct parser *ps, struct node *n)
{
	if (accept(ps, ","))
		n->module = cast_string(ps);
	expect(ps, ")");
	target_tail(ps, n);
}

/*
 * "@operator" "(" expr      the start of an @-operator taking an expression: its node of
 * KIND with the operand.  The caller parses the rest, then leave()s.
 */
static struct node *at_operand(struct parser *ps, enum node_kind kind)
{
	struct node *n = new_node(kind, next_token(ps));

	expect(ps, "(");
	enter(ps);
	n->lhs = expr(ps);
	grow_height(ps, n, n->lhs);
	return n;
}

/* cast = "@cast" "(" expr "," string ("," string)? ")" target_tail */
static struct node *cast(struct parser *ps)
{
	struct node *n = at_operand(ps, ND_CAST);

	leave(ps);
	expect(ps, ",");
	n->type_name = cast_string(ps);
	module_and_tail(ps, n);
	return n;
}

/* at_var = "@var" "(" string ("," string)? ")" target_tail */
static struct node *at_var(struct parser *ps)
{
	struct node *n = new_node(ND_AT_VAR, next_token(ps));

	expect(ps, "(");
	n->string = cast_string(ps);
	module_and_tail(ps, n);
	return n;
}

/* "@defined" | "@entry" | "@probewrite" "(" expr ")" */
static struct node *at_wrapper(struct parser *ps, enum node_kind kind)
{
	struct node *n = at_operand(ps, kind);

	leave(ps);
	expect(ps, ")");
	if (kind == ND_PROBEWRITE && n->lhs->kind != ND_VAR && n->lhs->kind != ND_TARGET)
		syntax_error(ps, n->lhs->tok, "expected a variable in @probewrite");
	return n;
}

/* Written in the tapset library itself (not an -I folder's), even where a macro of it
 * expands into a script's code. */
static bool from_library(const struct token *t)
{
	return t->file && t->file->is_tapset && !t->file->from_include_dir;
}

/* @const("NAME"): a C constant, as a stable embedded-C expression (tapsets and -g; and a
 * library macro's own @const with its own name, such as @MAXSTRINGLEN's, in any script). */
static struct node *at_const(struct parser *ps)
{
	struct token *at = next_token(ps);
	struct node *name, *n;

	expect(ps, "(");
	name = string_literal(ps);
	expect(ps, ")");
	if (!ps->privileged && !(from_library(at) && from_library(name->tok)))
		syntax_error(ps, at, "using @const operator not permitted; need stap -g");
	n = new_node(ND_EMBEDDED_EXPR, at);
	n->string = xasprintf("/* pure */ /* unprivileged */ /* stable */ %s", name->string);
	return n;
}

/*
 * at_deref    = ("@kderef" | "@uderef") "(" size "," expr ")"
 * at_register = ("@kregister" | "@uregister") "(" regno ")"
 * size, regno = "-"? number                    (kept as stap keeps them: 32 bits, unsigned)
 * SystemTap 5's raw reads: SIZE bytes at an address of the kernel or of the current
 * process, and DWARF register REGNO of the probe's kernel or user registers.  The kernel
 * ones need guru mode.  Each is a call of the tapset's __stp_kderef() and the like that
 * -p1 prints as the operator (n->op), and whose errors are placed at the operator.
 */
static struct node *at_raw_read(struct parser *ps)
{
	struct token *at = ps->tok;
	bool deref = strstr(at->text, "deref") != NULL;
	struct node *n, *number, **tail;
	struct token *minus = NULL;

	if (at->text[1] == 'k' && !ps->privileged)
		syntax_error(ps, at, "using %s operator not permitted; need stap -g", at->text);
	next_token(ps);
	n = new_node(ND_CALL, at);
	n->op = at->text;
	n->string = xasprintf("__stp_%s", at->text + 1);
	expect(ps, "(");
	if (peek(ps, "-"))
		minus = next_token(ps);
	if (ps->tok->kind != TOK_NUMBER)
		syntax_error(ps, ps->tok, "expected number");
	number = number_literal(ps);
	if (minus)
		number->number = (int64_t)(0 - (uint64_t)number->number);
	number->number = (uint32_t)number->number;
	n->args = number;
	n->nargs = 1;
	tail = &number->next;
	if (deref) {
		expect(ps, ",");
		enter(ps);
		*tail = expr(ps);
		leave(ps);
		grow_height(ps, n, *tail);
		n->nargs++;
	}
	expect(ps, ")");
	return n;
}

static bool is_stat_op(const char *name)
{
	static const char *const ops[] = {
		"@count", "@sum", "@min", "@max", "@avg", "@variance", NULL,
	};

	for (int i = 0; ops[i]; i++)
		if (strcmp(name, ops[i]) == 0)
			return true;
	return false;
}

/* stat = ("@count" | "@sum" | ... | "@variance") "(" expr ("," expr)? ")" */
static struct node *stat_op(struct parser *ps)
{
	struct node *n = at_operand(ps, ND_STAT);
	bool variance = strcmp(n->tok->text, "@variance") == 0;
	struct node **tail = &n->args;

	n->string = n->tok->text;
	if (variance && accept(ps, ","))
		add_arg(ps, n, &tail, expr(ps));
	if (peek(ps, ","))	/* stap's words, at the comma */
		syntax_error_read(ps, ps->tok, variance ? "not more than 2 parameters allowed" :
					       "not more than 1 parameter allowed");
	leave(ps);
	expect(ps, ")");
	return n;
}

/*
 * hist = "@hist_linear" "(" expr "," number "," number "," number ")"
 *      | "@hist_log" "(" expr ")"               each optionally followed by "[" expr "]"
 */
static struct node *hist_op(struct parser *ps)
{
	struct node *n = at_operand(ps, ND_HIST);
	int params = strcmp(n->tok->text, "@hist_linear") == 0 ? 3 : 0;
	struct node **tail = &n->args;

	n->string = n->tok->text;
	for (int i = 0; i < params; i++) {	/* start, stop, interval: literal numbers */
		struct node *param;

		expect(ps, ",");
		param = literal(ps);
		if (param->kind != ND_NUMBER)
			syntax_error(ps, param->tok, "expected number");
		add_arg(ps, n, &tail, param);
	}
	leave(ps);
	expect(ps, ")");
	if (peek(ps, "[")) {
		struct node *bucket = new_node(ND_INDEX, next_token(ps));

		bucket->lhs = n;
		grow_height(ps, bucket, n);
		index_list(ps, bucket);
		if (bucket->nargs != 1)
			syntax_error(ps, bucket->tok, "a histogram bucket takes one index");
		return bucket;
	}
	return n;
}

/*
 * print_call = print_name "(" args ")"
 * printf and sprintf need a literal format; printd and friends a literal delimiter and at
 * least two values; print and sprint at least one value; println() prints a newline.
 */
static struct node *print_call(struct parser *ps, struct token *name, enum print_kind kind)
{
	struct node *n = new_node(ND_PRINT, name);
	struct node **tail = &n->args;
	bool formatted = kind == PRINT_PRINTF || kind == PRINT_SPRINTF;
	bool delimited = kind == PRINT_PRINTD || kind == PRINT_PRINTDLN ||
			 kind == PRINT_SPRINTD || kind == PRINT_SPRINTDLN;

	n->string = name->text;
	n->print = kind;
	enter(ps);
	if (formatted || delimited) {
		add_arg(ps, n, &tail, string_literal(ps));
		if (formatted && n->args->kind == ND_STRING &&
		    format_conversions(n->args->string, NULL, 0) < 0)
			syntax_error(ps, ps->tok, "invalid or missing conversion specifier");
		if (formatted && peek(ps, ")"))
			goto close;
		if (delimited && peek(ps, ")")) {	/* stap wants a value after the ")" */
			next_token(ps);
			expected_value(ps, ps->tok);
		}
		if (!peek(ps, ",")) {
			check_not_eof(ps);
			syntax_error_from(ps, SITE_LIST_END, ps->tok, "expected one of ', )'");
		}
		next_token(ps);
	}
	if ((kind == PRINT_PRINTLN || kind == PRINT_SPRINTLN) && peek(ps, ")"))
		goto close;	/* a bare newline */
	if (kind == PRINT_PRINT && (peek_ident(ps, "@hist_log") || peek_ident(ps, "@hist_linear"))) {
		add_arg(ps, n, &tail, expr(ps));	/* print(@hist_...) has nothing else */
		goto close;
	}
	do
		add_arg(ps, n, &tail, expr(ps));
	while (accept(ps, ","));
	if (!peek(ps, ")")) {
		check_not_eof(ps);
		syntax_error_from(ps, SITE_LIST_END, ps->tok, "expected one of ', )'");
	}
	if (delimited && n->nargs < 3) {	/* stap wants a value after the ")" */
		next_token(ps);
		expected_value(ps, ps->tok);
	}
close:
	leave(ps);
	expect(ps, ")");
	return n;
}

/*
 * primary = number | string+ | "(" expr ")" | embedded-C
 *         | target | cast | at_var | "@defined" | "@entry" | "@probewrite" | "@const"
 *         | "@perf" "(" string ")" | at_deref | at_register
 *         | stat | hist | name "(" args | name "[" index_list "]" | name
 */
static struct node *primary(struct parser *ps)
{
	struct token *tok = ps->tok;
	struct node *n;
	const char *t = tok->text;

	if (tok->kind == TOK_NUMBER)
		return number_literal(ps);
	if (tok->kind == TOK_STRING)
		return string_literal(ps);
	if (peek(ps, "(")) {
		next_token(ps);
		enter(ps);
		n = expr(ps);
		leave(ps);
		expect(ps, ")");
		return n;
	}
	if (tok->kind == TOK_EMBEDDED) {
		n = new_node(ND_EMBEDDED_EXPR, tok);
		n->string = embedded_code(ps)->text;
		return n;
	}
	if (tok->kind != TOK_IDENT)
		expected_value(ps, tok);
	if (t[0] == '$')
		return target(ps);
	if (t[0] == '@') {
		if (strcmp(t, "@cast") == 0)
			return cast(ps);
		if (strcmp(t, "@var") == 0)
			return at_var(ps);
		if (strcmp(t, "@defined") == 0)
			return at_wrapper(ps, ND_DEFINED);
		if (strcmp(t, "@entry") == 0)
			return at_wrapper(ps, ND_ENTRY);
		if (strcmp(t, "@probewrite") == 0)
			return at_wrapper(ps, ND_PROBEWRITE);
		if (strcmp(t, "@const") == 0)
			return at_const(ps);
		if (strcmp(t, "@kderef") == 0 || strcmp(t, "@uderef") == 0 ||
		    strcmp(t, "@kregister") == 0 || strcmp(t, "@uregister") == 0)
			return at_raw_read(ps);
		if (strcmp(t, "@perf") == 0) {
			n = new_node(ND_PERF, next_token(ps));
			expect(ps, "(");
			n->string = string_literal(ps)->raw;
			if (!*n->string)	/* a counter has a name (stap's words, at what follows) */
				syntax_error(ps, ps->tok, "expected non-empty string");
			expect(ps, ")");
			return n;
		}
		if (is_stat_op(t))
			return stat_op(ps);
		if (strcmp(t, "@hist_linear") == 0 || strcmp(t, "@hist_log") == 0)
			return hist_op(ps);
		syntax_error(ps, tok, "unknown operator %s", t);
	}
	next_token(ps);
	if (accept(ps, "(")) {
		enum print_kind kind = print_kind_of(t);

		if (kind != PRINT_NONE)
			return print_call(ps, tok, kind);
		n = new_node(ND_CALL, tok);
		n->string = tok->text;
		call_args(ps, n);
		return n;
	}
	n = new_node(ND_VAR, tok);
	n->string = tok->text;
	if (peek(ps, "[")) {
		struct node *element = new_node(ND_INDEX, next_token(ps));

		element->lhs = n;
		index_list(ps, element);
		return element;
	}
	return n;
}

/*
 * postfix = primary autocast? ("++" | "--")?
 * autocast = ("->" field | "[" expr "]" | pretty) target_tail
 *                                                e.g. s->name, f()->x, (p)[0], f()$, (p) $$
 * A value that came from a typed pointer may be dereferenced again (pass 2 finds the type).
 */
static struct node *postfix(struct parser *ps)
{
	bool grouped = peek(ps, "(");	/* (&$x)->f: the value the group has */
	struct node *n = primary(ps);

	if ((peek(ps, "->") || peek(ps, "[") || is_pretty_token(ps->tok)) && !ps->no_autocast &&
	    (grouped || (n->kind != ND_TARGET && n->kind != ND_CAST && n->kind != ND_AT_VAR))) {
		struct node *cast = new_node(ND_AUTOCAST, ps->tok);

		cast->lhs = n;
		grow_height(ps, cast, n);
		target_tail(ps, cast);
		n = cast;
	}

	if (peek(ps, "++") || peek(ps, "--")) {
		struct node *inc = new_node(ND_INCREMENT, next_token(ps));

		inc->op = inc->tok->text;
		inc->lhs = n;
		grow_height(ps, inc, n);
		return inc;
	}
	return n;
}

/*
 * unary = ("++" | "--") unary | ("-" | "+" | "!" | "~") unary | "&" postfix | postfix
 */
static struct node *unary(struct parser *ps)
{
	struct token *tok = ps->tok;
	struct node *n;

	if (peek(ps, "++") || peek(ps, "--")) {
		n = new_node(ND_INCREMENT, next_token(ps));
		n->op = tok->text;
		n->prefix = true;
		enter(ps);
		n->lhs = unary(ps);
		leave(ps);
		grow_height(ps, n, n->lhs);
		return n;
	}
	if (peek(ps, "-") || peek(ps, "+") || peek(ps, "!") || peek(ps, "~")) {
		n = new_node(ND_UNARY, next_token(ps));
		n->op = tok->text;
		enter(ps);
		n->lhs = unary(ps);
		leave(ps);
		grow_height(ps, n, n->lhs);
		return n;
	}
	if (peek(ps, "&")) {
		/* &$var, &@cast(...)->f: the address of what they name; &(expr): an operator */
		next_token(ps);
		enter(ps);
		n = postfix(ps);
		leave(ps);
		if (ps->no_autocast && n->kind != ND_TARGET && n->kind != ND_CAST &&
		    n->kind != ND_AT_VAR)	/* stap 2.5's words */
			syntax_error(ps, n->tok, "expected @cast, @var or $var");
		if (n->kind == ND_TARGET || n->kind == ND_CAST || n->kind == ND_AT_VAR ||
		    n->kind == ND_AUTOCAST) {
			n->addressof = true;
			return n;
		}
		struct node *u = new_node(ND_UNARY, tok);

		u->op = tok->text;
		u->lhs = n;
		grow_height(ps, u, n);
		return u;
	}
	return postfix(ps);
}

/*
 * The binary operators, loosest first; each level is left-associative over the next:
 *   logical_or     = logical_and ("||" logical_and)*
 *   logical_and    = bit_or ("&&" bit_or)*
 *   bit_or         = bit_xor ("|" bit_xor)*
 *   bit_xor        = bit_and ("^" bit_and)*
 *   bit_and        = array_in ("&" array_in)*
 *   array_in       = "[" index_list "]" "in" name | comparison ("in" name)?
 *   comparison     = shift (("<" | "<=" | ">" | ">=" | "==" | "!=") shift
 *                          | ("=~" | "!~") string)*
 *   shift          = concatenation (("<<" | ">>" | ">>>") concatenation)*
 *   concatenation  = additive ("." additive)*
 *   additive       = multiplicative (("+" | "-") multiplicative)*
 *   multiplicative = unary (("*" | "/" | "%") unary)*
 * binary(ps, level) parses one level by climbing this table (as Lua's subexpr does).
 */
static const struct binary_level {
	const char *ops[7];		/* NULL-ended */
	enum node_kind kind;
} binary_levels[] = {
	{ { "||" }, ND_LOGICAL },
	{ { "&&" }, ND_LOGICAL },
	{ { "|" }, ND_BINARY },
	{ { "^" }, ND_BINARY },
	{ { "&" }, ND_BINARY },
	{ { NULL }, ND_IN },		/* array_in: its own rule */
	{ { "<", "<=", ">", ">=", "==", "!=" }, ND_COMPARE },	/* and =~ !~ */
	{ { "<<", ">>", ">>>" }, ND_BINARY },	/* >>>: stap's logical shift */
	{ { "." }, ND_CONCAT },
	{ { "+", "-" }, ND_BINARY },
	{ { "*", "/", "%" }, ND_BINARY },
};

#define BINARY_LEVELS ((int)(sizeof(binary_levels) / sizeof(binary_levels[0])))

static struct node *binary(struct parser *ps, int level);

static bool at_level_operator(struct parser *ps, const struct binary_level *lv)
{
	for (int i = 0; lv->ops[i]; i++)
		if (peek(ps, lv->ops[i]))
			return true;
	return false;
}

/* array = name */
static struct node *array_name(struct parser *ps)
{
	struct token *tok = expect_ident(ps);
	struct node *n = new_node(ND_VAR, tok);

	n->string = tok->text;
	return n;
}

/* what "in" tests: an array, or a histogram's buckets (i in @hist_log(x)) */
static struct node *in_operand(struct parser *ps)
{
	struct node *n;

	if (!peek_ident(ps, "@hist_linear") && !peek_ident(ps, "@hist_log"))
		return array_name(ps);
	n = hist_op(ps);
	if (n->kind != ND_HIST)
		syntax_error(ps, n->tok, "expected a histogram");
	return n;
}

/* array_in = "[" index_list "]" "in" in_operand | comparison ("in" in_operand)? */
static struct node *array_in(struct parser *ps, int level)
{
	struct node *n;

	if (peek(ps, "[")) {
		n = new_node(ND_IN, next_token(ps));
		index_list(ps, n);
		n->tok = expect(ps, "in");
		n->lhs = in_operand(ps);
		return n;
	}
	n = binary(ps, level + 1);
	if (peek(ps, "in")) {
		struct node *in = new_node(ND_IN, next_token(ps));

		in->args = n;
		in->nargs = 1;
		grow_height(ps, in, n);
		in->lhs = in_operand(ps);
		return in;
	}
	return n;
}

static struct node *binary(struct parser *ps, int level)
{
	const struct binary_level *lv = &binary_levels[level];
	struct node *n;

	if (level == BINARY_LEVELS)
		return unary(ps);
	if (lv->kind == ND_IN)
		return array_in(ps, level);
	n = binary(ps, level + 1);
	for (;;) {
		struct token *op = ps->tok;

		if (lv->kind == ND_COMPARE && (peek(ps, "=~") || peek(ps, "!~"))) {
			next_token(ps);
			n = new_binary(ps, ND_REGEX, op, n, string_literal(ps));
		} else if (at_level_operator(ps, lv)) {
			next_token(ps);
			n = new_binary(ps, lv->kind, op, n, binary(ps, level + 1));
		} else {
			return n;
		}
	}
}

/* ternary = logical_or ("?" expr ":" ternary)?    (":" expr before --compatible=4.0) */
static struct node *ternary(struct parser *ps)
{
	struct node *n = binary(ps, 0);

	if (peek(ps, "?")) {
		struct node *t = new_node(ND_TERNARY, next_token(ps));

		t->cond = n;
		enter(ps);
		t->then = expr(ps);
		expect(ps, ":");
		t->els = ps->old_ternary ? expr(ps) : ternary(ps);
		leave(ps);
		grow_height(ps, t, t->cond);
		grow_height(ps, t, t->then);
		grow_height(ps, t, t->els);
		return t;
	}
	return n;
}

static bool is_assignment_op(struct token *tok)
{
	static const char *const ops[] = {
		"=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^=", ".=", "<<<",
		NULL,
	};

	for (int i = 0; ops[i]; i++)
		if (token_is(tok, ops[i]))
			return true;
	return false;
}

/* assignment = ternary (assign_op assignment)?      assign_op includes "<<<" */
static struct node *assignment(struct parser *ps)
{
	struct node *n = ternary(ps);

	if (is_assignment_op(ps->tok)) {
		struct token *op = next_token(ps);

		enter(ps);
		n = new_binary(ps, strcmp(op->text, "<<<") == 0 ? ND_ACCUMULATE : ND_ASSIGN, op, n,
			       assignment(ps));
		leave(ps);
	}
	return n;
}

/* expr = assignment */
static struct node *expr(struct parser *ps)
{
	return assignment(ps);
}

/* ---- statements ---- */

/* A plain expression statement, e.g. the init and increment of a for loop. */
static struct node *expr_statement(struct parser *ps)
{
	struct node *n = new_node(ND_EXPR_STMT, ps->tok);

	n->lhs = expr(ps);
	return n;
}

/* for = "for" "(" expr? ";" expr? ";" expr? ")" statement */
static struct node *for_loop(struct parser *ps, struct token *tok)
{
	struct node *n = new_node(ND_FOR, tok);

	expect(ps, "(");
	if (!peek(ps, ";"))
		n->init = expr_statement(ps);
	expect(ps, ";");
	if (peek(ps, ";")) {
		n->cond = new_node(ND_NUMBER, ps->tok);
		n->cond->number = 1;
	} else {
		n->cond = expr(ps);
	}
	expect(ps, ";");
	if (!peek(ps, ")"))
		n->incr = expr_statement(ps);
	expect(ps, ")");
	n->then = statement(ps);
	return n;
}

/* A + or - after a foreach key or array sorts by it; only one may. */
static void sort_mark(struct parser *ps, struct foreach *fe, int key)
{
	if (!peek(ps, "+") && !peek(ps, "-"))
		return;
	if (fe->sort_key != -1)
		syntax_error(ps, ps->tok, "multiple sort directives");
	fe->sort_key = key;
	fe->sort_direction = peek(ps, "+") ? 1 : -1;
	next_token(ps);
}

static struct node *foreach_key(struct parser *ps, struct foreach *fe, struct node ***tail)
{
	struct node *key = new_node(ND_VAR, expect_ident(ps));

	key->string = key->tok->text;
	**tail = key;
	*tail = &key->next;
	fe->nkeys++;
	sort_mark(ps, fe, fe->nkeys);
	return key;
}

/*
 * foreach = "foreach" "(" (name sort? "=")? keys "in" source ("limit" expr)? ")" statement
 * keys    = name sort? | "[" name sort? ("," name sort?)* "]"
 * source  = hist | name ("[" index_list "]")? aggregate? sort?
 */
static struct node *foreach_loop(struct parser *ps, struct token *tok)
{
	struct node *n = new_node(ND_FOREACH, tok);
	struct foreach *fe = xcalloc(1, sizeof(*fe));
	struct node **tail = &fe->keys;

	n->foreach = fe;
	fe->sort_key = -1;
	expect(ps, "(");
	if (ps->tok->kind == TOK_IDENT && (token_is(ps->tok->next, "=") ||
					   ((token_is(ps->tok->next, "+") ||
					     token_is(ps->tok->next, "-")) &&
					    token_is(ps->tok->next->next, "=")))) {
		fe->value = new_node(ND_VAR, expect_ident(ps));
		fe->value->string = fe->value->tok->text;
		sort_mark(ps, fe, 0);
		expect(ps, "=");
	}
	if (accept(ps, "[")) {
		do
			foreach_key(ps, fe, &tail);
		while (accept(ps, ","));
		expect(ps, "]");
	} else {
		foreach_key(ps, fe, &tail);
	}
	expect(ps, "in");
	if (peek_ident(ps, "@hist_linear") || peek_ident(ps, "@hist_log")) {
		fe->array = hist_op(ps);
		if (fe->array->kind != ND_HIST)
			syntax_error(ps, fe->array->tok, "expected a histogram to iterate over");
	} else {
		fe->array = array_name(ps);
		if (peek(ps, "[")) {
			struct node *filter = new_node(ND_INDEX, next_token(ps));

			index_list(ps, filter);
			fe->filter = filter->args;
		}
		if (ps->tok->kind == TOK_IDENT && is_stat_op(ps->tok->text)) {
			fe->sort_aggregate = next_token(ps)->text;
			if (!peek(ps, "+") && !peek(ps, "-"))	/* "in a @sum+": by it */
				syntax_error(ps, ps->tok, "expected sort directive");
		}
		sort_mark(ps, fe, 0);
	}
	if (accept(ps, "limit"))
		fe->limit = expr(ps);
	expect(ps, ")");
	n->then = statement(ps);
	return n;
}

/* try = "try" block "catch" ("(" name ")")? block */
static struct node *try_catch(struct parser *ps, struct token *tok)
{
	struct node *n = new_node(ND_TRY, tok);

	n->then = block(ps);
	expect(ps, "catch");
	if (accept(ps, "(")) {
		n->catch_var = new_node(ND_VAR, expect_ident(ps));
		n->catch_var->string = n->catch_var->tok->text;
		expect(ps, ")");
	}
	n->els = block(ps);
	return n;
}

/* What "if" or "while" at TOK starts: KIND, "(" expr ")" statement. */
static struct node *conditional_statement(struct parser *ps, enum node_kind kind,
					  struct token *tok)
{
	struct node *n = new_node(kind, tok);

	expect(ps, "(");
	n->cond = expr(ps);
	expect(ps, ")");
	n->then = statement(ps);
	return n;
}

/*
 * statement = block | ";" | "if" "(" expr ")" statement ("else" statement)?
 *           | "while" "(" expr ")" statement | for | foreach | try
 *           | ("break" | "continue" | "next" | "return" expr? | "delete" postfix | expr) ";"?
 */
static struct node *statement_body(struct parser *ps)
{
	struct token *tok = ps->tok;
	struct node *n;

	if (peek(ps, "{"))
		return block(ps);
	if (accept(ps, ";"))
		return new_node(ND_NULL_STMT, tok);
	if (accept(ps, "if")) {
		n = conditional_statement(ps, ND_IF, tok);
		if (accept(ps, "else"))
			n->els = statement(ps);
		return n;
	}
	if (accept(ps, "while"))	/* a for loop without its init and increment */
		return conditional_statement(ps, ND_FOR, tok);
	if (accept(ps, "for"))
		return for_loop(ps, tok);
	if (accept(ps, "foreach"))
		return foreach_loop(ps, tok);
	if (accept(ps, "try"))
		return try_catch(ps, tok);
	if (accept(ps, "break"))
		n = new_node(ND_BREAK, tok);
	else if (accept(ps, "continue"))
		n = new_node(ND_CONTINUE, tok);
	else if (accept(ps, "next"))
		n = new_node(ND_NEXT, tok);
	else if (accept(ps, "return")) {
		if (!ps->in_function)
			syntax_error(ps, tok, "found 'return' not in function context");
		n = new_node(ND_RETURN, tok);
		if (!peek(ps, ";") && !peek(ps, "}"))
			n->lhs = expr(ps);
	} else if (accept(ps, "delete")) {
		n = new_node(ND_DELETE, tok);	/* pass 2 checks what is deleted */
		n->lhs = postfix(ps);
	} else if (tok->kind == TOK_KEYWORD || tok->kind == TOK_EOF) {
		syntax_error_peeked(ps, tok, "expected statement");	/* probe, else, ... */
	} else {
		n = expr_statement(ps);
	}
	accept(ps, ";");	/* ends a simple statement; after a block it would be one */
	return n;
}

static struct node *statement(struct parser *ps)
{
	struct node *n;

	enter(ps);
	n = statement_body(ps);
	leave(ps);
	return n;
}

/* block = "{" statement* "}" */
static struct node *block(struct parser *ps)
{
	struct node *n = new_node(ND_BLOCK, expect(ps, "{"));
	struct node head = { 0 }, *tail = &head;

	while (!accept(ps, "}")) {
		if (ps->tok->kind == TOK_EOF)
			syntax_error_peeked(ps, ps->tok, "expected statement");
		tail = tail->next = statement(ps);
	}
	n->body = head.next;
	return n;
}

/* ---- declarations ---- */

/* A name part: identifier, keyword (return, call...) or wildcard; glued when unspaced. */
static bool is_name_part(struct token *tok)
{
	return tok->kind == TOK_IDENT || tok->kind == TOK_KEYWORD || token_is(tok, "*") ||
	       (tok->kind == TOK_NUMBER);
}

/* component = name_part+ ("(" literal ")")?       e.g. function("x"), sys*call, ** */
static struct component *component(struct parser *ps)
{
	struct component *c = xcalloc(1, sizeof(*c));
	struct strbuf name = { 0 };

	c->tok = ps->tok;
	if (!is_name_part(ps->tok) || ps->tok->kind == TOK_NUMBER ||
	    ps->tok->text[0] == '$' || ps->tok->text[0] == '@')
		syntax_error(ps, ps->tok, "expected identifier or '*' or '{'");
	do
		sb_puts(&name, next_token(ps)->text);
	while (is_name_part(ps->tok) && !ps->tok->space_before);
	c->name = sb_steal(&name);
	if (accept(ps, "(")) {
		c->arg = literal(ps);
		expect(ps, ")");
	}
	return c;
}

/* Alternatives of a probe point fragment: each a list of components, and its marks. */
struct fragments {
	struct component **lists;
	unsigned char *marks;		/* MARK_OPTIONAL | MARK_SUFFICIENT of each */
	int count;
};

enum { MARK_OPTIONAL = 1, MARK_SUFFICIENT = 2 };

#define MAX_BRACE_EXPANSION 10000

static struct component *copy_components(struct component *c, struct component *tail)
{
	struct component head = { 0 }, *last = &head;

	for (; c; c = c->next) {
		last->next = xmalloc(sizeof(*last));
		*last->next = *c;
		last = last->next;
	}
	last->next = tail;
	return head.next;
}

static void add_fragment(struct parser *ps, struct fragments *set, struct component *list,
			 unsigned char marks)
{
	if (set->count >= MAX_BRACE_EXPANSION)
		syntax_error(ps, ps->tok, "probe point braces expand to more than %d points",
			     MAX_BRACE_EXPANSION);
	set->lists = xrealloc(set->lists, (set->count + 1) * sizeof(*set->lists));
	set->marks = xrealloc(set->marks, set->count + 1);
	set->lists[set->count] = list;
	set->marks[set->count++] = marks;
}

/* ("?" | "!")* */
static unsigned char point_marks(struct parser *ps)
{
	unsigned char marks = 0;

	for (;;) {
		if (accept(ps, "?"))
			marks |= MARK_OPTIONAL;
		else if (accept(ps, "!"))
			marks |= MARK_OPTIONAL | MARK_SUFFICIENT;
		else
			return marks;
	}
}

static struct fragments fragment(struct parser *ps, struct token *start);

/* segment = component | "{" fragment marks ("," fragment marks)* "}" */
static struct fragments segment(struct parser *ps, struct token *start)
{
	struct fragments set = { 0 };

	if (!accept(ps, "{")) {
		add_fragment(ps, &set, component(ps), 0);
		return set;
	}
	enter(ps);
	do {
		struct fragments alternative = fragment(ps, start);
		unsigned char marks = point_marks(ps);

		for (int i = 0; i < alternative.count; i++)
			add_fragment(ps, &set, alternative.lists[i], alternative.marks[i] | marks);
	} while (accept(ps, ","));
	leave(ps);
	expect(ps, "}");
	return set;
}

/*
 * fragment = segment ("." segment)*      every combination of the alternatives
 * Marks inside braces are only allowed on the last segment: kernel.{a!, b}
 */
static struct fragments fragment(struct parser *ps, struct token *start)
{
	struct fragments set = segment(ps, start);

	while (accept(ps, ".")) {
		struct fragments next = segment(ps, start), product = { 0 };

		for (int i = 0; i < set.count; i++) {
			if (set.marks[i])
				syntax_error(ps, start, "'?', '!' or condition must only be specified "
							"in suffix");
			for (int j = 0; j < next.count; j++)
				add_fragment(ps, &product, copy_components(set.lists[i],
						copy_components(next.lists[j], NULL)), next.marks[j]);
		}
		set = product;
	}
	return set;
}

/*
 * probe_point = fragment ("?" | "!")* ("if" "(" expr ")")?
 * Braces make several points: kernel.{function("a"), function("b")}.return is two.
 */
static struct probe_point *probe_point(struct parser *ps)
{
	struct token *start = ps->tok;
	struct fragments set = fragment(ps, start);
	struct probe_point *first = NULL, **tail = &first;
	unsigned char marks = point_marks(ps);
	struct node *condition = NULL;

	if (accept(ps, "if")) {
		expect(ps, "(");
		condition = expr(ps);
		expect(ps, ")");
	}
	for (int i = 0; i < set.count; i++) {
		struct probe_point *pp = xcalloc(1, sizeof(*pp));
		unsigned char m = set.marks[i] | marks;

		pp->tok = start;
		pp->components = set.lists[i];
		pp->optional = m & MARK_OPTIONAL;
		pp->sufficient = m & MARK_SUFFICIENT;
		pp->condition = condition;
		*tail = pp;
		tail = &pp->next;
	}
	return first;
}

/* Appends a probe_point list to *TAIL; returns the new tail. */
static struct probe_point **append_points(struct probe_point **tail, struct probe_point *list)
{
	*tail = list;
	while (*tail)
		tail = &(*tail)->next;
	return tail;
}

/*
 * probe = "probe" probe_point ("," probe_point)* block
 *       | "probe" probe_point ("=" | "+=") probe_point ("," probe_point)* block ("," block)?
 */
static void probe(struct parser *ps, bool private_)
{
	struct probe *p = xcalloc(1, sizeof(*p));
	struct probe_point **tail = &p->points;

	p->tok = expect(ps, "probe");
	p->file = ps->file;
	p->private_ = private_;
	tail = append_points(tail, probe_point(ps));
	if (peek(ps, "=") || peek(ps, "+=")) {
		if (p->points->next)
			syntax_error(ps, ps->tok, "a probe alias has a single name");
		if (p->points->optional || p->points->sufficient)
			syntax_error(ps, p->points->tok, "probe point alias name cannot be optional "
				     "nor sufficient");
		p->alias = peek(ps, "=") ? ALIAS_PROLOGUE : ALIAS_EPILOGUE;
		next_token(ps);
		p->alias_name = p->points;
		p->points = NULL;
		tail = append_points(&p->points, probe_point(ps));
	}
	while (accept(ps, ","))
		tail = append_points(tail, probe_point(ps));
	if (!p->alias && (peek(ps, "=") || peek(ps, "+=")))
		syntax_error(ps, ps->tok, "expected probe point specifier");
	if (!peek(ps, "{"))	/* stap's words for what may follow a point */
		syntax_error_peeked(ps, ps->tok, "expected one of ', { } = +='");
	p->body = block(ps);
	if (p->alias == ALIAS_PROLOGUE && accept(ps, ","))
		p->epilogue = block(ps);
	*ps->probe_tail = p;
	ps->probe_tail = &p->next;
}

/* type = ":" ("long" | "string") */
static enum stap_type type_annotation(struct parser *ps)
{
	if (!accept(ps, ":"))
		return TYPE_UNKNOWN;
	if (accept(ps, "long"))
		return TYPE_LONG;
	if (accept(ps, "string"))
		return TYPE_STRING;
	syntax_error(ps, ps->tok, "expected 'long' or 'string'");
}

/*
 * function = "function" name type? "(" (param ("," param)*)? ")" (":" number)?
 *            (block | embedded)
 * param    = name type?
 */
static void function(struct parser *ps, bool private_)
{
	struct function *f = xcalloc(1, sizeof(*f));
	struct symbol **tail = &f->params;

	expect(ps, "function");
	f->tok = expect_ident(ps);
	f->name = f->tok->text;
	f->file = ps->file;
	f->private_ = private_;
	f->return_type = type_annotation(ps);
	expect(ps, "(");
	if (!accept(ps, ")")) {
		do {
			struct symbol *param = xcalloc(1, sizeof(*param));

			param->tok = expect_ident(ps);
			param->name = param->tok->text;
			for (struct symbol *q = f->params; q; q = q->next)
				if (strcmp(q->name, param->name) == 0)
					syntax_error(ps, param->tok, "duplicate parameter names");
			param->kind = SYM_PARAM;
			param->position = f->nparams;
			param->type = type_annotation(ps);
			*tail = param;
			tail = &param->next;
			f->nparams++;
		} while (accept(ps, ","));
		expect(ps, ")");
	}
	if (accept(ps, ":")) {	/* a literal; stap's words for each wrong one */
		struct node *priority = literal(ps);

		if (priority->kind != ND_NUMBER)
			syntax_error(ps, ps->tok, "expected literal number");
		if (priority->number <= 0)
			syntax_error(ps, priority->tok->kind == TOK_NUMBER ? priority->tok :
					 priority->tok->next, "specified priority must be > 0");
		f->priority = priority->number;
		f->has_priority = true;
	}
	if (ps->tok->kind == TOK_EMBEDDED) {
		f->embedded = embedded_code(ps);
	} else {
		ps->in_function = true;
		f->body = block(ps);
		ps->in_function = false;
	}
	*ps->function_tail = f;
	ps->function_tail = &f->next;
}

/* global_var = name "%"? ("[" number "]")? "%"? ("=" literal)? */
static void global_var(struct parser *ps, bool private_)
{
	struct symbol *g = xcalloc(1, sizeof(*g));

	g->tok = expect_ident(ps);
	g->name = g->tok->text;
	g->kind = SYM_GLOBAL;
	g->private_ = private_;
	for (struct symbol *o = ps->file->globals; o; o = o->next)	/* as stap: per file */
		if (strcmp(o->name, g->name) == 0)
			syntax_error(ps, g->tok, o->private_ == private_ ? "duplicate global name" :
				     "global versus private variable declaration conflict");
	g->wrap = accept(ps, "%");
	if (accept(ps, "[")) {
		if (ps->tok->kind != TOK_NUMBER)
			syntax_error(ps, ps->tok, "expected number");
		g->array_size = next_token(ps)->number;
		expect(ps, "]");
		if (g->array_size < 1 || g->array_size > INT32_MAX) {
			/* stap names the end of the file, whatever follows the ] */
			struct token *end = ps->tok;

			while (end->kind != TOK_EOF)
				end = end->next;
			syntax_error_peeked(ps, end, "array size out of range");
		}
		if (accept(ps, "%"))
			g->wrap = true;
	}
	if (accept(ps, "=")) {
		if (g->array_size)
			syntax_error(ps, ps->tok, "an array cannot have an initial value");
		g->init = literal(ps);
	}
	*ps->global_tail = g;
	ps->global_tail = &g->next;
}

/* global = "global" global_var ("," global_var)* ";"? */
static void global(struct parser *ps, bool private_)
{
	expect(ps, "global");
	do
		global_var(ps, private_);
	while (accept(ps, ","));
	accept(ps, ";");
}

/*
 * file    = (private? (probe | function | global) | "private" global_var | embedded)*
 */
static void toplevel(struct parser *ps)
{
	struct token *tok = ps->tok;
	struct probe **probes = ps->probe_tail;
	struct function **functions = ps->function_tail;
	struct symbol **globals = ps->global_tail;
	bool private_ = accept(ps, "private");
	bool version_dependent = false;

	if (peek(ps, "probe")) {
		if (private_)
			syntax_error(ps, tok, "probes cannot be private");
		probe(ps, false);
	} else if (peek(ps, "function")) {
		function(ps, private_);
	} else if (peek(ps, "global")) {
		global(ps, private_);
	} else if (private_ && ps->tok->kind == TOK_IDENT) {
		/* "private x" declares a private global: the keyword global is optional */
		do
			global_var(ps, true);
		while (accept(ps, ","));
		accept(ps, ";");
	} else if (!private_ && ps->tok->kind == TOK_EMBEDDED) {
		struct embed *e = xcalloc(1, sizeof(*e));

		e->code = embedded_code(ps);
		*ps->embed_tail = e;
		ps->embed_tail = &e->next;
	} else {
		syntax_error(ps, ps->tok,
			     "expected 'probe', 'global', 'private', 'function', or '%%{'");
	}
	/* --check-version: what this declaration made, when a systemtap_v conditional
	 * chose or preceded one of its tokens */
	for (struct token *t = tok; t != ps->tok; t = t->next)
		version_dependent |= t->version_dependent;
	if (!version_dependent)
		return;
	for (struct probe *p = *probes; p; p = p->next)
		p->version_dependent = true;
	for (struct function *f = *functions; f; f = f->next)
		f->version_dependent = true;
	for (struct symbol *g = *globals; g; g = g->next)
		g->version_dependent = true;
}

/* Declarations until the end; after an error, resynchronize at the next one. */
static void parse_declarations(struct parser *ps)
{
	while (ps->tok->kind != TOK_EOF && ps->errors < MAX_PARSE_ERRORS) {
		if (setjmp(ps->recover) == 0) {
			toplevel(ps);
		} else {
			ps->in_function = false;
			ps->depth = 0;
			if (!ps->error_token_kept)
				next_token(ps);
			ps->error_token_kept = false;
			synchronize(ps);
		}
	}
	if (ps->errors >= MAX_PARSE_ERRORS)
		fprintf(stderr, "Too many parse errors in %s; giving up on it.\n",
			ps->file->source->name);
}

struct stapfile *parse_file(struct preprocessor *pp, struct source_file *src, bool privileged,
			    bool script_args, int *errors)
{
	struct stapfile *file = xcalloc(1, sizeof(*file));
	struct parser ps = { .file = file, .privileged = privileged,
			     .old_ternary = pp && strverscmp(pp->compat_version, "4.0") < 0,
			     .comment_splits_strings = pp && !src->is_tapset &&
						       strverscmp(pp->compat_version, "2.0") < 0,
			     .no_autocast = pp && !src->is_tapset &&
					    strverscmp(pp->compat_version, "2.6") < 0 };
	int before = *errors;
	struct token *tokens = tokenize(src, errors);
	bool had_tokens = tokens->kind != TOK_EOF;

	file->source = src;
	if (*errors == before)
		tokens = preprocess(pp, tokens, script_args, &file->macros, errors);
	if (*errors != before)
		return file;
	ps.tok = tokens;
	ps.embed_tail = &file->embeds;
	ps.global_tail = &file->globals;
	ps.probe_tail = &file->probes;
	ps.function_tail = &file->functions;
	file->empty_after_preprocessing = had_tokens && tokens->kind == TOK_EOF;
	parse_declarations(&ps);
	*errors += ps.errors;
	return file;
}
