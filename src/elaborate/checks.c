/*
 * checks.c - pass 2's checks that need the whole program resolved:
 *
 *   - -G NAME=VALUE names a global of the script (or of the library it uses), which is
 *     then written;
 *   - locals and globals read but never written are warned about (with similar names);
 *   - an array may not be changed inside a foreach over it, directly or through the
 *     functions the loop calls.
 */
#include "elaborate.h"

#include <stdlib.h>
#include <inttypes.h>
#include <string.h>

/* ---- -G's globals, and variables read but never written ---- */

/* The names like SYM's among the other locals and all globals: stap's list for a global
 * names the global itself ("never-assigned global variable 'agg' (similar: agg)"). */
static char *similar_variables(struct symbol *sym, struct symbol *locals, struct program *prog)
{
	struct strlist names = { 0 };
	char *similar;

	for (struct symbol *l = locals; l; l = l->next)
		if (l != sym)
			strlist_add(&names, l->name);
	for (struct symbol *g = prog->globals; g; g = g->next_used)
		strlist_add(&names, g->name);
	similar = similar_names_including(sym->name, (const char *const *)names.items,
					  names.count);
	strlist_free(&names);
	return similar;
}

static void warn_never_assigned(struct elaborator *el, struct symbol *locals)
{
	for (struct symbol *l = locals; l; l = l->next) {
		if (l->written || !l->read)
			continue;
		char *similar = similar_variables(l, locals, el->prog);

		semantic_warning(el, l->tok, "never-assigned local variable '%s'%s", l->name,
				 similar);
		free(similar);
	}
}

/* -G NAME=VALUE sets a global of the user's script when the module loads: it is written. */
void apply_global_settings(struct elaborator *el, struct stapfile *user)
{
	struct strlist *settings = &el->session->global_settings;

	for (int i = 0; i < settings->count; i++) {
		size_t len = strcspn(settings->items[i], "=");
		struct symbol *g = user->globals;

		while (g && !(strlen(g->name) == len && strncmp(g->name, settings->items[i], len) == 0))
			g = g->next;
		/* or one of the library the program uses: argv_1 .. argv_32 (argv.stp) */
		for (struct symbol *u = el->prog->globals; !g && u; u = u->next_used)
			if (!u->private_ && strlen(u->name) == len &&
			    strncmp(u->name, settings->items[i], len) == 0)
				g = u;
		if (g)
			g->written = true;
		else
			semantic_error(el, NULL, "-G %s: the script has no global '%.*s'",
				       settings->items[i], (int)len, settings->items[i]);
	}
}

void warn_unassigned(struct elaborator *el)
{
	for (struct probe_body *h = el->prog->bodies; h; h = h->next)
		warn_never_assigned(el, h->locals);
	for (struct function *f = el->prog->functions; f; f = f->next_used)
		warn_never_assigned(el, f->locals);
	for (struct symbol *g = el->prog->globals; g; g = g->next_used)
		if (!g->written && g->read && !g->init) {
			char *similar = similar_variables(g, NULL, el->prog);

			semantic_warning(el, g->tok, "never-assigned global variable '%s'%s",
					 g->name, similar);
			free(similar);
		}
}

/* ---- arrays changed inside their own foreach ---- */

/* The variable an assignment, increment, delete or <<< changes: x, or a in a[k]. */
static struct node *changed_variable(struct node *n)
{
	struct node *target;

	switch (n->kind) {
	case ND_ASSIGN: case ND_INCREMENT: case ND_DELETE: case ND_ACCUMULATE:
		target = n->lhs;
		if (target->kind == ND_INDEX)
			target = target->lhs;
		return target->kind == ND_VAR && target->sym ? target : NULL;
	default:
		return NULL;
	}
}

struct foreach_check {
	struct elaborator *el;
	struct symbol *iterating[16];	/* the arrays of the enclosing foreach loops */
	int depth;
	struct function *walking[64];	/* functions being searched for changes */
	int nwalking;
	struct symbol *wanted;		/* changed_by_call(): the array looked for */
	bool found;
};

static bool find_change(struct node *n, void *arg)
{
	struct foreach_check *fc = arg;
	struct node *v = changed_variable(n);

	if (fc->found)
		return false;
	if (v && v->sym == fc->wanted) {
		fc->found = true;
		return false;
	}
	if (n->kind == ND_CALL && n->func) {
		for (int i = 0; i < fc->nwalking; i++)
			if (fc->walking[i] == n->func)
				return true;
		if (fc->nwalking == (int)(sizeof(fc->walking) / sizeof(fc->walking[0])))
			return true;
		fc->walking[fc->nwalking++] = n->func;
		walk_nodes(n->func->body, find_change, fc);
	}
	return true;
}

/* Whether calling F may change the global SYM (through the functions it calls, too). */
static bool changed_by_call(struct function *f, struct symbol *sym)
{
	struct foreach_check fc = { .wanted = sym };

	fc.walking[fc.nwalking++] = f;
	walk_nodes(f->body, find_change, &fc);
	return fc.found;
}

static bool check_foreach_node(struct node *n, void *arg)
{
	struct foreach_check *fc = arg;
	struct node *v = changed_variable(n);

	for (int i = 0; i < fc->depth; i++) {
		if (v && v->sym == fc->iterating[i]) {
			semantic_error(fc->el, v->tok, "variable '%s' modified during 'foreach' "
				       "iteration", v->sym->name);
			break;
		}
		if (n->kind == ND_CALL && n->func && fc->iterating[i]->kind == SYM_GLOBAL &&
		    changed_by_call(n->func, fc->iterating[i])) {
			semantic_error(fc->el, n->tok, "function call modifies var '%s' during "
				       "'foreach' iteration", fc->iterating[i]->name);
			break;
		}
	}
	if (n->kind == ND_FOREACH && n->foreach->array->kind == ND_VAR &&
	    n->foreach->array->sym &&
	    fc->depth < (int)(sizeof(fc->iterating) / sizeof(fc->iterating[0]))) {
		struct foreach *fe = n->foreach;

		walk_nodes(fe->limit, check_foreach_node, fc);
		fc->iterating[fc->depth++] = fe->array->sym;
		walk_nodes(n->then, check_foreach_node, fc);
		fc->depth--;
		return false;
	}
	return true;
}

void check_foreach_changes(struct elaborator *el)
{
	struct foreach_check fc = { .el = el };

	for (struct probe_body *h = el->prog->bodies; h; h = h->next)
		walk_nodes(h->body, check_foreach_node, &fc);
	for (struct function *f = el->prog->functions; f; f = f->next_used)
		walk_nodes(f->body, check_foreach_node, &fc);
}

/* ---- one histogram and one @variance precision per statistic ---- */

/*
 * What the statistics' uses declare, as stap 4.8 checks it once the optimizer ran (a
 * use it elided declares nothing): the first @hist_linear/@hist_log applied to a
 * global decides its buckets, and another kind or other parameters is an error; a
 * @variance(x, N) keeps N, and another precision after a non-zero one is an error
 * (@variance(x) is precision 0: after @variance(x, 2) it conflicts, before it not).
 * Functions first, then the probes; a conflict keeps the first histogram and the last
 * precision.
 */
struct stat_declared {
	struct symbol *sym;
	struct node *hist;	/* the first histogram of it */
	int64_t bit_shift;
};

struct stat_check {
	struct elaborator *el;
	struct stat_declared *seen;
	int nseen, capacity;
};

static struct stat_declared *stat_declared(struct stat_check *sc, struct symbol *sym)
{
	for (int i = 0; i < sc->nseen; i++)
		if (sc->seen[i].sym == sym)
			return &sc->seen[i];
	if (sc->nseen == sc->capacity) {
		sc->capacity = sc->capacity ? 2 * sc->capacity : 8;
		sc->seen = xrealloc(sc->seen, sc->capacity * sizeof(*sc->seen));
	}
	sc->seen[sc->nseen] = (struct stat_declared){ .sym = sym };
	return &sc->seen[sc->nseen++];
}

static bool same_histogram(struct node *a, struct node *b)
{
	struct node *x = a->args, *y = b->args;

	if (strcmp(a->string, b->string) != 0)
		return false;
	for (; x && y; x = x->next, y = y->next)
		if (x->number != y->number)
			return false;
	return !x && !y;
}

static bool check_statistic_use(struct node *n, void *arg)
{
	struct stat_check *sc = arg;
	struct node *v;
	struct stat_declared *d;

	if (n->kind != ND_HIST && !(n->kind == ND_STAT && strcmp(n->string, "@variance") == 0))
		return true;
	v = n->lhs && n->lhs->kind == ND_INDEX ? n->lhs->lhs : n->lhs;
	if (!v || v->kind != ND_VAR || !v->sym || v->sym->kind != SYM_GLOBAL)
		return true;
	d = stat_declared(sc, v->sym);
	if (n->kind == ND_STAT) {
		int64_t shift = n->args ? n->args->number : 0;

		if (d->bit_shift && d->bit_shift != shift) {
			semantic_error(sc->el, n->tok, "conflicting bit shifts declared "
				       "(previously %" PRId64 ")", d->bit_shift);
		}
		d->bit_shift = shift;
		return true;
	}
	if (!d->hist)
		d->hist = n;
	else if (!same_histogram(d->hist, n)) {
		char *name = global_stap_name(v->sym);

		semantic_error(sc->el, n->tok, "multiple histogram types declared on '%s'", name);
		free(name);
	}
	return true;
}

void check_statistics_declarations(struct elaborator *el)
{
	struct stat_check sc = { .el = el };

	for (struct function *f = el->prog->functions; f; f = f->next_used)
		walk_nodes(f->body, check_statistic_use, &sc);
	for (struct probe_body *h = el->prog->bodies; h; h = h->next)
		if (!h->elided)
			walk_nodes(h->body, check_statistic_use, &sc);
	free(sc.seen);
}
