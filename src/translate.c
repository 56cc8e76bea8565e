/*
 * translate.c - pass 3: the elaborated program as one C file for the kernel.
 *
 * Layout of the output:
 *   #include "runtime.h"              the runtime, compiled into the module
 *   top-level %{ %} blocks (guru)
 *   globals: values, locks, map and statistic descriptions, -G module parameters
 *   struct probe_N_locals, struct function_NAME_locals, union stp_frame
 *   functions, probe handlers          one C function each
 *   stp_probes[]                       every derived probe: handler, point, location
 *   each family's tables and stp_register_FAMILY()/stp_unregister_FAMILY()
 *   stp_script_alloc()/free(), stp_script_start()/stop()
 *
 * Locals live in per-CPU frames (runtime/context.c): frame 0 for the probe, frame N for a
 * function called at depth N.  Each statement (and each loop iteration) spends one
 * MAXACTION unit; a soft error unwinds to `out` (or to the enclosing catch).  Strings are
 * char[MAXSTRINGLEN]; string-valued subexpressions that need storage get a temporary in
 * their frame.  A handler takes the locks of the globals it uses (through the functions it
 * calls, too) before it starts, in the globals' order, and releases them at `out`.
 */
#include "stap.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* What pass 3 knows about each global of the program. */
struct global_c {
	struct symbol *sym;
	char *name;			/* "global_x" */
	bool is_array;
	bool is_stats;
	bool name_shared;		/* an earlier global (private, another file) has its name */
	struct node *hist;		/* the first @hist_* applied to it: its buckets */
	int64_t bit_shift;		/* @variance(x, N) */
};

struct translator {
	struct session *session;
	struct program *prog;
	struct global_c *globals;
	int nglobals;
	struct function **functions;	/* the used ones, with their C names */
	char **function_names;
	int nfunctions;
	int errors;
};

enum access { ACCESS_NONE, ACCESS_READ, ACCESS_WRITE };

/* A probe handler or function body being translated. */
struct body {
	struct translator *t;
	char *frame;			/* "probe_0" / "function_exit" */
	struct function *function;	/* NULL for a probe */
	struct probe_body *handler;
	struct derived_probe *guarded;	/* the point whose "if (cond)" this checks */
	struct strbuf code;		/* the translated statements */
	int ntemps;			/* string temporaries */
	int unique;			/* names of C temporaries */
	const char *error_label;	/* where a soft error goes: "out" or a catch */
	enum access *access;		/* per global: the locks a probe takes */
};

void emit(struct emitter *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sb_vprintf(&e->out, fmt, ap);
	va_end(ap);
}

/*
 * For a family whose glue takes one table: stp_register_FAMILY() and
 * stp_unregister_FAMILY() hand TABLE to the runtime's REGISTER and UNREGISTER.
 */
void emit_table_registration(struct emitter *e, const char *family, const char *table,
			     const char *reg, const char *unreg)
{
	emit(e, "static int stp_register_%s(void)\n{\n\treturn %s(%s, ARRAY_SIZE(%s));\n}\n\n",
	     family, reg, table, table);
	emit(e, "static void stp_unregister_%s(bool run_end_probes)\n{\n\t(void)run_end_probes;\n"
		"\t%s(%s, ARRAY_SIZE(%s));\n}\n\n", family, unreg, table, table);
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

static void line(struct body *b, int depth, const char *fmt, ...) PRINTF_LIKE(3, 4);
static void line(struct body *b, int depth, const char *fmt, ...)
{
	va_list ap;

	indent(&b->code, depth);
	va_start(ap, fmt);
	sb_vprintf(&b->code, fmt, ap);
	va_end(ap);
	sb_putc(&b->code, '\n');
}

/* ---- globals ---- */

static struct global_c *global_of(struct translator *t, struct symbol *sym)
{
	if (!sym || sym->kind != SYM_GLOBAL)
		return NULL;
	for (int i = 0; i < t->nglobals; i++)
		if (t->globals[i].sym == sym)
			return &t->globals[i];
	return NULL;
}

static int global_index(struct translator *t, struct global_c *g)
{
	return (int)(g - t->globals);
}

/* The global an expression names: x, a[...], or NULL. */
static struct global_c *global_named(struct translator *t, struct node *n)
{
	if (n->kind == ND_INDEX && n->lhs->kind == ND_VAR)
		return global_of(t, n->lhs->sym);
	if (n->kind == ND_VAR)
		return global_of(t, n->sym);
	return NULL;
}

static const char *stat_aggregate(const char *name)
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

/* ---- which globals a handler uses, for its locks ---- */

struct access_walk {
	struct translator *t;
	enum access *access;
	struct function **seen;		/* functions walked already (recursion) */
	int nseen;
};

static void note_access(struct access_walk *w, struct node *n, enum access a)
{
	struct global_c *g = n ? global_named(w->t, n) : NULL;
	int i;

	if (!g)
		return;
	i = global_index(w->t, g);
	if (w->access[i] < a)
		w->access[i] = a;
}

static bool access_visit(struct node *n, void *arg)
{
	struct access_walk *w = arg;
	struct foreach *fe = n->foreach;
	struct global_c *g;

	switch (n->kind) {
	case ND_VAR:
		note_access(w, n, ACCESS_READ);
		break;
	case ND_ASSIGN:
	case ND_INCREMENT:
	case ND_DELETE:
		note_access(w, n->lhs, ACCESS_WRITE);
		break;
	case ND_STAT:
	case ND_HIST:		/* reading a statistic aggregates it into scratch space */
		note_access(w, n->lhs, ACCESS_WRITE);
		break;
	case ND_IN:
		g = global_named(w->t, n->lhs);
		note_access(w, n->lhs, g && g->is_stats ? ACCESS_WRITE : ACCESS_READ);
		break;
	case ND_FOREACH:
		if (fe->array->kind == ND_HIST) {
			note_access(w, fe->array->lhs, ACCESS_WRITE);
			break;
		}
		g = global_named(w->t, fe->array);	/* sorting reorders the array */
		note_access(w, fe->array,
			    g && (g->is_stats || fe->sort_key >= 0) ? ACCESS_WRITE : ACCESS_READ);
		break;
	case ND_CALL:
		if (!n->func)
			break;
		for (struct function *f = n->func; f; f = f->next_overload) {
			bool seen = false;

			for (int i = 0; i < w->nseen; i++)
				seen |= w->seen[i] == f;
			if (seen)
				continue;
			w->seen = xrealloc(w->seen, (w->nseen + 1) * sizeof(*w->seen));
			w->seen[w->nseen++] = f;
			walk_nodes(f->body, access_visit, w);
		}
		break;
	default:
		break;
	}
	return true;
}

static enum access *handler_access(struct translator *t, struct node *body)
{
	struct access_walk w = { .t = t };

	w.access = xcalloc(t->nglobals + 1, sizeof(*w.access));
	walk_nodes(body, access_visit, &w);
	free(w.seen);
	return w.access;
}

/* ---- expressions ---- */

static char *expr(struct body *b, struct node *n);

static bool has_side_effects(struct node *n)
{
	if (!n)
		return false;
	switch (n->kind) {
	case ND_ASSIGN: case ND_CALL: case ND_PRINT: case ND_INCREMENT: case ND_ACCUMULATE:
	case ND_INDEX: case ND_STAT: case ND_HIST: case ND_IN: case ND_EMBEDDED_EXPR:
		return true;	/* or may raise an error, or uses temporaries */
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

/* Evaluates both operands left to right into C temporaries when order matters. */
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
	*left = xasprintf("_l%d", id);
	*right = xasprintf("_r%d", id);
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
static char *keys_setup(struct body *b, struct node *args, int id, unsigned int *mask)
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
		v = expr(b, a);
		sb_printf(&sb, "_k%d[%d].%c = %s; ", id, i, a->type == TYPE_STRING ? 's' : 'l', v);
		free(v);
	}
	return sb_steal(&sb);
}

static bool has_wildcard(struct node *args)
{
	for (struct node *a = args; a; a = a->next)
		if (a->kind == ND_WILDCARD)
			return true;
	return false;
}

/* A statistic's current value (const struct stp_stat *, NULL when empty) and its setup. */
static char *stat_source(struct body *b, struct node *n, char **setup, struct global_c **gp)
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
	char *s = xasprintf("({ %sstp_stat_value(c, %s, &%s_stat, %s); })", setup, src, g->name,
			    stat_aggregate(n->string));

	free(setup);
	free(src);
	return s;
}

/* @hist_log(x)[i] */
static char *hist_bucket(struct body *b, struct node *n)
{
	struct global_c *g;
	char *setup, *src = stat_source(b, n->lhs->lhs, &setup, &g);
	char *index = expr(b, n->args);
	int id = b->unique++;
	char *s = xasprintf("({ %sconst struct stp_stat *_s%d = %s; s64 _i%d = %s; "
			    "_s%d ? stp_stat_bucket(_s%d, &%s_stat, _i%d) : 0; })",
			    setup, id, src, id, index, id, id, g->name, id);

	free(setup);
	free(src);
	free(index);
	return s;
}

static char *print_histogram(struct body *b, struct node *hist)
{
	struct global_c *g;
	char *setup, *src = stat_source(b, hist->lhs, &setup, &g);
	int id = b->unique++;
	char *s = xasprintf("({ %sconst struct stp_stat *_s%d = %s; "
			    "if (_s%d && likely(!c->last_error)) stp_stat_print_hist(_s%d, &%s_stat); "
			    "(s64)0; })", setup, id, src, id, id, g->name);

	free(setup);
	free(src);
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

	if (has_wildcard(n->args))
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
};

static bool is_procfs_value(struct body *b, struct node *n)
{
	return n->kind == ND_TARGET && strcmp(n->string, "$value") == 0 && b->handler &&
	       (b->handler->procfs_read || b->handler->procfs_write);
}

static struct place place_of(struct body *b, struct node *n)
{
	struct place p = { xstrdup(""), xstrdup(""), NULL };
	struct global_c *g = global_named(b->t, n);
	bool string = n->type == TYPE_STRING;
	int id;

	if (is_procfs_value(b, n)) {
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
	free(p->ptr);
}

static char *assign(struct body *b, struct node *n)
{
	struct place p = place_of(b, n->lhs);
	char *rhs = expr(b, n->rhs);
	int id = b->unique++;
	char *s;

	if (n->lhs->type == TYPE_STRING) {
		bool append = strcmp(n->op, ".=") == 0;

		s = xasprintf("({ %sconst char *_v%d = %s; char *_p%d = NULL; "
			      "if (likely(!c->last_error)) { %s_p%d = %s; if (_p%d) %s(_p%d, _v%d); } "
			      "_p%d ? (const char *)_p%d : \"\"; })",
			      p.setup, id, rhs, id, p.locate, id, p.ptr, id,
			      append ? "stp_string_append" : "stp_string_copy", id, id, id, id);
	} else if (strcmp(n->op, "=") == 0) {
		s = xasprintf("({ %ss64 _v%d = %s; "
			      "if (likely(!c->last_error)) { %ss64 *_p%d = %s; if (_p%d) *_p%d = _v%d; } "
			      "_v%d; })",
			      p.setup, id, rhs, p.locate, id, p.ptr, id, id, id, id);
	} else {
		/* x OP= y: y first, then x = x OP y */
		char op[4] = { 0 };
		char *old = xasprintf("(*_p%d)", id), *value = xasprintf("_v%d", id);
		char *result;

		memcpy(op, n->op, strlen(n->op) - 1);
		result = long_operation(op, old, value, n->tok);
		s = xasprintf("({ %ss64 _v%d = %s; s64 _n%d = 0; "
			      "if (likely(!c->last_error)) { %ss64 *_p%d = %s; "
			      "if (_p%d) { _n%d = %s; if (likely(!c->last_error)) *_p%d = _n%d; } } "
			      "_n%d; })",
			      p.setup, id, rhs, id, p.locate, id, p.ptr, id, id, result, id, id, id);
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
			    "_n%d = %s; } } _n%d; })",
			    p.setup, id, p.locate, id, p.ptr, id, id, id, id, id, op, id,
			    n->prefix ? xasprintf("*_p%d", id) : xasprintf("_o%d", id), id);

	free_place(&p);
	return s;
}

static char *accumulate(struct body *b, struct node *n)
{
	struct global_c *g = global_named(b->t, n->lhs);
	char *rhs = expr(b, n->rhs);
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

	if ((k == PRINT_PRINT || k == PRINT_PRINTLN) && n->args && n->args->kind == ND_HIST &&
	    !n->args->next)
		return print_histogram(b, n->args);

	sb_puts(&sb, "({ ");
	for (struct node *a = n->args; a; a = a->next, i++, nargs++) {
		char *arg = expr(b, a);

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
		if (temp < 0)
			sb_printf(&sb, "stp_printf_args(_p%d_0, _a%d, %d); ", id, id, nargs - 1);
		else
			sb_printf(&sb, "stp_format(l->_tmp%d, MAXSTRINGLEN, _p%d_0, _a%d, %d); ",
				  temp, id, id, nargs - 1);
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
	if (temp >= 0)
		sb_printf(&sb, "(const char *)l->_tmp%d; ", temp);
	else
		sb_puts(&sb, "(s64)0; ");
	sb_puts(&sb, "})");
	return sb_steal(&sb);
}

/* A function's C name: function_NAME, or function_NAME__N when several share NAME
 * (overloads by arity or by priority). */
static const char *function_c_name(struct translator *t, struct function *f)
{
	for (int i = 0; i < t->nfunctions; i++)
		if (t->functions[i] == f)
			return t->function_names[i];
	return f->name;
}

/*
 * Arguments are evaluated in the caller's frame, then copied into the callee's frame one
 * level deeper; a string result is copied back into a temporary of the caller.  Overloads
 * of one arity are tried in priority order: one that runs `next` passes the call on.
 */
static char *function_call(struct body *b, struct node *n)
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
		char *arg = expr(b, a);

		sb_printf(&sb, "%s_arg%d_%d = %s; ", c_type(param->type), id, i, arg);
		free(arg);
	}
	where = c_location(n->tok);
	sb_printf(&sb, "if (likely(!c->last_error)) { "
		  "if (unlikely(c->nesting >= MAXNESTING)) { c->last_stmt = %s; "
		  "stp_soft_error(c, \"MAXNESTING exceeded\"); } else { bool _done%d = false; ",
		  where, id);
	free(where);
	for (struct function *f = first; f; f = f->next_overload) {
		const char *name = function_c_name(b->t, f);

		if (f != first)
			sb_printf(&sb, "if (!_done%d) ", id);
		sb_printf(&sb, "{ struct %s_locals *_f%d = &STP_FRAME(c, c->nesting + 1)->%s; "
			  "memset(_f%d, 0, sizeof(*_f%d)); ", name, id, name, id, id);
		for (param = f->params, i = 0; param; param = param->next, i++) {
			if (param->type == TYPE_STRING)
				sb_printf(&sb, "stp_string_copy(_f%d->l_%s, _arg%d_%d); ", id,
					  param->name, id, i);
			else
				sb_printf(&sb, "_f%d->l_%s = _arg%d_%d; ", id, param->name, id, i);
		}
		sb_printf(&sb, "c->nesting++; %s(c); c->nesting--; ", name);
		sb_printf(&sb, "if (c->next_called) { c->next_called = false; } else { _done%d = true; ",
			  id);
		if (temp >= 0)
			sb_printf(&sb, "_ret%d = stp_string_copy(l->_tmp%d, _f%d->__retvalue); ", id,
				  temp, id);
		else if (has_value)
			sb_printf(&sb, "_ret%d = _f%d->__retvalue; ", id, id);
		sb_puts(&sb, "} } ");
	}
	sb_printf(&sb, "(void)_done%d; } } ", id);
	if (has_value)
		sb_printf(&sb, "_ret%d; ", id);
	sb_puts(&sb, "})");
	return sb_steal(&sb);
}

static char *embedded_expression(struct body *b, struct node *n)
{
	if (n->type == TYPE_STRING)
		return xasprintf("stp_string_copy(l->_tmp%d, (%s))", new_temp(b), n->string);
	return xasprintf("((s64)(%s))", n->string);
}

static char *expr(struct body *b, struct node *n)
{
	struct global_c *g;
	char *x, *y, *z, *s;

	switch (n->kind) {
	case ND_NUMBER:
		if (n->number == INT64_MIN)
			return xstrdup("(-9223372036854775807LL - 1)");
		return xasprintf("%" PRId64 "LL", n->number);
	case ND_STRING:
		return c_string(n->string);
	case ND_VAR:
		g = global_of(b->t, n->sym);
		return g ? xstrdup(g->name) : xasprintf("l->l_%s", n->string);
	case ND_TARGET:		/* only procfs's $value gets here */
		return xstrdup("((const char *)STP_PROCFS_VALUE(c))");
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
	default:	/* check_translatable() let through something expr() does not know */
		diag_at("translation error", n->tok, "internal error: cannot translate this "
			"expression");
		b->t->errors++;
		return xstrdup("0");
	}
}

/* ---- statements ---- */

static void statement(struct body *b, struct node *n, int depth);

/* Every statement spends an action and names itself for error messages. */
static void statement_prologue(struct body *b, struct node *n, int depth)
{
	char *where = c_location(n->tok);

	line(b, depth, "c->last_stmt = %s;", where);
	line(b, depth, "if (unlikely(--c->actions_remaining < 0))");
	line(b, depth + 1, "goto out;");
	free(where);
}

static void check_error(struct body *b, int depth)
{
	line(b, depth, "if (unlikely(c->last_error))");
	line(b, depth + 1, "goto %s;", b->error_label);
}

/* Each loop iteration spends an action too, so an empty body still ends. */
static void loop_prologue(struct body *b, int depth)
{
	check_error(b, depth);
	line(b, depth, "if (unlikely(--c->actions_remaining < 0))");
	line(b, depth + 1, "goto out;");
}

static void for_loop(struct body *b, struct node *n, int depth)
{
	/* init and incr are expression statements */
	struct node *init_expr = n->init && n->init->kind == ND_EXPR_STMT ? n->init->lhs : n->init;
	struct node *incr_expr = n->incr && n->incr->kind == ND_EXPR_STMT ? n->incr->lhs : n->incr;
	char *init = init_expr ? expr(b, init_expr) : NULL;
	char *cond = n->cond ? expr(b, n->cond) : NULL;
	char *incr = incr_expr ? expr(b, incr_expr) : NULL;

	if (init) {
		line(b, depth, "(void)%s;", init);
		check_error(b, depth);
	}
	line(b, depth, "for (;; %s%s%s) {", incr ? "(void)(" : "", incr ? incr : "", incr ? ")" : "");
	loop_prologue(b, depth + 1);
	if (cond) {
		int id = b->unique++;

		line(b, depth + 1, "s64 _cond%d = %s;", id, cond);
		check_error(b, depth + 1);
		line(b, depth + 1, "if (!_cond%d)", id);
		line(b, depth + 2, "break;");
	}
	statement(b, n->then, depth + 1);
	line(b, depth, "}");
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
		line(b, depth, "stp_string_copy(l->l_%s, %s);", var->string, value);
	else
		line(b, depth, "l->l_%s = %s;", var->string, value);
}

/* foreach (bucket in @hist_linear(x, ...)): every bucket number, out-of-range ones too */
static void foreach_bucket(struct body *b, struct node *n, int depth)
{
	struct foreach *fe = n->foreach;
	struct global_c *g;
	char *setup, *src = stat_source(b, fe->array->lhs, &setup, &g);
	int id = b->unique++;

	line(b, depth, "{");
	line(b, depth + 1, "%sconst struct stp_stat *_s%d = %s;", setup, id, src);
	line(b, depth + 1, "s64 _b%d;", id);
	if (fe->limit) {
		char *limit = expr(b, fe->limit);

		line(b, depth + 1, "s64 _limit%d = %s;", id, limit);
		free(limit);
	}
	check_error(b, depth + 1);
	line(b, depth + 1, "for (_b%d = 0; _s%d && _b%d < %s_stat.buckets%s; _b%d++) {", id, id, id,
	     g->name, fe->limit ? xasprintf(" && _b%d < _limit%d", id, id) : "", id);
	loop_prologue(b, depth + 2);
	assign_from_entry(b, fe->keys, xasprintf("_b%d", id), depth + 2);
	if (fe->value)
		assign_from_entry(b, fe->value, xasprintf("stp_stat_bucket(_s%d, &%s_stat, _b%d)",
							  id, g->name, id), depth + 2);
	statement(b, n->then, depth + 2);
	line(b, depth + 1, "}");
	line(b, depth, "}");
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

	line(b, depth, "{");
	depth++;
	if (g->is_stats)
		line(b, depth, "struct stp_map *_m%d = stp_pmap_aggregate(%s);", id, g->name);
	else
		line(b, depth, "struct stp_map *_m%d = %s;", id, g->name);
	line(b, depth, "struct stp_map_entry *_e%d;", id);
	if (fe->limit) {
		char *limit = expr(b, fe->limit);

		line(b, depth, "s64 _limit%d = %s, _count%d = 0;", id, limit, id);
		check_error(b, depth);
		free(limit);
	}
	if (fe->filter) {
		char *setup = keys_setup(b, fe->filter, id, &mask);

		line(b, depth, "%s", setup);
		check_error(b, depth);
		free(setup);
	}
	if (fe->sort_key >= 0)
		line(b, depth, "stp_map_sort(_m%d, %d, %d, %s);", id, fe->sort_key,
		     fe->sort_direction, stat_aggregate(fe->sort_aggregate));
	line(b, depth, "for (_e%d = stp_map_first(_m%d); _e%d; _e%d = stp_map_next(_m%d, _e%d)) {",
	     id, id, id, id, id, id);
	loop_prologue(b, depth + 1);
	if (fe->filter) {
		line(b, depth + 1, "if (!stp_keys_match(&%s_desc, _e%d, _k%d, %#xu))", g->name, id,
		     id, mask);
		line(b, depth + 2, "continue;");
	}
	if (fe->limit) {
		line(b, depth + 1, "if (_count%d++ >= _limit%d)", id, id);
		line(b, depth + 2, "break;");
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
	statement(b, n->then, depth + 1);
	line(b, depth, "}");
	depth--;
	line(b, depth, "}");
}

static void delete_statement(struct body *b, struct node *n, int depth)
{
	struct node *target = n->lhs;
	struct global_c *g = global_named(b->t, target);
	int id = b->unique++;

	if (target->kind == ND_VAR && !g) {
		line(b, depth, target->type == TYPE_STRING ? "l->l_%s[0] = '\\0';" : "l->l_%s = 0;",
		     target->string);
	} else if (target->kind == ND_VAR && g->is_array) {
		line(b, depth, "%s(%s);", g->is_stats ? "stp_pmap_clear" : "stp_map_clear", g->name);
	} else if (target->kind == ND_VAR && g->is_stats) {
		line(b, depth, "stp_pstat_clear(%s);", g->name);
	} else if (target->kind == ND_VAR) {
		line(b, depth, target->type == TYPE_STRING ? "%s[0] = '\\0';" : "%s = 0;", g->name);
	} else {
		unsigned int mask;
		char *setup = keys_setup(b, target->args, id, &mask);

		line(b, depth, "{");
		line(b, depth + 1, "%s", setup);
		check_error(b, depth + 1);
		if (has_wildcard(target->args) && g->is_stats)
			line(b, depth + 1, "stp_delete_matching(stp_pmap_aggregate(%s), %s, &%s_desc, "
			     "_k%d, %#xu);", g->name, g->name, g->name, id, mask);
		else if (has_wildcard(target->args))
			line(b, depth + 1, "stp_delete_matching(%s, NULL, &%s_desc, _k%d, %#xu);",
			     g->name, g->name, id, mask);
		else
			line(b, depth + 1, "stp_%s_delete(%s, _k%d);", g->is_stats ? "pmap" : "map",
			     g->name, id);
		line(b, depth, "}");
		free(setup);
	}
}

/* try { } catch (msg) { }: a soft error in the try block goes to the catch block. */
static void try_catch(struct body *b, struct node *n, int depth)
{
	int id = b->unique++;
	const char *outer = b->error_label;
	char *label = xasprintf("catch_%d", id);

	line(b, depth, "{");
	b->error_label = label;
	statement(b, n->then, depth + 1);
	b->error_label = outer;
	line(b, depth + 1, "goto caught_%d;", id);
	line(b, depth, "catch_%d:", id);
	if (n->catch_var)
		line(b, depth + 1, "stp_string_copy(l->l_%s, c->last_error);", n->catch_var->string);
	line(b, depth + 1, "c->last_error = NULL;");
	statement(b, n->els, depth + 1);
	line(b, depth, "caught_%d:", id);
	line(b, depth + 1, ";");
	line(b, depth, "}");
	free(label);
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
		line(b, depth, "(void)%s;", x);
		free(x);
		check_error(b, depth);
		break;
	case ND_IF: {
		int id = b->unique++;

		x = expr(b, n->cond);
		line(b, depth, "{");
		line(b, depth + 1, "s64 _cond%d = %s;", id, x);
		free(x);
		check_error(b, depth + 1);
		line(b, depth + 1, "if (_cond%d) {", id);
		statement(b, n->then, depth + 2);
		if (n->els) {
			line(b, depth + 1, "} else {");
			statement(b, n->els, depth + 2);
		}
		line(b, depth + 1, "}");
		line(b, depth, "}");
		break;
	}
	case ND_FOR:
		for_loop(b, n, depth);
		break;
	case ND_FOREACH:
		foreach_loop(b, n, depth);
		break;
	case ND_BREAK:
		line(b, depth, "break;");
		break;
	case ND_CONTINUE:
		line(b, depth, "continue;");
		break;
	case ND_DELETE:
		delete_statement(b, n, depth);
		break;
	case ND_TRY:
		try_catch(b, n, depth);
		break;
	case ND_RETURN:
		if (n->lhs) {
			x = expr(b, n->lhs);
			if (b->function->return_type == TYPE_STRING)
				line(b, depth, "stp_string_copy(l->__retvalue, %s);", x);
			else
				line(b, depth, "l->__retvalue = %s;", x);
			free(x);
			check_error(b, depth);
		}
		line(b, depth, "goto out;");
		break;
	case ND_NEXT:		/* in a function: the next overload takes the call */
		if (b->function)
			line(b, depth, "c->next_called = true;");
		line(b, depth, "goto out;");
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
	struct symbol *locals = b->function ? b->function->locals :
				b->guarded ? NULL : b->handler->locals;

	emit(e, "struct %s_locals {\n", b->frame);
	for (int list = 0; list < 2; list++) {
		for (struct symbol *sym = list ? locals : params; sym; sym = sym->next) {
			char *field = xasprintf("l_%s", sym->name);

			emit_field(e, sym->type, field);
			free(field);
		}
	}
	if (b->function && b->function->return_type != TYPE_UNKNOWN)
		emit_field(e, b->function->return_type, "__retvalue");
	for (int i = 0; i < b->ntemps; i++)
		emit(e, "\tchar _tmp%d[MAXSTRINGLEN];\n", i);
	emit(e, "\tchar __unused;\n");	/* never empty */
	emit(e, "};\n\n");
}

/* Embedded C sees its arguments and result through SystemTap's documented macros. */
static void emit_embedded_function(struct emitter *e, struct body *b)
{
	struct function *f = b->function;
	struct token *code = f->embedded;

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
	emit(e, "static void %s(struct context *c)\n{\n", b->frame);
	emit(e, "\tstruct %s_locals *l = &STP_FRAME(c, c->nesting)->%s;\n\n", b->frame, b->frame);
	emit(e, "\t(void)l;\n\t{\n");
	emit_embedded_code(e, code);
	emit(e, "\t}\n\tgoto out;\nout:\n\t;\n}\n");
	emit(e, "#undef STAP_ERROR\n#undef STAP_PRINTF\n");
	for (struct symbol *p = f->params; p; p = p->next)
		emit(e, "#undef STAP_ARG_%s\n", p->name);
	if (f->return_type != TYPE_UNKNOWN)
		emit(e, "#undef STAP_RETVALUE\n#undef STAP_RETURN\n");
	emit(e, "\n");
}

/* The locks a probe takes, in the globals' order. */
static int emit_lock_table(struct emitter *e, struct body *b)
{
	struct translator *t = b->t;
	int count = 0;

	for (int i = 0; i < t->nglobals; i++)
		count += b->access[i] != ACCESS_NONE;
	if (!count)
		return 0;
	emit(e, "static const struct stp_lock_req %s_locks[] = {\n", b->frame);
	for (int i = 0; i < t->nglobals; i++)
		if (b->access[i] != ACCESS_NONE)
			emit(e, "\t{ &%s_lock, %s },\t/* %s */\n", t->globals[i].name,
			     b->access[i] == ACCESS_WRITE ? "true" : "false",
			     b->access[i] == ACCESS_WRITE ? "write" : "read");
	emit(e, "};\n\n");
	return count;
}

static void emit_body(struct emitter *e, struct body *b)
{
	int locks = 0;

	if (b->function && b->function->embedded) {
		emit_embedded_function(e, b);
		return;
	}
	if (b->guarded) {	/* the condition, then the probe's own handler */
		emit(e, "static void %s(struct context *c)\n{\n"
			"\tstruct %s_locals *l = &STP_FRAME(c, 0)->%s;\n\n"
			"\tmemset(l, 0, sizeof(*l));\n%s\tprobe_%d(c);\n}\n\n",
		     b->frame, b->frame, b->frame, b->code.data, b->guarded->handler->index);
		return;
	}
	if (b->function) {
		emit(e, "static void %s(struct context *c)\n{\n"
			"\tstruct %s_locals *l = &STP_FRAME(c, c->nesting)->%s;\n\n"
			"\t(void)l;\n",
		     b->frame, b->frame, b->frame);
	} else {
		locks = emit_lock_table(e, b);
		emit(e, "static void %s(struct context *c)\n{\n"
			"\tstruct %s_locals *l = &STP_FRAME(c, 0)->%s;\n\n"
			"\tmemset(l, 0, sizeof(*l));\n",
		     b->frame, b->frame, b->frame);
		if (locks)
			emit(e, "\tif (!stp_lock_globals(%s_locks, %d))\n\t\treturn;\n", b->frame, locks);
	}
	emit(e, "%s", b->code.data ? b->code.data : "");
	emit(e, "\tgoto out;\nout:\n");
	if (locks)
		emit(e, "\tstp_unlock_globals(%s_locks, %d);\n", b->frame, locks);
	else
		emit(e, "\treturn;\n");
	emit(e, "}\n\n");
}

static void emit_stat_desc(struct emitter *e, struct global_c *g)
{
	struct node *h = g->hist;

	emit(e, "static struct stp_stat_desc %s_stat = {", g->name);
	if (h && strcmp(h->string, "@hist_linear") == 0)
		emit(e, " .hist = STP_HIST_LINEAR, .start = %" PRId64 "LL, .stop = %" PRId64
			"LL, .interval = %" PRId64 "LL,", h->args->number, h->args->next->number,
		     h->args->next->next->number);
	else if (h)
		emit(e, " .hist = STP_HIST_LOG,");
	emit(e, " .bit_shift = %" PRId64 " };\n", g->bit_shift);
}

static void emit_globals(struct emitter *e, struct translator *t)
{
	for (int i = 0; i < t->nglobals; i++) {
		struct global_c *g = &t->globals[i];
		struct symbol *sym = g->sym;
		bool param = !g->name_shared;	/* -G names the first of a name */

		emit(e, "/* global %s%s */\n", sym->name, g->is_array ? "[]" : "");
		emit(e, "static __maybe_unused DEFINE_RWLOCK(%s_lock);\n", g->name);
		if (g->is_stats)
			emit_stat_desc(e, g);
		if (g->is_array) {
			emit(e, "static const struct stp_map_desc %s_desc = { .name = \"%s\", "
				".nkeys = %d, .key_types = {", g->name, sym->name, sym->arity);
			for (int k = 0; k < sym->arity; k++)
				emit(e, " %s,", sym->key_types[k] == TYPE_STRING ? "STP_TYPE_STRING" :
										    "STP_TYPE_LONG");
			emit(e, " }, .value_type = %s, .max_entries = %s, .wrap = %s%s%s%s };\n",
			     g->is_stats ? "STP_TYPE_STATS" :
			     sym->type == TYPE_STRING ? "STP_TYPE_STRING" : "STP_TYPE_LONG",
			     sym->array_size > 0 ? xasprintf("%" PRId64, sym->array_size) :
						   "MAXMAPENTRIES",
			     sym->wrap ? "true" : "false",
			     g->is_stats ? ", .stat = &" : "", g->is_stats ? g->name : "",
			     g->is_stats ? "_stat" : "");
			emit(e, "static struct %s *%s;\n", g->is_stats ? "stp_pmap" : "stp_map", g->name);
		} else if (g->is_stats) {
			emit(e, "static struct stp_pstat *%s;\n", g->name);
		} else if (sym->type == TYPE_STRING) {
			char *init = c_string(sym->init && sym->init->kind == ND_STRING ?
					      sym->init->string : "");

			emit(e, "static char %s[MAXSTRINGLEN] = %s;\n", g->name, init);
			if (param)
				emit(e, "module_param_string(%s, %s, MAXSTRINGLEN, 0);\n", sym->name,
				     g->name);
			free(init);
		} else {
			int64_t init = sym->init && sym->init->kind == ND_NUMBER ? sym->init->number : 0;

			if (init == INT64_MIN)
				emit(e, "static s64 %s = -9223372036854775807LL - 1;\n", g->name);
			else
				emit(e, "static s64 %s = %" PRId64 "LL;\n", g->name, init);
			if (param)
				emit(e, "module_param_cb(%s, &stp_param_ops_s64, &%s, 0);\n", sym->name,
				     g->name);
		}
		emit(e, "\n");
	}
}

static void emit_alloc_free(struct emitter *e, struct translator *t)
{
	emit(e, "static int stp_script_alloc(void)\n{\n");
	for (int i = 0; i < t->nglobals; i++) {
		struct global_c *g = &t->globals[i];

		if (!g->is_array && !g->is_stats)
			continue;
		if (g->is_stats)
			emit(e, "\tstp_stat_desc_init(&%s_stat);\n", g->name);
		emit(e, "\t%s = %s(%s%s%s);\n\tif (!%s)\n\t\treturn -ENOMEM;\n", g->name,
		     g->is_array ? (g->is_stats ? "stp_pmap_alloc" : "stp_map_alloc") :
				   "stp_pstat_alloc",
		     "&", g->name, g->is_array ? "_desc" : "_stat", g->name);
	}
	emit(e, "\treturn 0;\n}\n\n");
	emit(e, "static void stp_script_free(void)\n{\n");
	for (int i = t->nglobals - 1; i >= 0; i--) {
		struct global_c *g = &t->globals[i];

		if (!g->is_array && !g->is_stats)
			continue;
		emit(e, "\t%s(%s);\n\t%s = NULL;\n",	/* the free functions take NULL */
		     g->is_array ? (g->is_stats ? "stp_pmap_free" : "stp_map_free") : "stp_pstat_free",
		     g->name, g->name);
	}
	emit(e, "}\n\n");
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

struct checking {
	struct translator *t;
	struct body *body;		/* for procfs's $value */
	bool in_function;
	int errors;
};

static const char *untranslatable(struct checking *ck, struct node *n)
{
	switch (n->kind) {
	case ND_REGEX: return "regular expression matching is";
	case ND_TARGET:
		if (ck->body && is_procfs_value(ck->body, n))
			return NULL;
		return "target variables are";
	case ND_CAST: case ND_AT_VAR: case ND_AUTOCAST: case ND_DEFINED: case ND_ENTRY:
	case ND_PERF:
		return "target variables and @-operators are";
	case ND_UNARY:
		return strcmp(n->op, "&") == 0 ? "'&' on an expression is" : NULL;
	default:
		return NULL;
	}
}

static bool check_node(struct node *n, void *arg)
{
	struct checking *ck = arg;
	const char *missing = untranslatable(ck, n);

	if (missing) {
		diag_at("translation error", n->tok, "%s not implemented yet", missing);
		ck->errors++;
		return false;
	}
	return true;
}

/* The histogram and @variance precision of each statistic: one of each per global. */
static bool learn_statistics(struct node *n, void *arg)
{
	struct checking *ck = arg;
	struct global_c *g;

	if (n->kind != ND_HIST && !(n->kind == ND_STAT && strcmp(n->string, "@variance") == 0))
		return true;
	g = global_named(ck->t, n->lhs);
	if (!g)
		return true;
	if (n->kind == ND_STAT) {
		int64_t shift = n->args ? n->args->number : 0;

		if (n->args && g->bit_shift && g->bit_shift != shift) {
			diag_at("translation error", n->tok,
				"conflicting @variance precision for '%s'", g->sym->name);
			ck->errors++;
		}
		if (n->args)
			g->bit_shift = shift;
		return true;
	}
	if (!g->hist) {
		g->hist = n;
		return true;
	}
	if (strcmp(g->hist->string, n->string) != 0 ||
	    (n->args && (n->args->number != g->hist->args->number ||
			 n->args->next->number != g->hist->args->next->number ||
			 n->args->next->next->number != g->hist->args->next->next->number))) {
		diag_related("translation error", n->tok, g->hist->tok,
			     "multiple histogram types for '%s'", g->sym->name);
		ck->errors++;
	}
	return true;
}

static void collect_globals(struct translator *t)
{
	int i = 0;

	for (struct symbol *sym = t->prog->globals; sym; sym = sym->next_used)
		t->nglobals++;
	t->globals = xcalloc(t->nglobals + 1, sizeof(*t->globals));
	for (struct symbol *sym = t->prog->globals; sym; sym = sym->next_used, i++) {
		struct global_c *g = &t->globals[i];

		g->sym = sym;
		g->is_array = sym->arity > 0;
		g->is_stats = sym->type == TYPE_STATS;
		for (int j = 0; j < i; j++)
			g->name_shared |= strcmp(t->globals[j].sym->name, sym->name) == 0;
		g->name = g->name_shared ? xasprintf("global_%s_%d", sym->name, i) :
					   xasprintf("global_%s", sym->name);
	}
}

static void collect_functions(struct translator *t)
{
	int n = 0, i = 0;

	for (struct function *f = t->prog->functions; f; f = f->next_used)
		n++;
	t->functions = xcalloc(n + 1, sizeof(*t->functions));
	t->function_names = xcalloc(n + 1, sizeof(*t->function_names));
	for (struct function *f = t->prog->functions; f; f = f->next_used, i++) {
		bool shared = false;

		for (struct function *g = t->prog->functions; g; g = g->next_used)
			shared |= g != f && strcmp(g->name, f->name) == 0;
		t->functions[i] = f;
		t->function_names[i] = shared ? xasprintf("function_%s__%d", f->name, i) :
						xasprintf("function_%s", f->name);
	}
	t->nfunctions = n;
}

/* Everything pass 2 accepted that passes 3-4 cannot build yet, said plainly. */
static int check_translatable(struct translator *t)
{
	struct program *prog = t->prog;
	struct checking ck = { .t = t };
	struct body probe = { .t = t };

	for (struct derived_probe *dp = prog->probes; dp; dp = dp->next) {
		const char *missing = dp->family->missing ? dp->family->missing(dp) : NULL;

		if (!dp->family->emit || missing) {
			diag_at("translation error", dp->point->tok, "%s%s are not implemented yet",
				missing ? missing : dp->family->name, missing ? "" : " probes");
			ck.errors++;
		}
	}
	ck.body = &probe;
	for (struct probe_body *h = prog->bodies; h; h = h->next) {
		if (h->elided)
			continue;
		probe.handler = h;
		walk_nodes(h->body, check_node, &ck);
		walk_nodes(h->body, learn_statistics, &ck);
	}
	ck.body = NULL;
	ck.in_function = true;
	for (struct function *f = prog->functions; f; f = f->next_used) {
		walk_nodes(f->body, check_node, &ck);
		walk_nodes(f->body, learn_statistics, &ck);
	}
	return ck.errors;
}

char *translate(struct session *s, struct program *prog)
{
	struct emitter e = { .session = s };
	struct translator t = { .session = s, .prog = prog };
	struct body *bodies;
	int nbodies = 0;
	struct stapfile *user = prog->files;

	collect_globals(&t);
	collect_functions(&t);
	if (check_translatable(&t))
		return NULL;
	bodies = xcalloc(prog->nbodies + prog->nfunctions + prog->nprobes + 1, sizeof(*bodies));

	/* translate bodies first: their temporaries size the frames */
	for (struct function *f = prog->functions; f; f = f->next_used) {
		struct body *b = &bodies[nbodies++];

		b->t = &t;
		b->frame = xstrdup(function_c_name(&t, f));
		b->function = f;
		b->error_label = "out";
		if (f->body)
			statement(b, f->body, 1);
	}
	for (struct probe_body *h = prog->bodies; h; h = h->next) {
		struct body *b;

		if (h->elided)
			continue;
		b = &bodies[nbodies++];
		b->t = &t;
		b->frame = xasprintf("probe_%d", h->index);
		b->handler = h;
		b->error_label = "out";
		b->access = handler_access(&t, h->body);
		statement(b, h->body, 1);
	}
	/* a point with "if (cond)" runs its handler only while the condition holds */
	for (struct derived_probe *dp = prog->probes; dp; dp = dp->next) {
		struct body *b;
		char *cond;

		if (!dp->condition)
			continue;
		b = &bodies[nbodies++];
		b->t = &t;
		b->frame = xasprintf("probe_%d_if_%d", dp->handler->index, dp->index);
		b->handler = dp->handler;
		b->guarded = dp;
		b->error_label = "out";
		cond = expr(b, dp->condition);
		line(b, 1, "if (!(%s))", cond);
		line(b, 2, "return;");
		free(cond);
	}

	emit(&e, "/* Generated by stapler %s pass 3 from %s.  Do not edit. */\n",
	     STAPLER_VERSION, user->source->name);
	emit(&e, "#include \"runtime.h\"\n\n");
	emit(&e, "/* embedded C reaches the probe's context as CONTEXT */\n#define CONTEXT c\n\n");
	for (struct stapfile *file = prog->files; file; file = file->next)
		for (struct embed *em = file->embeds; em; em = em->next)
			emit_embedded_code(&e, em->code);
	emit_globals(&e, &t);

	for (int i = 0; i < nbodies; i++)
		emit_locals_struct(&e, &bodies[i]);
	emit(&e, "union stp_frame {\n");
	for (int i = 0; i < nbodies; i++)
		emit(&e, "\tstruct %s_locals %s;\n", bodies[i].frame, bodies[i].frame);
	emit(&e, "};\n\n");
	emit(&e, "#define STP_FRAME(c, depth) (&((union stp_frame *)(c)->frames)[depth])\n\n");
	emit(&e, "static size_t stp_script_frame_size(void)\n{\n"
		 "\treturn sizeof(union stp_frame);\n}\n\n");
	emit_alloc_free(&e, &t);

	for (struct function *f = prog->functions; f; f = f->next_used)
		emit(&e, "static void %s(struct context *c);\n", function_c_name(&t, f));
	emit(&e, "\n");
	for (int i = 0; i < nbodies; i++)
		emit_body(&e, &bodies[i]);

	emit(&e, "static const struct stp_probe stp_probes[] = {\n");
	for (struct derived_probe *dp = prog->probes; dp; dp = dp->next) {
		char *point = c_string(dp->name);
		char *where = xasprintf("%s:%d:%d", dp->point->tok->file->name,
					dp->point->tok->line, dp->point->tok->column);
		char *location = c_string(where);
		char *handler = dp->condition ?
			xasprintf("probe_%d_if_%d", dp->handler->index, dp->index) :
			xasprintf("probe_%d", dp->handler->index);

		emit(&e, "\t[%d] = { .handler = %s, .point = %s, .location = %s },\n",
		     dp->index, handler, point, location);
		free(point);
		free(where);
		free(location);
		free(handler);
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
		free(bodies[i].access);
		sb_free(&bodies[i].code);
	}
	free(bodies);
	if (t.errors) {
		sb_free(&e.out);
		return NULL;
	}
	return sb_steal(&e.out);
}
