/*
 * translate.c - pass 3: the elaborated program as one C file for the kernel.
 *
 * Layout of the output:
 *   #include "runtime.h"              the runtime, compiled into the module
 *   top-level %{ %} blocks (guru)
 *   struct probe_N_locals, struct function_NAME_locals, union stp_frame
 *   functions, probe handlers          one C function each
 *   stp_probes[]                       every derived probe: handler, point, location
 *   each family's tables and stp_register_FAMILY()/stp_unregister_FAMILY()
 *   stp_script_start()/stp_script_stop()
 *
 * Locals live in per-CPU frames (runtime/context.c): frame 0 for the probe, frame N for a
 * function called at depth N.  Each statement spends one MAXACTION unit and unwinds to
 * `out` on a soft error.  Strings are char[MAXSTRINGLEN]; string-valued subexpressions
 * that need storage get a temporary in their frame.
 */
#include "stap.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* A probe handler or function body being translated. */
struct body {
	char *frame;			/* "probe_0" / "function_exit" */
	struct function *function;	/* NULL for a probe */
	struct probe_body *handler;
	struct strbuf code;		/* the translated statements */
	int ntemps;			/* string temporaries */
	int unique;			/* names of C temporaries */
};

void emit(struct emitter *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sb_vprintf(&e->out, fmt, ap);
	va_end(ap);
}

/* Where the next emitted line will be, for #line after embedded C. */
static int output_line(struct emitter *e)
{
	int line = 1;

	for (size_t i = 0; i < e->out.len; i++)
		line += e->out.data[i] == '\n';
	return line;
}

/* Embedded C keeps its script location, so compiler errors point into the script. */
static void emit_embedded_code(struct emitter *e, struct token *code)
{
	emit(e, "#line %d \"%s\"\n%s\n", code->line, code->file->name, code->text);
	emit(e, "#line %d \"%s.c\"\n", output_line(e) + 1, e->session->module_name);
}

static char *c_string(const char *s)
{
	struct strbuf sb = { 0 };

	sb_put_c_string(&sb, s);
	return sb_steal(&sb);
}

/* "identifier 'x' at <input>:1:5", as a C literal. */
static char *c_location(struct token *tok)
{
	char *text = xasprintf("%s '%s' at %s:%d:%d", token_kind_name(tok->kind), tok->text,
			       tok->file->name, tok->line, tok->column);
	char *lit = c_string(text);

	free(text);
	return lit;
}

static void indent(struct strbuf *sb, int depth)
{
	for (int i = 0; i < depth; i++)
		sb_putc(sb, '\t');
}

/* ---- expressions ---- */

static char *expr(struct body *b, struct node *n);

static bool has_side_effects(struct node *n)
{
	if (!n)
		return false;
	if (n->kind == ND_ASSIGN || n->kind == ND_CALL || n->kind == ND_PRINT)
		return true;
	if (n->kind == ND_BINARY && (strcmp(n->op, "/") == 0 || strcmp(n->op, "%") == 0))
		return true;	/* may raise an error */
	return has_side_effects(n->lhs) || has_side_effects(n->rhs) ||
	       has_side_effects(n->cond) || has_side_effects(n->then) ||
	       has_side_effects(n->els);
}

static int new_temp(struct body *b)
{
	return b->ntemps++;
}

static const char *c_type(enum stap_type type)
{
	return type == TYPE_STRING ? "const char *" : "s64 ";
}

/* The C for "a OP b" on longs, given operand expressions that are safe to repeat. */
static char *long_operation(const char *op, const char *a, const char *b, struct token *tok)
{
	if (strcmp(op, "/") == 0 || strcmp(op, "%") == 0) {
		char *where = c_location(tok);
		char *s = xasprintf("stp_%s(c, %s, %s, %s)", op[0] == '/' ? "divide" : "modulo",
				    a, b, where);

		free(where);
		return s;
	}
	if (strcmp(op, "<<") == 0)
		return xasprintf("stp_shift_left(%s, %s)", a, b);
	if (strcmp(op, ">>") == 0)
		return xasprintf("stp_shift_right(%s, %s)", a, b);
	if (strcmp(op, "+") == 0 || strcmp(op, "-") == 0 || strcmp(op, "*") == 0)
		return xasprintf("(s64)((u64)(%s) %s (u64)(%s))", a, op, b);	/* wraps */
	return xasprintf("(%s %s %s)", a, op, b);
}

/* Evaluates both operands left to right into C temporaries, then applies FORMAT. */
static char *ordered_operands(struct body *b, struct node *n, char **left, char **right)
{
	char *lhs = expr(b, n->lhs), *rhs = expr(b, n->rhs);
	int id = b->unique++;
	char *prologue;

	if (!has_side_effects(n->lhs) && !has_side_effects(n->rhs)) {
		*left = lhs;
		*right = rhs;
		return xstrdup("");
	}
	*left = xasprintf("__l%d", id);
	*right = xasprintf("__r%d", id);
	prologue = xasprintf("%s%s = %s; %s%s = %s; ", c_type(n->lhs->type), *left, lhs,
			     c_type(n->rhs->type), *right, rhs);
	free(lhs);
	free(rhs);
	return prologue;
}

static char *binary(struct body *b, struct node *n)
{
	char *left, *right, *prologue = ordered_operands(b, n, &left, &right);
	char *op = long_operation(n->op, left, right, n->tok);
	char *s = *prologue ? xasprintf("({ %s%s; })", prologue, op) : xstrdup(op);

	free(op);
	free(prologue);
	free(left);
	free(right);
	return s;
}

static char *compare(struct body *b, struct node *n)
{
	char *left, *right, *prologue = ordered_operands(b, n, &left, &right);
	char *test = n->lhs->type == TYPE_STRING ?
		xasprintf("(s64)(stp_string_compare(%s, %s) %s 0)", left, right, n->op) :
		xasprintf("(s64)(%s %s %s)", left, n->op, right);
	char *s = *prologue ? xasprintf("({ %s%s; })", prologue, test) : xstrdup(test);

	free(test);
	free(prologue);
	free(left);
	free(right);
	return s;
}

static char *concat(struct body *b, struct node *n)
{
	char *lhs = expr(b, n->lhs), *rhs = expr(b, n->rhs);
	int temp = new_temp(b);
	char *s = xasprintf("({ stp_string_copy(l->__tmp%d, %s); "
			    "stp_string_append(l->__tmp%d, %s); })", temp, lhs, temp, rhs);

	free(lhs);
	free(rhs);
	return s;
}

static char *assign(struct body *b, struct node *n)
{
	char *var = expr(b, n->lhs);
	char *rhs = expr(b, n->rhs);
	char *s;

	if (strcmp(n->op, "=") == 0 && n->lhs->type == TYPE_STRING) {
		s = xasprintf("stp_string_copy(%s, %s)", var, rhs);
	} else if (strcmp(n->op, "=") == 0) {
		s = xasprintf("(%s = %s)", var, rhs);
	} else if (strcmp(n->op, ".=") == 0) {
		s = xasprintf("stp_string_append(%s, %s)", var, rhs);
	} else {
		/* x OP= y: y first, then x = x OP y */
		char op[4] = { 0 };
		int id = b->unique++;
		char *value = xasprintf("__v%d", id);
		char *result;

		memcpy(op, n->op, strlen(n->op) - 1);
		result = long_operation(op, var, value, n->tok);
		s = xasprintf("({ s64 %s = %s; %s = %s; })", value, rhs, var, result);
		free(value);
		free(result);
	}
	free(var);
	free(rhs);
	return s;
}

/* All arguments first; nothing is printed if one of them failed. */
static char *print_call(struct body *b, struct node *n)
{
	struct strbuf sb = { 0 };
	int id = b->unique++, i = 0;

	sb_puts(&sb, "({ ");
	for (struct node *a = n->args; a; a = a->next, i++) {
		char *arg = expr(b, a);

		sb_printf(&sb, "%s__p%d_%d = %s; ", c_type(a->type), id, i, arg);
		free(arg);
	}
	sb_puts(&sb, "if (likely(!c->last_error)) { ");
	i = 0;
	for (struct node *a = n->args; a; a = a->next, i++)
		sb_printf(&sb, "%s(__p%d_%d); ",
			  a->type == TYPE_STRING ? "_stp_print" : "_stp_print_long", id, i);
	if (n->print == PRINT_PRINTLN)
		sb_puts(&sb, "_stp_print_char('\\n'); ");
	sb_puts(&sb, "} })");
	return sb_steal(&sb);
}

/*
 * Arguments are evaluated in the caller's frame, then copied into the callee's frame one
 * level deeper; a string result is copied back into a temporary of the caller.
 */
static char *function_call(struct body *b, struct node *n)
{
	struct function *f = n->func;
	struct strbuf sb = { 0 };
	int id = b->unique++;
	int i = 0;
	struct symbol *param;
	struct node *a;
	bool has_value = f->return_type != TYPE_UNKNOWN;
	char *where;

	sb_puts(&sb, "({ ");
	if (has_value)
		sb_printf(&sb, "%s__ret%d = %s; ", c_type(f->return_type), id,
			  f->return_type == TYPE_STRING ? "\"\"" : "0");
	for (a = n->args, param = f->params; a; a = a->next, param = param->next, i++) {
		char *arg = expr(b, a);

		sb_printf(&sb, "%s__arg%d_%d = %s; ", c_type(param->type), id, i, arg);
		free(arg);
	}
	where = c_location(n->tok);
	sb_printf(&sb, "if (likely(!c->last_error)) { "
		  "if (unlikely(c->nesting >= MAXNESTING)) { c->last_stmt = %s; "
		  "stp_soft_error(c, \"MAXNESTING exceeded\"); } else { "
		  "struct function_%s_locals *__f%d = &STP_FRAME(c, c->nesting + 1)->function_%s; "
		  "memset(__f%d, 0, sizeof(*__f%d)); ",
		  where, f->name, id, f->name, id, id);
	free(where);
	for (param = f->params, i = 0; param; param = param->next, i++) {
		if (param->type == TYPE_STRING)
			sb_printf(&sb, "stp_string_copy(__f%d->l_%s, __arg%d_%d); ", id, param->name,
				  id, i);
		else
			sb_printf(&sb, "__f%d->l_%s = __arg%d_%d; ", id, param->name, id, i);
	}
	sb_printf(&sb, "c->nesting++; function_%s(c); c->nesting--; ", f->name);
	if (f->return_type == TYPE_STRING)
		sb_printf(&sb, "__ret%d = stp_string_copy(l->__tmp%d, __f%d->__retvalue); ", id,
			  new_temp(b), id);
	else if (has_value)
		sb_printf(&sb, "__ret%d = __f%d->__retvalue; ", id, id);
	sb_puts(&sb, "} } ");
	if (has_value)
		sb_printf(&sb, "__ret%d; ", id);
	sb_puts(&sb, "})");
	return sb_steal(&sb);
}

static char *expr(struct body *b, struct node *n)
{
	char *x, *y, *z, *s;

	switch (n->kind) {
	case ND_NUMBER:
		if (n->number == INT64_MIN)
			return xstrdup("(-9223372036854775807LL - 1)");
		return xasprintf("%" PRId64 "LL", n->number);
	case ND_STRING:
		return c_string(n->string);
	case ND_VAR:
		return xasprintf("l->l_%s", n->string);
	case ND_CALL:
		return function_call(b, n);
	case ND_PRINT:
		return print_call(b, n);
	case ND_ASSIGN:
		return assign(b, n);
	case ND_BINARY:
		return binary(b, n);
	case ND_CONCAT:
		return concat(b, n);
	case ND_COMPARE:
		return compare(b, n);
	case ND_LOGICAL:
		x = expr(b, n->lhs);
		y = expr(b, n->rhs);
		s = xasprintf("(s64)((%s) %s (%s))", x, n->op, y);
		free(x);
		free(y);
		return s;
	case ND_UNARY:
		x = expr(b, n->lhs);
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
		x = expr(b, n->cond);
		y = expr(b, n->then);
		z = expr(b, n->els);
		s = xasprintf("((%s) ? (%s) : (%s))", x, y, z);
		free(x);
		free(y);
		free(z);
		return s;
	default:
		return xstrdup("0");
	}
}

/* ---- statements ---- */

static void statement(struct body *b, struct node *n, int depth);

/* Every statement spends an action and names itself for error messages. */
static void statement_prologue(struct body *b, struct node *n, int depth)
{
	char *where = c_location(n->tok);

	indent(&b->code, depth);
	sb_printf(&b->code, "c->last_stmt = %s;\n", where);
	indent(&b->code, depth);
	sb_puts(&b->code, "if (unlikely(--c->actions_remaining < 0))\n");
	indent(&b->code, depth + 1);
	sb_puts(&b->code, "goto out;\n");
	free(where);
}

static void check_error(struct body *b, int depth)
{
	indent(&b->code, depth);
	sb_puts(&b->code, "if (unlikely(c->last_error))\n");
	indent(&b->code, depth + 1);
	sb_puts(&b->code, "goto out;\n");
}

static void statement(struct body *b, struct node *n, int depth)
{
	char *x;

	if (!n)
		return;
	switch (n->kind) {
	case ND_BLOCK:
		for (struct node *s = n->body; s; s = s->next)
			statement(b, s, depth);
		return;
	case ND_NULL_STMT:
		return;
	default:
		break;
	}
	statement_prologue(b, n, depth);
	switch (n->kind) {
	case ND_EXPR_STMT:
		x = expr(b, n->lhs);
		indent(&b->code, depth);
		sb_printf(&b->code, "(void)%s;\n", x);
		free(x);
		check_error(b, depth);
		break;
	case ND_IF: {
		int id = b->unique++;

		x = expr(b, n->cond);
		indent(&b->code, depth);
		sb_printf(&b->code, "{\n");
		indent(&b->code, depth + 1);
		sb_printf(&b->code, "s64 __cond%d = %s;\n\n", id, x);
		free(x);
		check_error(b, depth + 1);
		indent(&b->code, depth + 1);
		sb_printf(&b->code, "if (__cond%d) {\n", id);
		statement(b, n->then, depth + 2);
		if (n->els) {
			indent(&b->code, depth + 1);
			sb_puts(&b->code, "} else {\n");
			statement(b, n->els, depth + 2);
		}
		indent(&b->code, depth + 1);
		sb_puts(&b->code, "}\n");
		indent(&b->code, depth);
		sb_puts(&b->code, "}\n");
		break;
	}
	case ND_RETURN:
		if (n->lhs) {
			x = expr(b, n->lhs);
			indent(&b->code, depth);
			if (b->function->return_type == TYPE_STRING)
				sb_printf(&b->code, "stp_string_copy(l->__retvalue, %s);\n", x);
			else
				sb_printf(&b->code, "l->__retvalue = %s;\n", x);
			free(x);
		}
		indent(&b->code, depth);
		sb_puts(&b->code, "goto out;\n");
		break;
	case ND_NEXT:
		indent(&b->code, depth);
		sb_puts(&b->code, "goto out;\n");
		break;
	default:
		break;
	}
}

/* ---- declarations ---- */

static void emit_field(struct emitter *e, enum stap_type type, const char *name)
{
	if (type == TYPE_STRING)
		emit(e, "\tchar %s[MAXSTRINGLEN];\n", name);
	else
		emit(e, "\ts64 %s;\n", name);
}

static void emit_locals_struct(struct emitter *e, struct body *b)
{
	struct symbol *params = b->function ? b->function->params : NULL;
	struct symbol *locals = b->function ? b->function->locals : b->handler->locals;

	emit(e, "struct %s_locals {\n", b->frame);
	for (struct symbol *sym = params; sym; sym = sym->next) {
		char *field = xasprintf("l_%s", sym->name);

		emit_field(e, sym->type, field);
		free(field);
	}
	for (struct symbol *sym = locals; sym; sym = sym->next) {
		char *field = xasprintf("l_%s", sym->name);

		emit_field(e, sym->type, field);
		free(field);
	}
	if (b->function && b->function->return_type != TYPE_UNKNOWN)
		emit_field(e, b->function->return_type, "__retvalue");
	for (int i = 0; i < b->ntemps; i++)
		emit(e, "\tchar __tmp%d[MAXSTRINGLEN];\n", i);
	emit(e, "};\n\n");
}

/* Embedded C sees its arguments and result through SystemTap's documented macros. */
static void emit_embedded_function(struct emitter *e, struct body *b)
{
	struct function *f = b->function;
	struct token *code = f->embedded;

	emit(e, "#define CONTEXT c\n");
	for (struct symbol *p = f->params; p; p = p->next)
		emit(e, "#define STAP_ARG_%s (l->l_%s)\n", p->name, p->name);
	if (f->return_type != TYPE_UNKNOWN) {
		emit(e, "#define STAP_RETVALUE (l->__retvalue)\n");
		if (f->return_type == TYPE_STRING)
			emit(e, "#define STAP_RETURN(v) do { stp_string_copy(STAP_RETVALUE, (v)); "
				"goto out; } while (0)\n");
		else
			emit(e, "#define STAP_RETURN(v) do { STAP_RETVALUE = (v); goto out; } while (0)\n");
	}
	emit(e, "#define STAP_ERROR(...) do { stp_soft_error(CONTEXT, __VA_ARGS__); goto out; } "
		"while (0)\n");
	emit(e, "#define STAP_PRINTF(...) _stp_printf(__VA_ARGS__)\n");
	emit(e, "static void function_%s(struct context *c)\n{\n", f->name);
	emit(e, "\tstruct function_%s_locals *l = &STP_FRAME(c, c->nesting)->function_%s;\n\n",
	     f->name, f->name);
	emit(e, "\t(void)l;\n\t{\n");
	emit_embedded_code(e, code);
	emit(e, "\t}\n\tgoto out;\nout:\n\t;\n}\n");
	emit(e, "#undef CONTEXT\n#undef STAP_ERROR\n#undef STAP_PRINTF\n");
	for (struct symbol *p = f->params; p; p = p->next)
		emit(e, "#undef STAP_ARG_%s\n", p->name);
	if (f->return_type != TYPE_UNKNOWN)
		emit(e, "#undef STAP_RETVALUE\n#undef STAP_RETURN\n");
	emit(e, "\n");
}

static void emit_body(struct emitter *e, struct body *b)
{
	if (b->function && b->function->embedded) {
		emit_embedded_function(e, b);
		return;
	}
	if (b->function)
		emit(e, "static void function_%s(struct context *c)\n{\n"
			"\tstruct function_%s_locals *l = &STP_FRAME(c, c->nesting)->function_%s;\n\n"
			"\t(void)l;\n",
		     b->function->name, b->function->name, b->function->name);
	else
		emit(e, "static void %s(struct context *c)\n{\n"
			"\tstruct %s_locals *l = &STP_FRAME(c, 0)->%s;\n\n"
			"\tmemset(l, 0, sizeof(*l));\n",
		     b->frame, b->frame, b->frame);
	emit(e, "%s", b->code.data ? b->code.data : "");
	emit(e, "\tgoto out;\nout:\n\treturn;\n}\n\n");
}

static void emit_script_start_stop(struct emitter *e, struct program *prog)
{
	const struct probe_family *used[64];
	int nused = 0;

	for (int i = 0; probe_families[i]; i++)
		for (struct derived_probe *dp = prog->probes; dp; dp = dp->next)
			if (dp->family == probe_families[i]) {
				used[nused++] = probe_families[i];
				break;
			}

	emit(e, "static int stp_script_start(void)\n{\n\tint rc = 0;\n\n");
	for (int i = 0; i < nused; i++) {
		emit(e, "\trc = stp_register_%s();\n\tif (rc)\n", used[i]->name);
		if (i == 0)
			emit(e, "\t\treturn rc;\n");
		else
			emit(e, "\t\tgoto unwind_%d;\n", i - 1);
	}
	emit(e, "\treturn rc;\n");
	for (int i = nused - 2; i >= 0; i--)
		emit(e, "unwind_%d:\n\tstp_unregister_%s(false);\n%s", i, used[i]->name,
		     i == 0 ? "\treturn rc;\n" : "");
	emit(e, "}\n\n");

	emit(e, "static void stp_script_stop(bool run_end_probes)\n{\n");
	if (nused == 0)
		emit(e, "\t(void)run_end_probes;\n");
	for (int i = nused - 1; i >= 0; i--)
		emit(e, "\tstp_unregister_%s(run_end_probes);\n", used[i]->name);
	emit(e, "}\n");
}

/* ---- what pass 3 cannot write yet ---- */

static const char *untranslatable(struct node *n)
{
	switch (n->kind) {
	case ND_INDEX: return "arrays are";
	case ND_ACCUMULATE: case ND_STAT: case ND_HIST: return "statistics are";
	case ND_REGEX: return "regular expression matching is";
	case ND_INCREMENT: return "'++' and '--' are";
	case ND_IN: case ND_WILDCARD: return "array membership is";
	case ND_TARGET: case ND_CAST: case ND_AT_VAR: case ND_AUTOCAST: case ND_DEFINED:
	case ND_ENTRY: case ND_PROBEWRITE: case ND_PERF:
		return "target variables and @-operators are";
	case ND_EMBEDDED_EXPR: return "embedded-C expressions are";
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
	case ND_CALL:
		return n->func && n->func->next_overload ? "overloaded functions are" : NULL;
	default:
		return NULL;
	}
}

struct checking {
	bool in_function;
	int errors;
};

static bool check_node(struct node *n, void *arg)
{
	struct checking *ck = arg;
	const char *missing = untranslatable(n);

	if (!missing && ck->in_function && n->kind == ND_NEXT)
		missing = "'next' in a function is";
	if (missing) {
		diag_at("translation error", n->tok, "%s not implemented yet", missing);
		ck->errors++;
		return false;
	}
	return true;
}

/* Everything pass 2 accepted that passes 3-4 cannot build yet, said plainly. */
static int check_translatable(struct program *prog)
{
	struct checking ck = { 0 };

	for (struct symbol *g = prog->globals; g; g = g->next_used) {
		diag_at("translation error", g->tok, "global variables are not implemented yet");
		ck.errors++;
	}
	for (struct derived_probe *dp = prog->probes; dp; dp = dp->next) {
		const char *missing = dp->family->missing ? dp->family->missing(dp) : NULL;

		if (!dp->family->emit || missing) {
			diag_at("translation error", dp->point->tok, "%s%s are not implemented yet",
				missing ? missing : dp->family->name, missing ? "" : " probes");
			ck.errors++;
		}
	}
	for (struct probe_body *h = prog->bodies; h; h = h->next)
		if (!h->elided && !h->displays_globals)	/* globals are refused above */
			walk_nodes(h->body, check_node, &ck);
	ck.in_function = true;
	for (struct function *f = prog->functions; f; f = f->next_used)
		walk_nodes(f->body, check_node, &ck);
	return ck.errors;
}

char *translate(struct session *s, struct program *prog)
{
	struct emitter e = { .session = s };
	struct body *bodies;
	int nbodies = 0;
	struct stapfile *user = prog->files;

	if (check_translatable(prog))
		return NULL;
	bodies = xcalloc(prog->nbodies + prog->nfunctions + 1, sizeof(*bodies));

	/* translate bodies first: their temporaries size the frames */
	for (struct function *f = prog->functions; f; f = f->next_used) {
		struct body *b = &bodies[nbodies++];

		b->frame = xasprintf("function_%s", f->name);
		b->function = f;
		if (f->body)
			statement(b, f->body, 1);
	}
	for (struct probe_body *h = prog->bodies; h; h = h->next) {
		struct body *b;

		if (h->elided)
			continue;
		b = &bodies[nbodies++];
		b->frame = xasprintf("probe_%d", h->index);
		b->handler = h;
		statement(b, h->body, 1);
	}

	emit(&e, "/* Generated by stapler %s pass 3 from %s.  Do not edit. */\n",
	     STAPLER_VERSION, user->source->name);
	emit(&e, "#include \"runtime.h\"\n\n");
	for (struct stapfile *file = prog->files; file; file = file->next)
		for (struct embed *em = file->embeds; em; em = em->next)
			emit_embedded_code(&e, em->code);

	for (int i = 0; i < nbodies; i++)
		emit_locals_struct(&e, &bodies[i]);
	emit(&e, "union stp_frame {\n");
	for (int i = 0; i < nbodies; i++)
		emit(&e, "\tstruct %s_locals %s;\n", bodies[i].frame, bodies[i].frame);
	emit(&e, "};\n\n");
	emit(&e, "#define STP_FRAME(c, depth) (&((union stp_frame *)(c)->frames)[depth])\n\n");
	emit(&e, "static size_t stp_script_frame_size(void)\n{\n"
		 "\treturn sizeof(union stp_frame);\n}\n\n");

	for (struct function *f = prog->functions; f; f = f->next_used)
		emit(&e, "static void function_%s(struct context *c);\n", f->name);
	emit(&e, "\n");
	for (int i = 0; i < nbodies; i++)
		emit_body(&e, &bodies[i]);

	emit(&e, "static const struct stp_probe stp_probes[] = {\n");
	for (struct derived_probe *dp = prog->probes; dp; dp = dp->next) {
		char *point = c_string(dp->name);
		char *where = xasprintf("%s:%d:%d", dp->point->tok->file->name,
					dp->point->tok->line, dp->point->tok->column);
		char *location = c_string(where);

		emit(&e, "\t[%d] = { .handler = probe_%d, .point = %s, .location = %s },\n",
		     dp->index, dp->handler->index, point, location);
		free(point);
		free(where);
		free(location);
	}
	emit(&e, "};\n\n");

	for (int i = 0; probe_families[i]; i++) {
		bool used = false;

		for (struct derived_probe *dp = prog->probes; dp; dp = dp->next)
			used |= dp->family == probe_families[i];
		if (used)
			probe_families[i]->emit(&e, prog);
	}
	emit_script_start_stop(&e, prog);

	for (int i = 0; i < nbodies; i++) {
		free(bodies[i].frame);
		sb_free(&bodies[i].code);
	}
	free(bodies);
	return sb_steal(&e.out);
}
