/*
 * listing.c - -l and -L: the concrete probe points a pattern names, sorted, each once;
 * with -L each followed by the variables its handler has: the locals an alias's
 * prologue sets ("name:string fd:long") and the target variables the family lists
 * (" $name:type").  The points come from derive.c, which in listing mode notes
 * what it would derive (struct listed_point) rather than deriving it; an alias's locals
 * are found by elaborating a probe of it with an empty body.
 */
#include "elaborate.h"
#include "families/family.h"

#include <stdlib.h>
#include <string.h>

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
 * The locals of the handlers the alias points POINTS[0..N) make, into LOCALS[] (NULL for
 * a point that resolves to nothing: an optional alias's whose functions the kernel does not
 * have): each point a probe with an empty body, all in one elaboration (the tapsets parsed
 * once).  False when it has errors: one point's error would leave the others' types unknown.
 */
static bool alias_locals(struct session *s, struct preprocessor *pp, struct stapfile *user,
			 struct probe_point **points, int n, char **locals)
{
	struct elaborator el = { 0 };
	struct probe_body **first = xcalloc(n ? n : 1, sizeof(*first));
	bool ok;

	elaborate_setup(&el, s, pp, user);
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
		char *names, *targets;

		if (!first[i]) {
			locals[i] = NULL;
			continue;
		}
		names = body_locals(first[i]);
		targets = body_target_variables(el.prog, first[i]);
		locals[i] = xasprintf("%s%s", names, targets);
		free(names);
		free(targets);
	}
	free(first);
	return ok;
}

/*
 * -l / -L: the concrete probe points PATTERN names, sorted, each once; with LOCALS (-L),
 * each followed by the variables its handlers have ("name:string fd:long").  As in stap,
 * an alias is listed only when it resolves to a probe here: each is elaborated (for -l
 * too), and one that resolves to nothing is left out.
 */
struct strlist list_probe_points(struct session *s, struct preprocessor *pp,
				 struct stapfile *user, struct probe *pattern, bool locals)
{
	struct elaborator el = { 0 };
	struct strlist lines = { 0 };
	struct listed_point **sorted;

	elaborate_setup(&el, s, pp, user);
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

	bool *empty = xcalloc(el.nlisted + 1, sizeof(*empty));

	for (int i = 0; i < el.nlisted; i++)
		if (!sorted[i]->variables && sorted[i]->alias_point &&
		    (i == 0 || strcmp(sorted[i]->name, sorted[i - 1]->name) != 0)) {
			where[npoints] = i;
			points[npoints++] = sorted[i]->alias_point;
		}
	if (npoints && !alias_locals(s, pp, user, points, npoints, found))
		for (int k = 0; k < npoints; k++)	/* an error: listed, without variables */
			if (!alias_locals(s, pp, user, &points[k], 1, &found[k]))
				found[k] = xstrdup("");
	for (int k = 0; k < npoints; k++) {
		alias_vars[where[k]] = found[k];
		empty[where[k]] = !found[k];
	}
	for (int i = 0; i < el.nlisted; i++) {
		struct listed_point *lp = sorted[i];
		char *vars;

		if (i > 0 && strcmp(lp->name, sorted[i - 1]->name) == 0)
			continue;
		if (empty[i])
			continue;
		if (!locals) {
			free(alias_vars[i]);
			alias_vars[i] = NULL;
		}
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
	free(empty);
	free(sorted);
	return lines;
}
