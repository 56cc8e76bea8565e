/*
 * dump.c - the AST back as script text: -p1 ("# parse tree dump") and -p2 (the elaborated
 * program with its types), in the layout SystemTap prints so the two can be compared.
 */
#include "stap.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void dump_statement(struct strbuf *sb, struct node *n);

/* Operands of operators are parenthesised; call arguments are not. */
static void dump_operand(struct strbuf *sb, struct node *n)
{
	sb_putc(sb, '(');
	dump_expr(sb, n);
	sb_putc(sb, ')');
}

void dump_expr(struct strbuf *sb, struct node *n)
{
	switch (n->kind) {
	case ND_NUMBER:
		sb_printf(sb, "%" PRId64, n->number);
		break;
	case ND_STRING:
		if (n->raw)
			sb_printf(sb, "\"%s\"", n->raw);	/* as written, like stap */
		else
			sb_put_c_string(sb, n->string);
		break;
	case ND_VAR:
		sb_puts(sb, n->string);
		break;
	case ND_CALL:
		sb_printf(sb, "%s(", n->string);
		for (struct node *a = n->args; a; a = a->next) {
			dump_expr(sb, a);
			if (a->next)
				sb_puts(sb, ", ");
		}
		sb_putc(sb, ')');
		break;
	case ND_ASSIGN:
	case ND_BINARY:
	case ND_CONCAT:
	case ND_COMPARE:
	case ND_LOGICAL:
		dump_operand(sb, n->lhs);
		sb_printf(sb, " %s ", n->op);
		dump_operand(sb, n->rhs);
		break;
	case ND_UNARY:
		sb_puts(sb, n->op);
		dump_operand(sb, n->lhs);
		break;
	case ND_TERNARY:
		dump_operand(sb, n->cond);
		sb_putc(sb, '?');
		dump_operand(sb, n->then);
		sb_putc(sb, ':');
		dump_operand(sb, n->els);
		break;
	default:
		dump_statement(sb, n);
	}
}

static void dump_block(struct strbuf *sb, struct node *n)
{
	sb_puts(sb, "{\n");
	for (struct node *s = n->body; s; s = s->next) {
		dump_statement(sb, s);
		sb_puts(sb, ";\n");
	}
	sb_putc(sb, '}');
}

static void dump_statement(struct strbuf *sb, struct node *n)
{
	switch (n->kind) {
	case ND_BLOCK:
		dump_block(sb, n);
		break;
	case ND_EXPR_STMT:
		dump_expr(sb, n->lhs);
		break;
	case ND_IF:
		sb_puts(sb, "if (");
		dump_expr(sb, n->cond);
		sb_puts(sb, ") ");
		dump_statement(sb, n->then);
		if (n->els) {
			sb_puts(sb, "\nelse ");
			dump_statement(sb, n->els);
		}
		sb_putc(sb, '\n');
		break;
	case ND_NEXT:
		sb_puts(sb, "next");
		break;
	case ND_RETURN:
		sb_puts(sb, "return");
		if (n->lhs) {
			sb_putc(sb, ' ');
			dump_expr(sb, n->lhs);
		}
		break;
	case ND_NULL_STMT:
		sb_putc(sb, ';');
		break;
	default:
		dump_expr(sb, n);
	}
}

void dump_probe_point(struct strbuf *sb, struct probe_point *pp)
{
	for (struct component *c = pp->components; c; c = c->next) {
		sb_puts(sb, c->name);
		if (c->arg) {
			sb_putc(sb, '(');
			dump_expr(sb, c->arg);
			sb_putc(sb, ')');
		}
		if (c->next)
			sb_putc(sb, '.');
	}
	if (pp->sufficient)
		sb_putc(sb, '!');
	else if (pp->optional)
		sb_putc(sb, '?');
	if (pp->condition) {
		sb_puts(sb, " if (");
		dump_expr(sb, pp->condition);
		sb_putc(sb, ')');
	}
}

static void dump_probe_points(struct strbuf *sb, struct probe *p)
{
	for (struct probe_point *pp = p->points; pp; pp = pp->next) {
		dump_probe_point(sb, pp);
		if (pp->next)
			sb_putc(sb, ',');
	}
}

void dump_parse_tree(FILE *out, struct stapfile *file)
{
	struct strbuf sb = { 0 };

	sb_printf(&sb, "# parse tree dump\n# file %s\n", file->source->name);
	for (struct embed *e = file->embeds; e; e = e->next)
		sb_printf(&sb, "%%{%s%%}", e->code->text);
	for (struct symbol *g = file->globals; g; g = g->next) {
		sb_printf(&sb, "global %s", g->name);
		if (g->init) {
			sb_puts(&sb, " = ");
			dump_expr(&sb, g->init);
		}
		sb_putc(&sb, '\n');
	}
	for (struct probe *p = file->probes; p; p = p->next) {
		sb_puts(&sb, "probe ");
		dump_probe_points(&sb, p);
		dump_block(&sb, p->body);
		sb_putc(&sb, '\n');
	}
	for (struct function *f = file->functions; f; f = f->next) {
		sb_printf(&sb, "function %s (", f->name);
		for (struct symbol *a = f->params; a; a = a->next)
			sb_printf(&sb, "%s%s", a->name, a->next ? ", " : "");
		sb_puts(&sb, ")\n");
		if (f->embedded)
			sb_printf(&sb, "%%{%s%%}", f->embedded->text);
		else
			dump_block(&sb, f->body);
		sb_putc(&sb, '\n');
	}
	sb_putc(&sb, '\n');
	fputs(sb.data, out);
	sb_free(&sb);
}

/* ---- -p2 ---- */

static void dump_locals(struct strbuf *sb, struct symbol *locals)
{
	if (!locals)
		return;
	sb_puts(sb, "  # locals\n");
	for (struct symbol *l = locals; l; l = l->next)
		sb_printf(sb, "  %s:%s\n", l->name, type_name(l->type));
}

static int compare_function_names(const void *a, const void *b)
{
	return strcmp((*(struct function *const *)a)->name, (*(struct function *const *)b)->name);
}

/* Functions are listed by name, as stap -p2 does. */
void dump_program(FILE *out, struct program *prog, bool bodies)
{
	struct strbuf sb = { 0 };

	if (prog->globals) {
		sb_puts(&sb, "# globals\n");
		for (struct symbol *g = prog->globals; g; g = g->next)
			sb_printf(&sb, "%s:%s\n", g->name, type_name(g->type));
	}
	if (prog->functions) {
		struct function **sorted = xcalloc(prog->nfunctions, sizeof(*sorted));
		int n = 0;

		for (struct function *f = prog->functions; f; f = f->next_used)
			sorted[n++] = f;
		qsort(sorted, n, sizeof(*sorted), compare_function_names);
		sb_puts(&sb, "# functions\n");
		for (int i = 0; i < n; i++) {
			struct function *f = sorted[i];

			sb_printf(&sb, "%s:%s (", f->name, type_name(f->return_type));
			for (struct symbol *a = f->params; a; a = a->next)
				sb_printf(&sb, "%s:%s%s", a->name, type_name(a->type),
					  a->next ? ", " : "");
			sb_puts(&sb, ")\n");
			dump_locals(&sb, f->locals);
			if (!bodies)
				continue;
			if (f->embedded) {
				sb_printf(&sb, "{ %%{%s%%} }\n", f->embedded->text);
			} else {
				sb_puts(&sb, "{ ");
				dump_block(&sb, f->body);
				sb_puts(&sb, " }\n");
			}
		}
		free(sorted);
	}
	sb_puts(&sb, "# probes\n");
	for (struct derived_probe *dp = prog->probes; dp; dp = dp->next) {
		sb_printf(&sb, "%s /* <- ", dp->name);
		dump_probe_points(&sb, dp->probe);
		sb_puts(&sb, " */\n");
		dump_locals(&sb, dp->probe->locals);
		if (bodies) {
			sb_puts(&sb, "{ ");
			dump_block(&sb, dp->probe->body);
			sb_puts(&sb, " }\n");
		}
	}
	fputs(sb.data, out);
	sb_free(&sb);
}
