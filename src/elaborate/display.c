/*
 * display.c - pass 2's last step: the script's globals written but never read are its
 * results, printed by an end probe made for them, as stap does:
 *
 *   x=5 / s="text"                   a number, a string (quoted)
 *   st @count=... @min=... ... @avg=  a statistic's five values ("st @count=0x0": empty)
 *   a[1,"k"]=7                       each element of an array, by value, largest first
 *
 * The probe's handler is a tree as the parser would make it, so the later passes treat
 * it as any other.
 */
#include "elaborate.h"
#include "families/family.h"

#include <stdlib.h>
#include <string.h>

static struct token *made_token(struct symbol *g, enum token_kind kind, const char *text)
{
	struct token *t = copy_token(g->tok);

	t->kind = kind;
	t->text = xstrdup(text);
	t->expanded_from = NULL;
	return t;
}

static struct node *new(enum node_kind kind, struct token *tok)
{
	struct node *n = xcalloc(1, sizeof(*n));

	n->kind = kind;
	n->tok = tok;
	return n;
}

static struct node *var(struct symbol *sym, struct token *tok)
{
	struct node *n = new(ND_VAR, tok);

	n->string = sym->name;
	n->sym = sym;
	n->type = sym->type;	/* made after pass 2's types: the translator reads them here */
	return n;
}

/* printf(RAW, ARGS): RAW spelled as in a script (\n for a newline, quotes plain). */
static struct node *printf_call(struct token *tok, const char *raw, struct node *args)
{
	struct node *call = new(ND_PRINT, tok);
	struct node *fmt = new(ND_STRING, tok);
	struct strbuf text = { 0 };

	call->string = "printf";
	call->print = PRINT_PRINTF;
	for (const char *p = raw; *p; p++) {
		if (p[0] == '\\' && p[1] == 'n') {
			sb_putc(&text, '\n');
			p++;
		} else {
			sb_putc(&text, *p);
		}
	}
	fmt->string = sb_steal(&text);
	fmt->raw = xstrdup(raw);
	fmt->next = args;
	call->args = fmt;
	for (struct node *a = fmt; a; a = a->next)
		call->nargs++;
	return call;
}

static const char *const stat_ops[] = { "@count", "@min", "@max", "@sum", "@avg" };

static struct node *stat_of(const char *op, struct node *value)
{
	struct node *n = new(ND_STAT, value->tok);

	n->string = (char *)op;
	n->type = TYPE_LONG;
	n->lhs = value;
	return n;
}

/* An expression as a statement: the body of an if or a foreach */
static struct node *statement(struct node *expr)
{
	struct node *n = new(ND_EXPR_STMT, expr->tok);

	n->lhs = expr;
	return n;
}

/* The five extractors of a statistic, as printf arguments after FIRST. */
static struct node *stat_args(struct node *(*value)(void *), void *arg, struct node *first)
{
	struct node head = { .next = first }, *tail = &head;

	while (tail->next)
		tail = tail->next;
	for (int i = 0; i < 5; i++)
		tail = tail->next = stat_of(stat_ops[i], value(arg));
	return head.next;
}

struct element {
	struct symbol *array;
	struct node *keys;
	struct token *tok;
};

static struct node *global_value(void *arg)
{
	struct symbol *g = arg;

	return var(g, g->tok);
}

static struct node *element_value(void *arg)
{
	struct element *e = arg;
	struct node *index = new(ND_INDEX, e->tok);
	struct node head = { 0 }, *tail = &head;

	index->lhs = var(e->array, e->tok);
	index->type = e->array->type;
	for (struct node *k = e->keys; k; k = k->next) {
		tail = tail->next = var(k->sym, e->tok);
		index->nargs++;
	}
	index->args = head.next;
	return index;
}

/* printf conversions as stap writes them in its display probes; quotes are plain. */
static const char *conversion(enum stap_type type)
{
	return type == TYPE_STRING ? "\"%#s\"" : "%#d";
}

static struct node *copy_keys(struct node *keys)
{
	struct node head = { 0 }, *tail = &head;

	for (struct node *k = keys; k; k = k->next)
		tail = tail->next = var(k->sym, k->tok);
	return head.next;
}

static struct node *display_statement(struct symbol *g, struct symbol **locals)
{
	struct token *tok = g->tok;
	struct strbuf fmt = { 0 };

	if (g->arity <= 0 && g->type != TYPE_STATS) {
		sb_printf(&fmt, "%s=%s\\n", g->name, g->type == TYPE_STRING ? "\"%#s\"" : "%d");
		return printf_call(tok, fmt.data, var(g, tok));
	}
	if (g->arity <= 0) {
		struct node *empty = new(ND_IF, tok), *zero = new(ND_NUMBER, tok);

		empty->cond = new(ND_COMPARE, tok);
		empty->cond->op = "==";
		empty->cond->lhs = stat_of("@count", var(g, tok));
		empty->cond->rhs = zero;
		empty->then = statement(printf_call(tok, xasprintf("%s @count=0x0\\n", g->name),
						    NULL));
		sb_printf(&fmt, "%s @count=%%#d @min=%%#d @max=%%#d @sum=%%#d @avg=%%#d\\n", g->name);
		empty->els = statement(printf_call(tok, fmt.data, stat_args(global_value, g, NULL)));
		return empty;
	}
	/* foreach ([__idx0, ...] in a-) printf("a[%#d,...]=...", ...) */
	struct node *loop = new(ND_FOREACH, tok);
	struct foreach *fe = xcalloc(1, sizeof(*fe));
	struct node head = { 0 }, *tail = &head;
	struct symbol **ltail = locals;
	struct element element = { .array = g, .tok = tok };

	loop->foreach = fe;
	fe->array = var(g, tok);
	fe->sort_key = 0;
	fe->sort_direction = -1;
	sb_printf(&fmt, "%s[", g->name);
	for (int i = 0; i < g->arity; i++) {
		struct symbol *key = xcalloc(1, sizeof(*key));

		key->name = xasprintf("__idx%d", i);
		key->kind = SYM_LOCAL;
		key->type = g->key_types[i];
		key->tok = tok;
		*ltail = key;
		ltail = &key->next;
		tail = tail->next = var(key, tok);
		fe->nkeys++;
		sb_printf(&fmt, "%s%s", i ? "," : "", conversion(key->type));
	}
	fe->keys = head.next;
	element.keys = fe->keys;
	if (g->type == TYPE_STATS) {
		sb_puts(&fmt, "] @count=%#d @min=%#d @max=%#d @sum=%#d @avg=%#d\\n");
		loop->then = statement(printf_call(tok, fmt.data, stat_args(element_value, &element,
										copy_keys(fe->keys))));
		return loop;
	}
	struct symbol *value = xcalloc(1, sizeof(*value));

	value->name = "__val";
	value->kind = SYM_LOCAL;
	value->type = g->type;
	value->tok = tok;
	*ltail = value;
	fe->value = var(value, tok);
	sb_printf(&fmt, "]=%s\\n", g->type == TYPE_STRING ? "\"%#s\"" : "%d");
	tail = copy_keys(fe->keys);
	for (head.next = tail; tail->next; tail = tail->next)
		;
	tail->next = var(value, tok);
	loop->then = statement(printf_call(tok, fmt.data, head.next));
	return loop;
}

void add_display_probes(struct elaborator *el)
{
	for (struct symbol *g = el->prog->globals; g; g = g->next_used) {
		struct probe_body *h;
		struct probe *p;
		struct probe_point *end;
		struct derived_probe proto = { 0 };

		/* the script's own: the library's (argc) are not its results */
		if (!g->written || g->read || g->file != el->prog->files)
			continue;
		h = xcalloc(1, sizeof(*h));
		p = xcalloc(1, sizeof(*p));
		end = xcalloc(1, sizeof(*end));
		end->components = xcalloc(1, sizeof(*end->components));
		end->components->name = "end";
		end->components->tok = made_token(g, TOK_IDENT, "end");
		end->tok = end->components->tok;
		p->points = end;
		p->tok = made_token(g, TOK_KEYWORD, "probe");
		p->file = g->file;
		h->body = new(ND_BLOCK, g->tok);
		h->body->body = new(ND_EXPR_STMT, g->tok);
		h->body->body->lhs = display_statement(g, &h->locals);
		if (h->body->body->lhs->kind != ND_PRINT) {	/* a statement of its own */
			h->body->body = h->body->body->lhs;
		}
		h->probe = p;
		h->file = g->file;
		h->tok = p->tok;
		h->index = -1;
		h->displays_globals = true;
		proto.handler = h;
		proto.point = end;
		proto.family = &begin_end_family;
		proto.derivation = "end";
		proto.location = made_token(g, TOK_KEYWORD, "probe");	/* -t: the script's 1:1 */
		proto.location->line = proto.location->column = 1;
		add_derived_probe(el, &proto, xstrdup("end"), NULL);
	}
}
