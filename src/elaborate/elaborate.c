/*
 * elaborate.c - pass 2: what the script means.
 *
 *  1. derive.c: each probe point to derived probes, through aliases and families;
 *  2. resolve.c: every name to a local, global or function, loading tapset files;
 *  3. warnings about variables read but never written;
 *  4. optimize.c (with -u, constants only fold);
 *  5. types.c: the types of everything, and their conflicts (then the optimizer drops the
 *     overloads that can never run);
 *  6. globals written but never read get an end probe that prints them, as in stap.
 * The diagnostics of all parts go through semantic_error() and friends (diag.c).
 */
#include "elaborate.h"
#include "families/family.h"

#include <stdlib.h>
#include <string.h>

/* ---- warnings about variables ---- */

static char *similar_variables(struct symbol *sym, struct symbol *locals, struct program *prog)
{
	struct strlist names = { 0 };
	char *similar;

	for (struct symbol *l = locals; l; l = l->next)
		if (l != sym)
			strlist_add(&names, l->name);
	for (struct symbol *g = prog->globals; g; g = g->next_used)
		strlist_add(&names, g->name);
	similar = similar_names(sym->name, (const char *const *)names.items, names.count);
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
static void apply_global_settings(struct elaborator *el, struct stapfile *user)
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

static void warn_unassigned(struct elaborator *el)
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

/* ---- globals written but never read are printed at the end ---- */

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
	n->lhs = value;
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
		empty->then = printf_call(tok, xasprintf("%s @count=0x0\\n", g->name), NULL);
		sb_printf(&fmt, "%s @count=%%#d @min=%%#d @max=%%#d @sum=%%#d @avg=%%#d\\n", g->name);
		empty->els = printf_call(tok, fmt.data, stat_args(global_value, g, NULL));
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
		loop->then = printf_call(tok, fmt.data,
					 stat_args(element_value, &element, copy_keys(fe->keys)));
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
	loop->then = printf_call(tok, fmt.data, head.next);
	return loop;
}

static void add_display_probes(struct elaborator *el)
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
		add_derived_probe(el, &proto, xstrdup("end"), NULL);
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

static void check_foreach_changes(struct elaborator *el)
{
	struct foreach_check fc = { .el = el };

	for (struct probe_body *h = el->prog->bodies; h; h = h->next)
		walk_nodes(h->body, check_foreach_node, &fc);
	for (struct function *f = el->prog->functions; f; f = f->next_used)
		walk_nodes(f->body, check_foreach_node, &fc);
}

/* ---- the pass ---- */

/*
 * Whether the script may name a probe of the generated syscall tapset: its text says
 * "syscall", or one of its probe points does (a point given as $1 is in the parsed
 * point only).
 */
static bool names_syscall_probes(struct stapfile *user)
{
	if (user->source && user->source->text && strstr(user->source->text, "syscall"))
		return true;
	for (struct probe *p = user->probes; p; p = p->next)
		for (struct probe_point *pt = p->points; pt; pt = pt->next)
			for (struct component *c = pt->components; c; c = c->next)
				if (c->name && strstr(c->name, "syscall"))
					return true;
	return false;
}

static void setup(struct elaborator *el, struct session *s, struct preprocessor *pp,
		  struct stapfile *user)
{
	el->session = s;
	el->pp = pp;
	el->prog = xcalloc(1, sizeof(*el->prog));
	el->prog->files = user;
	user->next = NULL;	/* not the files of an earlier elaboration (-L runs one a point) */
	el->function_tail = &el->prog->functions;
	el->global_tail = &el->prog->globals;
	el->body_tail = &el->prog->bodies;
	el->probe_tail = &el->prog->probes;
	/* syscall.* and nd_syscall.* are written for the target kernel, when named */
	if (names_syscall_probes(user) && !s->generated_tapsets.count) {
		char *dir = syscall_tapset_dir(el);

		if (dir)
			strlist_add(&s->generated_tapsets, dir);
		free(dir);
	}
	el->tapsets = tapset_index_open(s, pp);
	for (struct symbol *g = user->globals; g; g = g->next)
		g->file = user;
	for (struct embed *e = user->embeds; e; e = e->next)
		el->prog->nembeds++;
	check_alias_names(el, user);
}

struct program *elaborate(struct session *s, struct preprocessor *pp, struct stapfile *user,
			  int *errors)
{
	struct elaborator el = { 0 };

	setup(&el, s, pp, user);
	for (struct probe *p = user->probes; p; p = p->next)
		if (!p->alias)
			derive_probe(&el, p);
	derive_tapset_probes(&el);	/* of the files the script's aliases loaded */
	if (el.errors == 0) {
		resolve_program(&el);
		check_function_privilege(&el);	/* --privilege=stapusr */
		apply_global_settings(&el, user);
		warn_unassigned(&el);
	}
	if (el.errors == 0)
		optimize(&el, !s->unoptimized);
	if (el.errors == 0 && el.prog->nprobes == 0)
		semantic_error(&el, NULL, "no probes found");
	if (el.errors == 0)
		infer_types(&el);
	if (el.errors == 0 && !s->unoptimized)
		drop_unreachable_overloads(&el);
	if (el.errors == 0)
		check_foreach_changes(&el);
	if (el.errors == 0)
		add_display_probes(&el);
	*errors += el.errors;
	return el.prog;
}

/* ---- -l and -L ---- */

/* Pointers into the list of points: by name, a name's in the order they were found
 * (the first found gives the order of its variables). */
static int compare_listed(const void *a, const void *b)
{
	const struct listed_point *x = *(const struct listed_point *const *)a;
	const struct listed_point *y = *(const struct listed_point *const *)b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x > y) - (x < y);
}

/* The next " $name:type" of a family's list at *AT (its length), or NULL at the end. */
static const char *next_variable(const char **at, size_t *len)
{
	const char *start = *at, *end;

	if (!*start)
		return NULL;
	end = strstr(start + 1, " $");
	*len = end ? (size_t)(end - start) : strlen(start);
	*at = start + *len;
	return start;
}

static bool has_variable(const char *list, const char *var, size_t len)
{
	const char *v;
	size_t n;

	while ((v = next_variable(&list, &n)))
		if (n == len && strncmp(v, var, len) == 0)
			return true;
	return false;
}

/* A point found more than once (a function's inlined instances) lists the variables
 * every one of its probes has, in the first one's order. */
static void keep_common(char **variables, const char *other)
{
	struct strbuf sb = { 0 };
	const char *at = *variables, *v;
	size_t len;

	if (strcmp(*variables, other) == 0)
		return;
	while ((v = next_variable(&at, &len)))
		if (has_variable(other, v, len))
			sb_putn(&sb, v, len);
	free(*variables);
	*variables = sb.data ? sb_steal(&sb) : xstrdup("");
}

/* " name:type ..." for the locals of BODY (-L), but the internal "__" ones. */
static char *body_locals(struct probe_body *body)
{
	struct strbuf sb = { 0 };

	/* "__" names are the tapset's own workings (stap lists its own, ours differ) */
	for (struct symbol *l = body ? body->locals : NULL; l; l = l->next)
		if (!starts_with(l->name, "__"))
			sb_printf(&sb, " %s:%s", l->name, type_name(l->type));
	return sb.data ? sb_steal(&sb) : xstrdup("");
}

/* The target variables of the probes of BODY, as their families list them (those all of
 * them have, when there are several). */
static char *body_target_variables(struct program *prog, struct probe_body *body)
{
	char *vars = NULL;

	for (struct derived_probe *dp = prog->probes; body && dp; dp = dp->next) {
		char *these;

		if (dp->handler != body || !dp->family->list_variables)
			continue;
		these = dp->family->list_variables(dp);
		if (!these)
			continue;
		if (!vars) {
			vars = these;
			continue;
		}
		keep_common(&vars, these);
		free(these);
	}
	return vars ? vars : xstrdup("");
}

/*
 * The locals of the handlers the alias points POINTS[0..N) make, into LOCALS[]: each
 * point a probe with an empty body, all in one elaboration (the tapsets parsed once).
 * False when it has errors: one point's error would leave the others' types unknown.
 */
static bool alias_locals(struct session *s, struct preprocessor *pp, struct stapfile *user,
			 struct probe_point **points, int n, char **locals)
{
	struct elaborator el = { 0 };
	struct probe_body **first = xcalloc(n ? n : 1, sizeof(*first));
	bool ok;

	setup(&el, s, pp, user);
	diag_quiet++;
	for (int i = 0; i < n; i++) {
		struct probe *p = xcalloc(1, sizeof(*p));
		struct probe_body **before = el.body_tail;
		int errors = el.errors;

		*p = (struct probe){ .points = points[i], .file = user, .tok = points[i]->tok };
		p->body = xcalloc(1, sizeof(*p->body));
		p->body->kind = ND_BLOCK;
		p->body->tok = points[i]->tok;
		derive_probe(&el, p);
		first[i] = el.body_tail != before ? *before : NULL;
		/* a point that resolves to nothing (an optional alias's) has no locals; the
		 * others go on */
		if (el.errors > errors && !first[i])
			el.errors = errors;
	}
	if (el.errors == 0)
		resolve_program(&el);
	if (el.errors == 0)
		infer_types(&el);
	diag_quiet--;
	ok = el.errors == 0;
	for (int i = 0; ok && i < n; i++) {
		char *names = body_locals(first[i]), *targets = body_target_variables(el.prog, first[i]);

		locals[i] = xasprintf("%s%s", names, targets);
		free(names);
		free(targets);
	}
	free(first);
	return ok;
}

/*
 * -l / -L: the concrete probe points PATTERN names, sorted, each once; with LOCALS (-L),
 * each followed by the variables its handlers have ("name:string fd:long").
 */
struct strlist list_probe_points(struct session *s, struct preprocessor *pp,
				 struct stapfile *user, struct probe *pattern, bool locals)
{
	struct elaborator el = { 0 };
	struct strlist lines = { 0 };
	struct listed_point **sorted;

	setup(&el, s, pp, user);
	el.listing = true;
	derive_probe(&el, pattern);
	sorted = xcalloc(el.nlisted + 1, sizeof(*sorted));
	for (int i = 0; i < el.nlisted; i++)
		sorted[i] = &el.listed[i];
	if (el.nlisted)
		qsort(sorted, el.nlisted, sizeof(*sorted), compare_listed);
	/* the aliases' locals (ALIAS_VARS[i] of SORTED[i]): all in one elaboration, or (if
	 * it fails) one by one */
	struct probe_point **points = xcalloc(el.nlisted + 1, sizeof(*points));
	char **found = xcalloc(el.nlisted + 1, sizeof(*found));
	char **alias_vars = xcalloc(el.nlisted + 1, sizeof(*alias_vars));
	int *where = xcalloc(el.nlisted + 1, sizeof(*where)), npoints = 0;

	for (int i = 0; locals && i < el.nlisted; i++)
		if (!sorted[i]->variables && sorted[i]->alias_point &&
		    (i == 0 || strcmp(sorted[i]->name, sorted[i - 1]->name) != 0)) {
			where[npoints] = i;
			points[npoints++] = sorted[i]->alias_point;
		}
	if (npoints && !alias_locals(s, pp, user, points, npoints, found))
		for (int k = 0; k < npoints; k++)
			if (!alias_locals(s, pp, user, &points[k], 1, &found[k]))
				found[k] = NULL;
	for (int k = 0; k < npoints; k++)
		alias_vars[where[k]] = found[k];
	for (int i = 0; i < el.nlisted; i++) {
		struct listed_point *lp = sorted[i];
		char *vars;

		if (i > 0 && strcmp(lp->name, sorted[i - 1]->name) == 0)
			continue;
		vars = !locals ? xstrdup("") :
		       lp->variables ? xstrdup(lp->variables) :
		       alias_vars[i] ? alias_vars[i] : xstrdup("");
		for (int k = i + 1; locals && lp->variables && k < el.nlisted &&
				    strcmp(sorted[k]->name, lp->name) == 0; k++)
			if (sorted[k]->variables)
				keep_common(&vars, sorted[k]->variables);
		strlist_add(&lines, xasprintf("%s%s", lp->name, vars));
		free(vars);
	}
	free(points);
	free(found);
	free(alias_vars);
	free(where);
	free(sorted);
	return lines;
}
