/*
 * translate_analysis.c - pass 3's analysis of the program, before any C is written.
 *
 * As bpftrace keeps its resource analysis apart from code generation: the C names of the
 * globals and functions, the globals each handler uses (through the functions it calls)
 * and so the locks it takes, each statistic's histogram and @variance precision (one of
 * each per global), and everything pass 2 accepted that passes 3-4 cannot build yet.
 */
#include "translate.h"
#include "families/family.h"

#include <stdlib.h>
#include <string.h>

/* ---- globals and functions ---- */

struct global_c *global_of(struct translator *t, struct symbol *sym)
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
struct global_c *global_named(struct translator *t, struct node *n)
{
	if (n->kind == ND_INDEX && n->lhs->kind == ND_VAR)
		return global_of(t, n->lhs->sym);
	if (n->kind == ND_VAR)
		return global_of(t, n->sym);
	return NULL;
}

/* A function's C name: function_NAME, or function_NAME__N when several share NAME
 * (overloads by arity or by priority). */
const char *function_c_name(struct translator *t, struct function *f)
{
	for (int i = 0; i < t->nfunctions; i++)
		if (t->functions[i] == f)
			return t->function_names[i];
	return f->name;
}

/* ---- how deep script function calls go: MAXNESTING ---- */

/*
 * As stap(1) says of MAXNESTING: "determined by script analysis, with a bonus 10 slots
 * added for recursive scripts": the longest chain of calls from a handler (each function
 * once; a call into a function already on the chain is recursion), plus 10 if there is
 * any recursion.  Each call takes a frame, so a chain of N calls needs MAXNESTING N.
 */
struct nesting_walk {
	struct translator *t;
	int *depth;			/* per t->functions[]: -1 unknown, -2 on the chain */
	bool recursive;
	int deepest;			/* of the calls of the body walked */
};

static int function_index(struct translator *t, struct function *f)
{
	for (int i = 0; i < t->nfunctions; i++)
		if (t->functions[i] == f)
			return i;
	return -1;
}

static int function_depth(struct nesting_walk *w, struct function *f);

static bool note_call_depth(struct node *n, void *arg)
{
	struct nesting_walk *w = arg;

	if (n->kind == ND_CALL)
		for (struct function *f = n->func; f; f = f->next_overload) {
			int d = function_depth(w, f);

			if (d > w->deepest)
				w->deepest = d;
		}
	return true;
}

/* 1 for the function's own frame, plus its deepest chain of calls */
static int function_depth(struct nesting_walk *w, struct function *f)
{
	int i = function_index(w->t, f), outer;

	if (i < 0)
		return 1;
	if (w->depth[i] == -2) {	/* already on the chain: recursion */
		w->recursive = true;
		return 0;
	}
	if (w->depth[i] >= 0)
		return w->depth[i];
	w->depth[i] = -2;
	outer = w->deepest;
	w->deepest = 0;
	walk_nodes(f->body, note_call_depth, w);
	w->depth[i] = 1 + w->deepest;
	w->deepest = outer;
	return w->depth[i];
}

int script_nesting(struct translator *t)
{
	struct nesting_walk w = { .t = t };
	int deepest = 0;

	w.depth = xcalloc(t->nfunctions ? t->nfunctions : 1, sizeof(int));
	for (int i = 0; i < t->nfunctions; i++)
		w.depth[i] = -1;
	for (struct probe_body *h = t->prog->bodies; h; h = h->next) {
		if (h->elided)
			continue;
		w.deepest = 0;
		walk_nodes(h->body, note_call_depth, &w);
		if (w.deepest > deepest)
			deepest = w.deepest;
	}
	for (struct derived_probe *dp = t->prog->probes; dp; dp = dp->next) {
		w.deepest = 0;
		walk_nodes(dp->condition, note_call_depth, &w);
		if (w.deepest > deepest)
			deepest = w.deepest;
	}
	free(w.depth);
	return (deepest ? deepest : 1) + (w.recursive ? 10 : 0);
}

/* ---- which globals a handler uses, for its locks ---- */

struct access_walk {
	struct translator *t;
	enum global_access *locks;
	struct function **seen;		/* functions walked already (recursion) */
	int nseen;
};

/* The global embedded C's pragma names (the first of that name, as its macros are) */
struct global_c *pragma_global_c(struct translator *t, const char *name, size_t len)
{
	for (int i = 0; i < t->nglobals; i++)
		if (!t->globals[i].name_shared && strlen(t->globals[i].sym->name) == len &&
		    strncmp(t->globals[i].sym->name, name, len) == 0)
			return &t->globals[i];
	return NULL;
}

static void note_pragma_access(const char *name, size_t len, bool write, void *arg)
{
	struct access_walk *w = arg;
	struct global_c *g = pragma_global_c(w->t, name, len);
	enum global_access a = write ? ACCESS_WRITE : ACCESS_READ;

	if (g && w->locks[global_index(w->t, g)] < a)
		w->locks[global_index(w->t, g)] = a;
}

static void note_access(struct access_walk *w, struct node *n, enum global_access a)
{
	struct global_c *g = n ? global_named(w->t, n) : NULL;
	int i;

	if (!g)
		return;
	i = global_index(w->t, g);
	if (w->locks[i] < a)
		w->locks[i] = a;
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
			if (f->embedded)
				embedded_pragma_globals(f->embedded->text, note_pragma_access, w);
		}
		break;
	case ND_EMBEDDED_EXPR:
		embedded_pragma_globals(n->string, note_pragma_access, w);
		break;
	default:
		break;
	}
	return true;
}

enum global_access *handler_access(struct translator *t, struct node *body)
{
	struct access_walk w = { .t = t };

	w.locks = xcalloc(t->nglobals + 1, sizeof(*w.locks));
	walk_nodes(body, access_visit, &w);
	free(w.seen);
	return w.locks;
}

/* ---- what pass 3 cannot write yet ---- */

bool is_procfs_value(struct body *b, struct node *n)
{
	return n->kind == ND_TARGET && n->string && strcmp(n->string, "$value") == 0 && b->handler &&
	       (b->handler->procfs_read || b->handler->procfs_write);
}

struct checking {
	struct translator *t;
	struct body *body;		/* for procfs's $value */
	bool in_function;
	int errors;
};

static const char *untranslatable(struct checking *ck, struct node *n)
{
	switch (n->kind) {
	case ND_TARGET:
		if ((ck->body && is_procfs_value(ck->body, n)) || n->access)
			return NULL;
		return "target variables are";
	case ND_CAST: case ND_AT_VAR: case ND_AUTOCAST:
		return n->access ? NULL : "target variables and @-operators are";
	case ND_DEFINED:	/* decided in pass 2; here only if something went wrong */
		return "target variables and @-operators are";
	case ND_PERF:
		return "@perf is";
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

	/* print(s) of a statistic: pass 2 accepts it (as stap's does), pass 3 refuses it as
	 * stap's does (a histogram printed alone is another thing: print_histogram()) */
	if (n->kind == ND_PRINT && !(n->args && n->args->kind == ND_HIST && !n->args->next))
		for (struct node *a = n->args; a; a = a->next)
			if (a->type == TYPE_STATS) {
				diag_at("semantic error", a->tok,
					"print format actual argument evaluation type unsupported");
				ck->errors++;
			}

	if (missing) {
		diag_at("translation error", n->tok, "%s not implemented yet", missing);
		ck->errors++;
		return false;
	}
	return true;
}

/*
 * The histogram and @variance precision of each statistic: one of each per global
 * (pass 2's check_statistics_declarations() refused any other).
 */
static bool learn_statistics(struct node *n, void *arg)
{
	struct checking *ck = arg;
	struct global_c *g;

	if (n->kind != ND_HIST && !(n->kind == ND_STAT && strcmp(n->string, "@variance") == 0))
		return true;
	g = global_named(ck->t, n->lhs);
	if (!g)
		return true;
	if (n->kind == ND_STAT && n->args && n->args->number)
		g->bit_shift = n->args->number;	/* the one non-zero precision */
	else if (n->kind == ND_HIST && !g->hist)
		g->hist = n;
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

/*
 * A break or continue outside a loop (`{ break }` in a probe, a function's `continue`):
 * pass 2 accepts it and stap refuses it here, in pass 3, with these words.  Expressions
 * hold no statements, so the statements are all there is to walk.
 */
static int check_loop_exits(struct node *n, int loops)
{
	int errors = 0;

	for (; n; n = n->next) {
		switch (n->kind) {
		case ND_BLOCK:
			errors += check_loop_exits(n->body, loops);
			break;
		case ND_IF:
		case ND_TRY:
			errors += check_loop_exits(n->then, loops);
			errors += check_loop_exits(n->els, loops);
			break;
		case ND_FOR:
		case ND_FOREACH:
			errors += check_loop_exits(n->then, loops + 1);
			break;
		case ND_BREAK:
		case ND_CONTINUE:
			if (!loops) {
				diag_at("semantic error", n->tok, "cannot '%s' outside loop",
					n->kind == ND_BREAK ? "break" : "continue");
				errors++;
			}
			break;
		default:
			break;
		}
	}
	return errors;
}

/* Everything pass 2 accepted that passes 3-4 cannot build yet, said plainly. */
static int check_translatable(struct translator *t)
{
	struct program *prog = t->prog;
	struct checking ck = { .t = t };
	struct body probe = { .t = t };

	for (struct derived_probe *dp = prog->probes; dp; dp = dp->next) {
		const char *missing = dp->family->missing ? dp->family->missing(dp) : NULL;

		if ((!dp->family->emit && !dp->family->table) || missing) {
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
		ck.errors += check_loop_exits(h->body, 0);
	}
	ck.body = NULL;
	ck.in_function = true;
	for (struct function *f = prog->functions; f; f = f->next_used) {
		walk_nodes(f->body, check_node, &ck);
		walk_nodes(f->body, learn_statistics, &ck);
		ck.errors += check_loop_exits(f->body, 0);
	}
	return ck.errors;
}

int analyze_program(struct translator *t)
{
	collect_globals(t);
	collect_functions(t);
	return check_translatable(t);
}
