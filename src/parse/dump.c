/*
 * dump.c - the AST back as script text: -p1 ("# parse tree dump") and -p2 (the elaborated
 * program with its types), in the layout SystemTap prints so the two can be compared.
 */
#include "stap.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void dump_expr(struct strbuf *sb, struct node *n);
static void dump_statement(struct strbuf *sb, struct node *n);

/* Operands of operators are parenthesised; call arguments are not. */
static void dump_operand(struct strbuf *sb, struct node *n)
{
	sb_putc(sb, '(');
	dump_expr(sb, n);
	sb_putc(sb, ')');
}

char *expression_text(struct node *n)
{
	struct strbuf sb = { 0 };

	dump_expr(&sb, n);
	return sb_steal(&sb);
}

static void dump_list(struct strbuf *sb, struct node *list)
{
	for (struct node *a = list; a; a = a->next) {
		dump_expr(sb, a);
		if (a->next)
			sb_puts(sb, ", ");
	}
}

/* OPEN, the comma-separated LIST, CLOSE: "a[1, 2]", "f(x)". */
static void dump_enclosed(struct strbuf *sb, const char *open, struct node *list,
			  const char *close)
{
	sb_puts(sb, open);
	dump_list(sb, list);
	sb_puts(sb, close);
}

/* A literal as stap prints it: its kept spelling, with quotes escaped. */
static void dump_string(struct strbuf *sb, struct node *n)
{
	if (!n->raw) {
		sb_put_c_string(sb, n->string);
		return;
	}
	sb_putc(sb, '"');
	for (const char *p = n->raw; *p; p++) {
		if (*p == '"')
			sb_putc(sb, '\\');
		sb_putc(sb, *p);
	}
	sb_putc(sb, '"');
}

/* printf's format and printd's delimiter are printed escaped once more, as stap does. */
static void dump_format(struct strbuf *sb, struct node *n)
{
	sb_putc(sb, '"');
	for (const char *p = n->raw ? n->raw : n->string; *p; p++) {
		if (*p == '"' || *p == '\\')
			sb_putc(sb, '\\');
		sb_putc(sb, *p);
	}
	sb_putc(sb, '"');
}

static void dump_components(struct strbuf *sb, struct node *n)
{
	for (struct target_component *c = n->components; c; c = c->next) {
		if (c->field) {
			sb_printf(sb, "->%s", c->field);
		} else {
			sb_putc(sb, '[');
			dump_expr(sb, c->index);
			sb_putc(sb, ']');
		}
	}
	if (n->pretty) {
		sb_puts(sb, "->");
		for (int i = 0; i < n->pretty; i++)
			sb_putc(sb, '$');
	}
}

/* What a target value's components follow: $x, @cast(p, "type"[, "module"]),
 * @var("name"[, "module"]), or (p) of p->x. */
static void dump_target_start(struct strbuf *sb, struct node *n)
{
	switch (n->kind) {
	case ND_CAST:
		sb_puts(sb, "@cast(");
		dump_expr(sb, n->lhs);
		sb_printf(sb, ", \"%s\"", n->type_name);
		break;
	case ND_AT_VAR:
		sb_printf(sb, "@var(\"%s\"", n->string);
		break;
	case ND_AUTOCAST:
		dump_operand(sb, n->lhs);
		return;
	default:
		sb_puts(sb, n->string);
		return;
	}
	if (n->module)
		sb_printf(sb, ", \"%s\"", n->module);
	sb_putc(sb, ')');
}

static bool print_has_format(enum print_kind kind)
{
	return kind == PRINT_PRINTF || kind == PRINT_SPRINTF || kind == PRINT_PRINTD ||
	       kind == PRINT_PRINTDLN || kind == PRINT_SPRINTD || kind == PRINT_SPRINTDLN;
}

/*
 * A variable; a global once pass 2 has found it is printed by its name in stap's C,
 * as stap's -p2 and pp() print it: __global_n, or __private_FILE_n for a private one
 * (FILE its path with every other character than a letter or digit an underscore).
 */
static void sb_global_name(struct strbuf *sb, struct symbol *g)
{
	if (!g->private_ || !g->file) {
		sb_printf(sb, "__global_%s", g->name);
		return;
	}
	sb_puts(sb, "__private_");
	for (const char *p = g->file->source->name; *p; p++)
		sb_putc(sb, isalnum((unsigned char)*p) ? *p : '_');
	sb_printf(sb, "_%s", g->name);
}

char *global_stap_name(struct symbol *g)
{
	struct strbuf sb = { 0 };

	sb_global_name(&sb, g);
	return sb_steal(&sb);
}

static void dump_variable(struct strbuf *sb, struct node *n)
{
	if (!n->sym || n->sym->kind != SYM_GLOBAL)
		sb_puts(sb, n->string);
	else
		sb_global_name(sb, n->sym);
}

static void dump_expr(struct strbuf *sb, struct node *n)
{
	switch (n->kind) {
	case ND_NUMBER:
		sb_printf(sb, "%" PRId64, n->number);
		break;
	case ND_STRING:
		dump_string(sb, n);
		break;
	case ND_VAR:
		dump_variable(sb, n);
		break;
	case ND_INDEX:
		dump_expr(sb, n->lhs);
		dump_enclosed(sb, "[", n->args, "]");
		break;
	case ND_CALL:	/* @kderef(...) and its kin are calls too */
		sb_puts(sb, n->op ? n->op : n->string);
		dump_enclosed(sb, "(", n->args, ")");
		break;
	case ND_PRINT:
		sb_printf(sb, "%s(", n->string);
		for (struct node *a = n->args; a; a = a->next) {
			if (a == n->args && print_has_format(n->print))
				dump_format(sb, a);
			else
				dump_expr(sb, a);
			if (a->next)
				sb_puts(sb, ", ");
		}
		sb_putc(sb, ')');
		break;
	case ND_ASSIGN:
	case ND_ACCUMULATE:
	case ND_BINARY:
	case ND_CONCAT:
	case ND_COMPARE:
	case ND_LOGICAL:
		dump_operand(sb, n->lhs);
		sb_printf(sb, " %s ", n->op);
		dump_operand(sb, n->rhs);
		break;
	case ND_REGEX:
		dump_operand(sb, n->lhs);
		sb_printf(sb, " %s ", n->op);
		dump_string(sb, n->rhs);
		break;
	case ND_UNARY:
		sb_puts(sb, n->op);
		dump_operand(sb, n->lhs);
		break;
	case ND_INCREMENT:
		if (n->prefix)
			sb_puts(sb, n->op);
		dump_operand(sb, n->lhs);
		if (!n->prefix)
			sb_puts(sb, n->op);
		break;
	case ND_TERNARY:
		dump_operand(sb, n->cond);
		sb_putc(sb, '?');
		dump_operand(sb, n->then);
		sb_putc(sb, ':');
		dump_operand(sb, n->els);
		break;
	case ND_IN:
		dump_enclosed(sb, "[", n->args, "] in ");
		dump_expr(sb, n->lhs);
		break;
	case ND_WILDCARD:
		sb_putc(sb, '*');
		break;
	case ND_STAT:
	case ND_HIST:
		sb_printf(sb, "%s(", n->string);
		dump_expr(sb, n->lhs);
		for (struct node *a = n->args; a; a = a->next) {
			sb_puts(sb, ", ");
			dump_expr(sb, a);
		}
		sb_putc(sb, ')');
		break;
	case ND_TARGET:
	case ND_CAST:
	case ND_AT_VAR:
	case ND_AUTOCAST:
		if (n->addressof)
			sb_putc(sb, '&');
		dump_target_start(sb, n);
		dump_components(sb, n);
		break;
	case ND_DEFINED:
	case ND_ENTRY:
	case ND_PROBEWRITE:
		sb_puts(sb, n->kind == ND_DEFINED ? "@defined(" :
			    n->kind == ND_ENTRY ? "@entry(" : "@probewrite(");
		dump_expr(sb, n->lhs);
		sb_putc(sb, ')');
		break;
	case ND_EMBEDDED_EXPR:
		sb_printf(sb, "%%{ %s %%}", n->string);
		break;
	case ND_PERF:
		sb_printf(sb, "@perf(\"%s\")", n->string);
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

static void dump_foreach(struct strbuf *sb, struct node *n)
{
	struct foreach *fe = n->foreach;
	int i = 1;

	sb_puts(sb, "foreach (");
	if (fe->value)
		sb_printf(sb, "%s = ", fe->value->string);
	sb_putc(sb, '[');
	for (struct node *k = fe->keys; k; k = k->next, i++) {
		sb_puts(sb, k->string);
		if (fe->sort_key == i)
			sb_putc(sb, fe->sort_direction > 0 ? '+' : '-');
		if (k->next)
			sb_puts(sb, ", ");
	}
	sb_puts(sb, "] in ");
	dump_expr(sb, fe->array);
	if (fe->filter)
		dump_enclosed(sb, "[", fe->filter, "]");
	if (fe->sort_aggregate)
		sb_printf(sb, " %s", fe->sort_aggregate);
	if (fe->sort_key == 0)
		sb_putc(sb, fe->sort_direction > 0 ? '+' : '-');
	if (fe->limit) {
		sb_puts(sb, " limit ");
		dump_expr(sb, fe->limit);
	}
	sb_puts(sb, ") ");
	dump_statement(sb, n->then);
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
	case ND_FOR:
		sb_puts(sb, "for (");
		if (n->init)
			dump_statement(sb, n->init);
		sb_puts(sb, "; ");
		dump_expr(sb, n->cond);
		sb_puts(sb, "; ");
		if (n->incr)
			dump_statement(sb, n->incr);
		sb_puts(sb, ") ");
		dump_statement(sb, n->then);
		break;
	case ND_FOREACH:
		dump_foreach(sb, n);
		break;
	case ND_BREAK:
		sb_puts(sb, "break");
		break;
	case ND_CONTINUE:
		sb_puts(sb, "continue");
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
	case ND_DELETE:	/* a whole array or statistic by its name in the script (stap) */
		sb_puts(sb, "delete ");
		if (n->lhs->kind == ND_VAR)
			sb_puts(sb, n->lhs->string);
		else
			dump_expr(sb, n->lhs);
		break;
	case ND_TRY:
		sb_puts(sb, "try {\n");
		dump_statement(sb, n->then);
		sb_puts(sb, "\n} catch");
		if (n->catch_var)
			sb_printf(sb, " (%s)", n->catch_var->string);
		sb_puts(sb, " {\n");
		dump_statement(sb, n->els);
		sb_puts(sb, "\n}\n");
		break;
	case ND_NULL_STMT:
		sb_putc(sb, ';');
		break;
	default:
		dump_expr(sb, n);
	}
}

/* A point's ! or ?, and CONDITION: "? if (x)". */
static void dump_marks(struct strbuf *sb, struct probe_point *pp, struct node *condition)
{
	if (pp->sufficient)
		sb_putc(sb, '!');
	else if (pp->optional)
		sb_putc(sb, '?');
	if (condition) {
		sb_puts(sb, " if ");
		dump_operand(sb, condition);
	}
}

/* With MARKS, also its ! or ? and its condition. */
static void dump_probe_point(struct strbuf *sb, struct probe_point *pp, bool marks)
{
	for (struct component *c = pp->components; c; c = c->next) {
		sb_puts(sb, c->name);
		if (c->arg)
			dump_operand(sb, c->arg);
		if (c->next)
			sb_putc(sb, '.');
	}
	if (marks)
		dump_marks(sb, pp, pp->condition);
}

/* "kprobe.function(\"f\").return", with MARKS "...return? if (x)", as -p1 and -p2 print. */
char *probe_point_text(struct probe_point *pp, bool marks)
{
	struct strbuf sb = { 0 };

	dump_probe_point(&sb, pp, marks);
	return sb_steal(&sb);
}

/* What pp() gives and -p2 lists: the probe's name, its point's ! or ?, its condition. */
char *derived_probe_pp(struct derived_probe *dp)
{
	struct strbuf sb = { 0 };

	sb_puts(&sb, dp->name);
	dump_marks(&sb, dp->point, dp->condition);
	return sb_steal(&sb);
}

static void dump_probe_points(struct strbuf *sb, struct probe_point *list, const char *sep)
{
	for (struct probe_point *pp = list; pp; pp = pp->next) {
		dump_probe_point(sb, pp, true);
		if (pp->next)
			sb_puts(sb, sep);
	}
}

void dump_parse_tree(FILE *out, struct stapfile *file)
{
	struct strbuf sb = { 0 };

	sb_printf(&sb, "# parse tree dump\n# file %s\n", file->source->name);
	for (struct embed *e = file->embeds; e; e = e->next)
		sb_printf(&sb, "%%{%s%%}", e->code->text);
	for (struct symbol *g = file->globals; g; g = g->next) {
		sb_printf(&sb, "global %s%s", g->name, g->wrap ? "%" : "");
		if (g->array_size)
			sb_printf(&sb, "[%" PRId64 "]", g->array_size);
		if (g->init) {
			sb_puts(&sb, " = ");
			dump_expr(&sb, g->init);
		}
		sb_putc(&sb, '\n');
	}
	/* stap lists a file's aliases before its probes */
	for (int aliases = 1; aliases >= 0; aliases--) {
		for (struct probe *p = file->probes; p; p = p->next) {
			if (!p->alias != !aliases)
				continue;
			sb_puts(&sb, "probe ");
			if (p->alias) {
				dump_probe_point(&sb, p->alias_name, true);
				sb_puts(&sb, p->alias == ALIAS_PROLOGUE ? " = " : " += ");
				dump_probe_points(&sb, p->points, ", ");
			} else {
				dump_probe_points(&sb, p->points, ",");
			}
			dump_block(&sb, p->body);
			sb_putc(&sb, '\n');
		}
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

/* A handler's or function's body: "{ STATEMENT }", a lone statement without its block. */
static void dump_body(struct strbuf *sb, struct node *body)
{
	sb_puts(sb, "{ ");
	if (body->kind == ND_BLOCK && body->body && !body->body->next)
		body = body->body;
	dump_statement(sb, body);
	sb_puts(sb, " }\n");
}

static void dump_global(struct strbuf *sb, struct symbol *g)
{
	sb_puts(sb, g->name);
	if (g->wrap)
		sb_putc(sb, '%');
	if (g->array_size)
		sb_printf(sb, "[%" PRId64 "]", g->array_size);
	sb_printf(sb, ":%s", type_name(g->type));
	if (g->arity > 0) {
		sb_puts(sb, " [");
		for (int i = 0; i < g->arity && i < MAX_ARRAY_KEYS; i++)
			sb_printf(sb, "%s%s", i ? ", " : "", type_name(g->key_types[i]));
		sb_putc(sb, ']');
	}
	sb_putc(sb, '\n');
}

/* Functions are listed by name, as stap -p2 does. */
void dump_program(FILE *out, struct program *prog, bool bodies)
{
	struct strbuf sb = { 0 };

	if (prog->globals) {
		sb_puts(&sb, "# globals\n");
		for (struct symbol *g = prog->globals; g; g = g->next_used)
			dump_global(&sb, g);
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
			if (f->embedded)
				sb_printf(&sb, "{ %%{%s%%} }\n", f->embedded->text);
			else
				dump_body(&sb, f->body);
		}
		free(sorted);
	}
	sb_puts(&sb, "# probes\n");
	for (struct derived_probe *dp = prog->probes; dp; dp = dp->next) {
		char *pp = derived_probe_pp(dp);

		sb_puts(&sb, pp);
		free(pp);
		if (dp->note)
			sb_printf(&sb, " /* %s*/", dp->note);
		sb_printf(&sb, " /* <- %s */\n", dp->derivation);
		dump_locals(&sb, dp->handler->locals);
		if (bodies)
			dump_body(&sb, dp->handler->body);
	}
	fputs(sb.data, out);
	sb_free(&sb);
}
