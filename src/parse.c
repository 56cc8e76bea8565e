/*
 * parse.c - pass 1, part 2: tokens to the AST of one file, by recursive descent.
 *
 * Each grammar rule is one function with the rule above it.  On a syntax error the parser
 * reports it, skips to the next top-level declaration and goes on, up to MAX_PARSE_ERRORS.
 */
#include "stap.h"

#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PARSE_ERRORS 50
/* Deeper nesting is refused rather than risking the stack of this and later passes. */
#define MAX_NESTING_DEPTH 1000

struct parser {
	struct token *tok;		/* current token */
	struct stapfile *file;
	bool privileged;		/* tapset file or -g: embedded C allowed */
	bool in_function;
	int depth;			/* recursion depth of the parser */
	int errors;
	jmp_buf recover;
	struct embed **embed_tail;
	struct symbol **global_tail;
	struct probe **probe_tail;
	struct function **function_tail;
};

static struct node *expr(struct parser *ps);
static struct node *statement(struct parser *ps);
static struct node *block(struct parser *ps);

static NORETURN void syntax_error(struct parser *ps, struct token *tok, const char *fmt, ...)
	PRINTF_LIKE(3, 4);

static void syntax_error(struct parser *ps, struct token *tok, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vat("parse error", tok, fmt, ap);
	va_end(ap);
	ps->errors++;
	longjmp(ps->recover, 1);
}

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

static int height(struct node *n)
{
	return n ? n->height : 0;
}

static int max_height(struct node *a, struct node *b)
{
	return height(a) > height(b) ? height(a) : height(b);
}

/* Left-associative chains loop rather than recurse, so their height is checked here. */
static void set_height(struct parser *ps, struct node *n, int h)
{
	n->height = h;
	if (h > MAX_NESTING_DEPTH)
		syntax_error(ps, n->tok, "expression nested too deeply (more than %d levels)",
			     MAX_NESTING_DEPTH);
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

static bool accept(struct parser *ps, const char *text)
{
	if (!peek(ps, text))
		return false;
	next_token(ps);
	return true;
}

static struct token *expect(struct parser *ps, const char *text)
{
	if (!peek(ps, text))
		syntax_error(ps, ps->tok, "expected '%s'", text);
	return next_token(ps);
}

static struct token *expect_ident(struct parser *ps)
{
	if (ps->tok->kind != TOK_IDENT)
		syntax_error(ps, ps->tok, "expected identifier");
	return next_token(ps);
}

/* Skips to the next top-level declaration after an error. */
static void synchronize(struct parser *ps)
{
	while (ps->tok->kind != TOK_EOF) {
		if (peek(ps, "probe") || peek(ps, "function") || peek(ps, "global") ||
		    peek(ps, "private") || ps->tok->kind == TOK_EMBEDDED)
			return;
		next_token(ps);
	}
}

/* ---- expressions ---- */

static struct node *new_binary(struct parser *ps, enum node_kind kind, struct token *op,
			       struct node *lhs, struct node *rhs)
{
	struct node *n = new_node(kind, op);

	n->op = op->text;
	n->lhs = lhs;
	n->rhs = rhs;
	set_height(ps, n, 1 + max_height(lhs, rhs));
	return n;
}

/* args = (expr ("," expr)*)? ")" */
static void call_args(struct parser *ps, struct node *call)
{
	struct node head = { 0 }, *tail = &head;

	if (!accept(ps, ")")) {
		do {
			tail = tail->next = expr(ps);
			call->nargs++;
		} while (accept(ps, ","));
		expect(ps, ")");
	}
	call->args = head.next;
}

/*
 * primary = number | string | "(" expr ")" | ident "(" args | ident
 */
static struct node *primary(struct parser *ps)
{
	struct token *tok = ps->tok;
	struct node *n;

	if (tok->kind == TOK_NUMBER) {
		next_token(ps);
		n = new_node(ND_NUMBER, tok);
		n->number = tok->number;
		return n;
	}
	if (tok->kind == TOK_STRING) {
		next_token(ps);
		n = new_node(ND_STRING, tok);
		n->string = tok->text;
		n->raw = tok->raw;
		return n;
	}
	if (accept(ps, "(")) {
		enter(ps);
		n = expr(ps);
		leave(ps);
		expect(ps, ")");
		return n;
	}
	if (tok->kind == TOK_IDENT) {
		if (tok->text[0] == '$' || tok->text[0] == '@')
			syntax_error(ps, tok, "target variables and '@' operators are not implemented yet");
		next_token(ps);
		if (accept(ps, "(")) {
			n = new_node(ND_CALL, tok);
			n->string = tok->text;
			enter(ps);
			call_args(ps, n);
			leave(ps);
			for (struct node *a = n->args; a; a = a->next)
				if (height(a) + 1 > n->height)
					set_height(ps, n, height(a) + 1);
			return n;
		}
		n = new_node(ND_VAR, tok);
		n->string = tok->text;
		return n;
	}
	syntax_error(ps, tok, "expected literal string or number");
}

/* unary = ("-" | "+" | "!" | "~") unary | primary */
static struct node *unary(struct parser *ps)
{
	struct token *tok = ps->tok;

	if (peek(ps, "-") || peek(ps, "+") || peek(ps, "!") || peek(ps, "~")) {
		struct node *n = new_node(ND_UNARY, next_token(ps));

		n->op = tok->text;
		enter(ps);
		n->lhs = unary(ps);
		leave(ps);
		set_height(ps, n, 1 + height(n->lhs));
		return n;
	}
	if (peek(ps, "++") || peek(ps, "--"))
		syntax_error(ps, tok, "'%s' is not implemented yet", tok->text);
	return primary(ps);
}

/* multiplicative = unary (("*" | "/" | "%") unary)* */
static struct node *multiplicative(struct parser *ps)
{
	struct node *n = unary(ps);

	while (peek(ps, "*") || peek(ps, "/") || peek(ps, "%")) {
		struct token *op = next_token(ps);

		n = new_binary(ps, ND_BINARY, op, n, unary(ps));
	}
	return n;
}

/* additive = multiplicative (("+" | "-") multiplicative)* */
static struct node *additive(struct parser *ps)
{
	struct node *n = multiplicative(ps);

	while (peek(ps, "+") || peek(ps, "-")) {
		struct token *op = next_token(ps);

		n = new_binary(ps, ND_BINARY, op, n, multiplicative(ps));
	}
	return n;
}

/* concatenation = additive ("." additive)* */
static struct node *concatenation(struct parser *ps)
{
	struct node *n = additive(ps);

	while (peek(ps, ".")) {
		struct token *op = next_token(ps);

		n = new_binary(ps, ND_CONCAT, op, n, additive(ps));
	}
	return n;
}

/* shift = concatenation (("<<" | ">>") concatenation)* */
static struct node *shift(struct parser *ps)
{
	struct node *n = concatenation(ps);

	while (peek(ps, "<<") || peek(ps, ">>")) {
		struct token *op = next_token(ps);

		n = new_binary(ps, ND_BINARY, op, n, concatenation(ps));
	}
	return n;
}

/* comparison = shift (("<" | "<=" | ">" | ">=" | "==" | "!=") shift)* */
static struct node *comparison(struct parser *ps)
{
	struct node *n = shift(ps);

	while (peek(ps, "<") || peek(ps, "<=") || peek(ps, ">") || peek(ps, ">=") ||
	       peek(ps, "==") || peek(ps, "!=")) {
		struct token *op = next_token(ps);

		n = new_binary(ps, ND_COMPARE, op, n, shift(ps));
	}
	if (peek(ps, "=~") || peek(ps, "!~") || peek(ps, "in"))
		syntax_error(ps, ps->tok, "'%s' is not implemented yet", ps->tok->text);
	return n;
}

/* bit_and = comparison ("&" comparison)* */
static struct node *bit_and(struct parser *ps)
{
	struct node *n = comparison(ps);

	while (peek(ps, "&")) {
		struct token *op = next_token(ps);

		n = new_binary(ps, ND_BINARY, op, n, comparison(ps));
	}
	return n;
}

/* bit_xor = bit_and ("^" bit_and)* */
static struct node *bit_xor(struct parser *ps)
{
	struct node *n = bit_and(ps);

	while (peek(ps, "^")) {
		struct token *op = next_token(ps);

		n = new_binary(ps, ND_BINARY, op, n, bit_and(ps));
	}
	return n;
}

/* bit_or = bit_xor ("|" bit_xor)* */
static struct node *bit_or(struct parser *ps)
{
	struct node *n = bit_xor(ps);

	while (peek(ps, "|")) {
		struct token *op = next_token(ps);

		n = new_binary(ps, ND_BINARY, op, n, bit_xor(ps));
	}
	return n;
}

/* logical_and = bit_or ("&&" bit_or)* */
static struct node *logical_and(struct parser *ps)
{
	struct node *n = bit_or(ps);

	while (peek(ps, "&&")) {
		struct token *op = next_token(ps);

		n = new_binary(ps, ND_LOGICAL, op, n, bit_or(ps));
	}
	return n;
}

/* logical_or = logical_and ("||" logical_and)* */
static struct node *logical_or(struct parser *ps)
{
	struct node *n = logical_and(ps);

	while (peek(ps, "||")) {
		struct token *op = next_token(ps);

		n = new_binary(ps, ND_LOGICAL, op, n, logical_and(ps));
	}
	return n;
}

/* ternary = logical_or ("?" expr ":" ternary)? */
static struct node *ternary(struct parser *ps)
{
	struct node *n = logical_or(ps);

	if (peek(ps, "?")) {
		struct node *t = new_node(ND_TERNARY, next_token(ps));

		t->cond = n;
		enter(ps);
		t->then = expr(ps);
		expect(ps, ":");
		t->els = ternary(ps);
		leave(ps);
		set_height(ps, t, 1 + (height(n) > max_height(t->then, t->els) ?
				       height(n) : max_height(t->then, t->els)));
		return t;
	}
	return n;
}

static bool is_assignment_op(struct token *tok)
{
	static const char *const ops[] = {
		"=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^=", ".=", NULL,
	};

	for (int i = 0; ops[i]; i++)
		if (token_is(tok, ops[i]))
			return true;
	return false;
}

/* assignment = ternary (assign_op assignment)? */
static struct node *assignment(struct parser *ps)
{
	struct node *n = ternary(ps);

	if (is_assignment_op(ps->tok)) {
		struct token *op = next_token(ps);

		if (n->kind != ND_VAR)
			syntax_error(ps, op, "expected an lvalue on the left of '%s'", op->text);
		enter(ps);
		n = new_binary(ps, ND_ASSIGN, op, n, assignment(ps));
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

/*
 * statement = block | ";" | "if" "(" expr ")" statement ("else" statement)?
 *           | "next" ";"? | "return" expr? ";"? | expr ";"?
 */
static struct node *statement_body(struct parser *ps);

static struct node *statement(struct parser *ps)
{
	struct node *n;

	enter(ps);
	n = statement_body(ps);
	leave(ps);
	return n;
}

static struct node *statement_body(struct parser *ps)
{
	struct token *tok = ps->tok;
	struct node *n;

	if (peek(ps, "{"))
		return block(ps);
	if (accept(ps, ";"))
		return new_node(ND_NULL_STMT, tok);
	if (accept(ps, "if")) {
		n = new_node(ND_IF, tok);
		expect(ps, "(");
		n->cond = expr(ps);
		expect(ps, ")");
		n->then = statement(ps);
		if (accept(ps, "else"))
			n->els = statement(ps);
		return n;
	}
	if (accept(ps, "next")) {
		n = new_node(ND_NEXT, tok);
		accept(ps, ";");
		return n;
	}
	if (accept(ps, "return")) {
		if (!ps->in_function)
			syntax_error(ps, tok, "found 'return' not in function context");
		n = new_node(ND_RETURN, tok);
		if (!peek(ps, ";") && !peek(ps, "}"))
			n->lhs = expr(ps);
		accept(ps, ";");
		return n;
	}
	if (tok->kind == TOK_KEYWORD &&
	    (peek(ps, "for") || peek(ps, "foreach") || peek(ps, "while") || peek(ps, "delete") ||
	     peek(ps, "break") || peek(ps, "continue") || peek(ps, "try")))
		syntax_error(ps, tok, "'%s' statements are not implemented yet", tok->text);
	n = new_node(ND_EXPR_STMT, tok);
	n->lhs = expr(ps);
	accept(ps, ";");	/* ends a simple statement; after a block it would be one */
	return n;
}

/* block = "{" statement* "}" */
static struct node *block(struct parser *ps)
{
	struct node *n = new_node(ND_BLOCK, expect(ps, "{"));
	struct node head = { 0 }, *tail = &head;

	while (!accept(ps, "}")) {
		if (ps->tok->kind == TOK_EOF)
			syntax_error(ps, ps->tok, "expected '}'");
		tail = tail->next = statement(ps);
	}
	n->body = head.next;
	return n;
}

/* ---- declarations ---- */

/* literal = number | string | "-" number */
static struct node *literal(struct parser *ps)
{
	struct token *tok = ps->tok;
	struct node *n;

	if (tok->kind == TOK_STRING || tok->kind == TOK_NUMBER)
		return primary(ps);
	if (peek(ps, "-") && tok->next->kind == TOK_NUMBER) {
		next_token(ps);
		n = primary(ps);
		n->number = -n->number;
		return n;
	}
	syntax_error(ps, tok, "expected literal string or number");
}

/* component = (ident | "*") ("(" literal ")")? */
static struct component *component(struct parser *ps)
{
	struct component *c = xcalloc(1, sizeof(*c));

	c->tok = ps->tok;
	if (ps->tok->kind == TOK_IDENT || ps->tok->kind == TOK_KEYWORD || peek(ps, "*"))
		c->name = next_token(ps)->text;
	else
		syntax_error(ps, ps->tok, "expected identifier or '*'");
	if (accept(ps, "(")) {
		c->arg = literal(ps);
		expect(ps, ")");
	}
	return c;
}

/* probe_point = component ("." component)* ("?" | "!")* ("if" "(" expr ")")? */
static struct probe_point *probe_point(struct parser *ps)
{
	struct probe_point *pp = xcalloc(1, sizeof(*pp));
	struct component **tail = &pp->components;

	pp->tok = ps->tok;
	do {
		*tail = component(ps);
		tail = &(*tail)->next;
	} while (accept(ps, "."));
	for (;;) {
		if (accept(ps, "?"))
			pp->optional = true;
		else if (accept(ps, "!"))
			pp->optional = pp->sufficient = true;
		else
			break;
	}
	if (accept(ps, "if")) {
		expect(ps, "(");
		pp->condition = expr(ps);
		expect(ps, ")");
	}
	return pp;
}

/* probe = "probe" probe_point ("," probe_point)* block */
static void probe(struct parser *ps)
{
	struct probe *p = xcalloc(1, sizeof(*p));
	struct probe_point **tail = &p->points;

	p->tok = expect(ps, "probe");
	p->file = ps->file;
	do {
		*tail = probe_point(ps);
		tail = &(*tail)->next;
	} while (accept(ps, ","));
	if (peek(ps, "=") || peek(ps, "+="))
		syntax_error(ps, ps->tok, "probe aliases are not implemented yet");
	p->body = block(ps);
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

/* Consumes the %{ %} block either way, so recovery does not report it twice. */
static struct token *embedded_code(struct parser *ps)
{
	struct token *tok = next_token(ps);

	if (!ps->privileged)
		syntax_error(ps, tok, "embedded code in unprivileged script; need stap -g");
	return tok;
}

/*
 * function = "function" ident type? "(" (param ("," param)*)? ")" (block | embedded)
 * param    = ident type?
 */
static void function(struct parser *ps)
{
	struct function *f = xcalloc(1, sizeof(*f));
	struct symbol **tail = &f->params;

	expect(ps, "function");
	f->tok = expect_ident(ps);
	f->name = f->tok->text;
	f->file = ps->file;
	f->return_type = type_annotation(ps);
	expect(ps, "(");
	if (!accept(ps, ")")) {
		do {
			struct symbol *param = xcalloc(1, sizeof(*param));

			param->tok = expect_ident(ps);
			param->name = param->tok->text;
			param->kind = SYM_PARAM;
			param->type = type_annotation(ps);
			*tail = param;
			tail = &param->next;
			f->nparams++;
		} while (accept(ps, ","));
		expect(ps, ")");
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

/* global = "global" ident ("=" literal)? ("," ident ("=" literal)?)* */
static void global(struct parser *ps)
{
	expect(ps, "global");
	do {
		struct symbol *g = xcalloc(1, sizeof(*g));

		g->tok = expect_ident(ps);
		g->name = g->tok->text;
		g->kind = SYM_GLOBAL;
		if (peek(ps, "[") || peek(ps, "%"))
			syntax_error(ps, ps->tok, "global arrays are not implemented yet");
		if (accept(ps, "="))
			g->init = literal(ps);
		*ps->global_tail = g;
		ps->global_tail = &g->next;
	} while (accept(ps, ","));
	accept(ps, ";");
}

/* file = (probe | function | global | embedded)* */
static void toplevel(struct parser *ps)
{
	struct token *tok = ps->tok;

	if (peek(ps, "probe")) {
		probe(ps);
	} else if (peek(ps, "function")) {
		function(ps);
	} else if (peek(ps, "global")) {
		global(ps);
	} else if (peek(ps, "private")) {
		syntax_error(ps, tok, "'private' is not implemented yet");
	} else if (tok->kind == TOK_EMBEDDED) {
		struct embed *e = xcalloc(1, sizeof(*e));

		e->code = embedded_code(ps);
		*ps->embed_tail = e;
		ps->embed_tail = &e->next;
	} else {
		syntax_error(ps, tok, "expected 'probe', 'global', 'function', or '%%{'");
	}
}

/*
 * $1..$N become the tokens of that argument, @1..@N a string, $# and @# the count.
 * (This is the first piece of the preprocessor.)
 */
static struct token *substitute_script_args(struct token *list, struct strlist *args, int *errors)
{
	struct token head = { .next = list }, *prev = &head;

	for (struct token *tok = list; tok; prev = tok, tok = tok->next) {
		const char *t = tok->text;
		long index;
		char *end;

		if (tok->kind != TOK_IDENT || (t[0] != '$' && t[0] != '@'))
			continue;
		if (strcmp(t + 1, "#") == 0) {
			tok->kind = TOK_NUMBER;
			tok->number = args->count;
			tok->text = xasprintf("%d", args->count);
			continue;
		}
		index = strtol(t + 1, &end, 10);
		if (!(t[1] >= '0' && t[1] <= '9') || *end)
			continue;
		if (index < 1 || index > args->count) {
			diag_at("parse error", tok, "command line argument out of range [1-%d]",
				args->count);
			(*errors)++;
			continue;
		}
		if (t[0] == '@') {
			tok->kind = TOK_STRING;
			tok->text = args->items[index - 1];
			continue;
		}
		/* splice the argument's own tokens in place of $N, located at $N */
		struct source_file *src = xcalloc(1, sizeof(*src));
		struct token *sub, *last;

		src->name = xasprintf("<command line argument %ld>", index);
		src->text = args->items[index - 1];
		sub = tokenize(src, errors);
		if (sub->kind == TOK_EOF) {
			prev->next = tok->next;		/* an empty argument: nothing */
			tok = prev;
			continue;
		}
		for (last = sub;; last = last->next) {
			last->file = tok->file;
			last->line = tok->line;
			last->column = tok->column;
			if (last->next->kind == TOK_EOF)
				break;
		}
		last->next = tok->next;
		prev->next = sub;
		tok = last;
	}
	return head.next;
}

/* Declarations until the end; after an error, resynchronize at the next one. */
static void parse_declarations(struct parser *ps)
{
	while (ps->tok->kind != TOK_EOF && ps->errors < MAX_PARSE_ERRORS) {
		struct token *before = ps->tok;

		if (setjmp(ps->recover) == 0) {
			toplevel(ps);
		} else {
			ps->in_function = false;
			ps->depth = 0;
			if (ps->tok == before)
				next_token(ps);
			synchronize(ps);
		}
	}
}

struct stapfile *parse_file(struct source_file *src, bool privileged, struct strlist *args,
			    int *errors)
{
	struct stapfile *file = xcalloc(1, sizeof(*file));
	struct parser ps = { .file = file, .privileged = privileged };
	int lex_errors = 0;
	struct token *tokens = tokenize(src, &lex_errors);

	if (args)
		tokens = substitute_script_args(tokens, args, &lex_errors);
	file->source = src;
	ps.tok = tokens;
	ps.errors = lex_errors;
	ps.embed_tail = &file->embeds;
	ps.global_tail = &file->globals;
	ps.probe_tail = &file->probes;
	ps.function_tail = &file->functions;

	if (lex_errors == 0)
		parse_declarations(&ps);
	*errors += ps.errors;
	return file;
}
