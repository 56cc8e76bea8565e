/*
 * derive.c - pass 2: probe points to derived probes.
 *
 * A point is first matched against the probe aliases: the script's, then the tapset
 * library's (the index says which files define matching names; those are loaded).  An
 * alias expands to its own points, its prologue before the body and its epilogue after
 * it; extra components of the point are appended to the alias's points (an alias a.b
 * used as a.b.return).  Otherwise the probe family named by the first component builds
 * it (probe_family.c).  Wildcards (*, **, sys*) match alias names; families expand
 * their own arguments (kprobe.function("vfs_*")).  A point that resolves to nothing is
 * an error unless it is optional (?); a sufficient point (!) that resolves ends its list.
 */
#include "elaborate.h"
#include "families/family.h"

#include <fnmatch.h>
#include <stdarg.h>
#include <inttypes.h>
#include <string.h>

/* Where a point is being resolved: the handler its probes share, and how it got here. */
struct point_context {
	struct probe *probe;		/* the user's probe */
	struct node *body;		/* statements the handler runs */
	struct stapfile *file;		/* names in the body resolve in this file */
	struct probe_body *handler;	/* made when the first probe is derived */
	char *derivation;		/* for -p2's "<- ..." when a family resolves the point */
	char *alias_tail;		/* what an alias expansion's derivation ends with */
	char *script_point;		/* the alias named (wildcards expanded), else the user's point */
	char *from_chain;		/* -t's "from:"s: the aliases named inside out, the user's */
	struct token *named_at;		/* -t's location: the point naming the innermost alias,
					 * else the user's probe ("probe") */
	struct token *tok;		/* where the handler's warnings point */
	struct probe_point *from;	/* the alias's point this level resolves, if any */
	struct point_context *outer;	/* the level that expanded the alias */
};

static bool derive_point(struct elaborator *el, struct probe_point *pp,
			 struct point_context *cx);
static struct component *append_components(struct component *a, struct component *b);
static bool derive_from_families(struct elaborator *el, struct probe_point *pp,
				 struct point_context *cx);

int64_t component_number(struct component *c, bool *present)
{
	*present = c && c->arg && c->arg->kind == ND_NUMBER;
	return *present ? c->arg->number : 0;
}

const char *component_string(struct component *c, bool *present)
{
	*present = c && c->arg && c->arg->kind == ND_STRING;
	return *present ? c->arg->string : NULL;
}

/* ---- matching alias names ---- */

static bool has_wildcards(struct probe_point *pp)
{
	for (struct component *c = pp->components; c; c = c->next)
		if (strchr(c->name, '*'))
			return true;
	return false;
}

static bool component_matches(struct component *pattern, struct component *name)
{
	if (fnmatch(pattern->name, name->name, 0) != 0)
		return false;
	if (!pattern->arg || !name->arg)
		return !pattern->arg && !name->arg;
	if (pattern->arg->kind != name->arg->kind)
		return false;
	if (pattern->arg->kind == ND_NUMBER)
		return pattern->arg->number == name->arg->number;
	return fnmatch(pattern->arg->string, name->arg->string, 0) == 0;
}

/*
 * PATTERN matches all of NAME.  A component "**" matches any number of components; one
 * holding "**" among other text ("tick**") one or more, joined by dots.
 */
static bool components_match(struct component *p, struct component *n)
{
	if (!p)
		return !n;
	if (strcmp(p->name, "**") == 0 && !p->arg) {
		for (struct component *rest = n;; rest = rest->next) {
			if (components_match(p->next, rest))
				return true;
			if (!rest)
				return false;
		}
	}
	if (strstr(p->name, "**")) {
		struct strbuf joined = { 0 };
		bool matched = false;

		for (struct component *last = n; last && !matched; last = last->next) {
			struct component one = *last;

			sb_printf(&joined, "%s%s", joined.len ? "." : "", last->name);
			one.name = joined.data;
			/* "*" in fnmatch without FNM_PATHNAME crosses the dots too */
			matched = component_matches(p, &one) && components_match(p->next, last->next);
			if (last->arg)
				break;	/* only the last joined component may have an argument */
		}
		sb_free(&joined);
		return matched;
	}
	if (!n || !component_matches(p, n))
		return false;
	return components_match(p->next, n->next);
}

static int count_components(struct component *c)
{
	int n = 0;

	for (; c; c = c->next)
		n++;
	return n;
}

/* The first N components of LIST (a copy), and the rest after them in *REST. */
static struct component *take_components(struct component *list, int n,
					 struct component **rest)
{
	struct component head = { 0 }, *tail = &head;

	for (; list && n > 0; list = list->next, n--) {
		tail->next = xmalloc(sizeof(*tail->next));
		*tail->next = *list;
		tail = tail->next;
	}
	tail->next = NULL;
	*rest = list;
	return head.next;
}

/* A dotted alias name from the index, as components (names only). */
static struct component *name_components(const char *name)
{
	struct component head = { 0 }, *tail = &head;
	const char *p = name;

	while (*p) {
		size_t len = strcspn(p, ".");

		tail = tail->next = xcalloc(1, sizeof(*tail));
		tail->name = xstrndup(p, len);
		p += len + (p[len] == '.');
	}
	return head.next;
}

static void free_components(struct component *c)
{
	while (c) {
		struct component *next = c->next;

		free(c);
		c = next;
	}
}

/* Loads the tapset files whose aliases could match PP, fully or with a suffix. */
static void load_matching_aliases(struct elaborator *el, struct probe_point *pp)
{
	const char **names;
	int count = tapset_names(el->tapsets, TAPSET_ALIAS, &names);
	int length = count_components(pp->components);
	/* a literal first component ("kernel", "syscall") rules out the other names at once */
	const char *first = pp->components ? pp->components->name : NULL;
	size_t first_len = first && !strpbrk(first, "*?[") ? strlen(first) : 0;

	for (int i = 0; i < count; i++) {
		struct component *alias, *rest, *prefix;
		int n;

		if (first_len && (strncmp(names[i], first, first_len) != 0 ||
				  (names[i][first_len] && names[i][first_len] != '.')))
			continue;
		if (tapset_name_parsed(el->tapsets, TAPSET_ALIAS, i))
			continue;	/* its file is in the program already */
		alias = name_components(names[i]);
		n = count_components(alias);
		prefix = n <= length ? take_components(pp->components, n, &rest) : NULL;
		if (components_match(pp->components, alias) ||
		    (prefix && components_match(prefix, alias)))
			tapset_load_nth(el, TAPSET_ALIAS, i);
		free_components(prefix);
		for (struct component *c = alias; c; c = c->next)
			free(c->name);
		free_components(alias);
	}
	free(names);
}

struct alias_match {
	struct probe *alias;
	struct component *suffix;	/* components after the alias's name */
};

static void list_alias(struct elaborator *el, struct alias_match *m);

/* A point whose failure is no error: marked ? or !, or within the expansion of one. */
static bool point_is_optional(const struct probe_point *pp)
{
	return pp->optional || pp->within_optional;
}

/* True if some family has a form for all of PP (timer.profile.tick, not the alias
 * timer.profile with a suffix). */
static bool fits_a_family(struct probe_point *pp)
{
	struct family_match *matches;
	int n = match_probe_families(pp, &matches);

	free(matches);
	return n > 0;
}

/*
 * Aliases that PP names: those matching all of it; if none, and no family has a form for
 * all of it, those matching a leading part (the longest such part), the rest being a
 * suffix for the alias's points.
 */
/* An alias of the program, under its first name; ORDER keeps the files' order, the
 * order aliases of one name are tried in. */
struct alias_entry {
	const char *first;
	int order;
	struct probe *alias;
};

static int compare_alias_entries(const void *a, const void *b)
{
	const struct alias_entry *x = a, *y = b;
	int c = strcmp(x->first, y->first);

	return c ? c : x->order - y->order;
}

/* EL's aliases by first name (made again once files were added to the program). */
static void index_aliases(struct elaborator *el)
{
	int files = 0, n = 0;

	for (struct stapfile *f = el->prog->files; f; f = f->next)
		files++;
	if (files == el->alias_files && el->aliases)
		return;
	for (struct stapfile *f = el->prog->files; f; f = f->next)
		for (struct probe *a = f->probes; a; a = a->next)
			n += a->alias != NOT_ALIAS;
	free(el->aliases);
	el->aliases = xcalloc(n + 1, sizeof(*el->aliases));
	el->naliases = 0;
	for (struct stapfile *f = el->prog->files; f; f = f->next)
		for (struct probe *a = f->probes; a; a = a->next)
			if (a->alias != NOT_ALIAS) {
				el->aliases[el->naliases] = (struct alias_entry){
					a->alias_name->components->name, el->naliases, a };
				el->naliases++;
			}
	qsort(el->aliases, el->naliases, sizeof(*el->aliases), compare_alias_entries);
	el->alias_files = files;
}

static int find_aliases(struct elaborator *el, struct probe_point *pp,
			struct alias_match **out)
{
	int length = count_components(pp->components), found = 0, family_prefix = -1;
	/* an alias whose first name is not a literal first component's cannot match */
	bool literal_first = pp->components && !strpbrk(pp->components->name, "*?[");

	load_matching_aliases(el, pp);
	index_aliases(el);
	*out = NULL;
	for (int prefix_len = length; prefix_len > 0 && !found; prefix_len--) {
		struct component *rest;
		struct component *prefix;

		/* timer.profile.tick.x is timer.profile.tick with a suffix, not the alias
		 * timer.profile with one */
		if (prefix_len < length && family_prefix < 0)
			family_prefix = fits_a_family(pp) ? length : family_prefix_length(pp);
		if (prefix_len < length && family_prefix >= prefix_len)
			break;
		prefix = take_components(pp->components, prefix_len, &rest);

		/* with a literal first name, only the aliases of that name */
		int from = 0, to = el->naliases;

		if (literal_first) {
			struct alias_entry key = { prefix->name, -1, NULL };

			while (from < to) {	/* the first entry not before KEY */
				int mid = from + (to - from) / 2;

				if (compare_alias_entries(&el->aliases[mid], &key) < 0)
					from = mid + 1;
				else
					to = mid;
			}
			for (to = from; to < el->naliases &&
					strcmp(el->aliases[to].first, prefix->name) == 0; to++)
				;
		}
		for (int i = from; i < to; i++) {
			struct probe *a = el->aliases[i].alias;

			if (!components_match(prefix, a->alias_name->components))
				continue;
			*out = xrealloc(*out, (found + 1) * sizeof(**out));
			(*out)[found++] = (struct alias_match){ a, rest };
		}
	}
	return found;
}

/* ---- deriving ---- */

static struct probe_point *copy_point(struct probe_point *pp, struct component *suffix)
{
	struct probe_point *copy = xmalloc(sizeof(*copy));
	struct component head = { 0 }, *tail = &head;

	*copy = *pp;
	copy->next = NULL;
	for (struct component *c = pp->components; c; c = c->next) {
		tail->next = xmalloc(sizeof(*tail->next));
		*tail->next = *c;
		tail = tail->next;
	}
	for (struct component *c = suffix; c; c = c->next) {
		tail->next = xmalloc(sizeof(*tail->next));
		*tail->next = *c;
		tail = tail->next;
	}
	tail->next = NULL;
	copy->components = head.next;
	return copy;
}

/* "NAME = POINT, POINT?" (or +=): an alias as its file defines it. */
char *alias_definition(struct probe *a)
{
	struct strbuf sb = { 0 };
	char *name = probe_point_text(a->alias_name, false);

	sb_printf(&sb, "%s %s ", name, a->alias == ALIAS_PROLOGUE ? "=" : "+=");
	free(name);
	for (struct probe_point *t = a->points; t; t = t->next) {
		char *text = probe_point_text(t, true);

		sb_printf(&sb, "%s%s", text, t->next ? ", " : "");
		free(text);
	}
	return sb_steal(&sb);
}

/* @probewrite(var): does the probe's handler body write var? */
struct probewrite_query {
	const struct node *var;		/* ND_VAR or ND_TARGET */
	bool written;
};

static bool same_variable(const struct node *a, const struct node *b)
{
	return a && b && a->kind == b->kind && a->string && b->string &&
	       strcmp(a->string, b->string) == 0 && !a->components && !b->components;
}

static bool find_write(struct node *n, void *arg)
{
	struct probewrite_query *q = arg;

	if ((n->kind == ND_ASSIGN || n->kind == ND_INCREMENT) && same_variable(n->lhs, q->var))
		q->written = true;
	if (n->kind == ND_FOREACH) {
		if (same_variable(n->foreach->value, q->var))
			q->written = true;
		for (struct node *k = n->foreach->keys; k; k = k->next)
			if (same_variable(k, q->var))
				q->written = true;
	}
	if (n->kind == ND_TRY && same_variable(n->catch_var, q->var))
		q->written = true;
	return !q->written;
}

/* Each @probewrite(var) under N becomes 1 when BODY writes var, else 0 (stap(1)). */
static bool replace_probewrite(struct node *n, void *arg)
{
	struct node *body = arg;

	if (n->kind == ND_PROBEWRITE) {
		struct probewrite_query q = { .var = n->lhs };

		walk_nodes(body, find_write, &q);
		*n = (struct node){ .kind = ND_NUMBER, .tok = n->tok, .number = q.written,
				    .next = n->next };
		return false;
	}
	return true;
}

/*
 * A block running the alias's prologue, then BODY, then its epilogue; an @probewrite(var)
 * in them says whether BODY, the handler the alias's user wrote, writes var.
 */
static struct node *wrap_body(struct probe *a, struct node *body)
{
	struct node *block = xcalloc(1, sizeof(*block));
	struct node **tail = &block->body;

	block->kind = ND_BLOCK;
	block->tok = body->tok;
	if (a->alias == ALIAS_PROLOGUE) {
		*tail = copy_node(a->body);
		tail = &(*tail)->next;
	}
	*tail = copy_node(body);
	tail = &(*tail)->next;
	if (a->alias == ALIAS_EPILOGUE)
		*tail = copy_node(a->body);
	else if (a->epilogue)
		*tail = copy_node(a->epilogue);
	walk_nodes(block, replace_probewrite, body);
	return block;
}

static struct node *and_conditions(struct node *a, struct node *b)
{
	struct node *both;

	if (!a || !b)
		return a ? a : b;
	both = xcalloc(1, sizeof(*both));
	both->kind = ND_LOGICAL;
	both->op = "&&";
	both->tok = a->tok;
	both->lhs = a;
	both->rhs = b;
	return both;
}

/* Reports an error about PP "while resolving" it. */
static void PRINTF_LIKE(4, 5) error_resolving(struct elaborator *el, struct probe_point *pp,
					      struct token *tok, const char *fmt, ...)
{
	struct strbuf message = { 0 };
	va_list ap;

	va_start(ap, fmt);
	sb_vprintf(&message, fmt, ap);
	va_end(ap);
	el->resolving = pp->tok;
	el->resolving_shown = false;
	semantic_error_keyed(el, tok, fmt, message.data);
	el->resolving = NULL;
	sb_free(&message);
}

/* True if every point of the alias takes SUFFIX: a family's form or another alias. */
static bool suffix_fits(struct elaborator *el, struct probe *alias, struct component *suffix)
{
	for (struct probe_point *t = alias->points; t; t = t->next) {
		struct probe_point *point = copy_point(t, suffix);
		struct alias_match *matches;
		int n = fits_a_family(point) ? 1 : find_aliases(el, point, &matches);

		if (n == 0)
			return false;
	}
	return true;
}

/* The alias M's point named, its wildcards expanded: syscall.read for syscall.* */
static char *alias_named(struct alias_match *m)
{
	struct probe_point named = {
		.components = append_components(m->alias->alias_name->components, m->suffix),
	};

	return probe_point_text(&named, false);
}

/*
 * Derives the points of alias M->alias for PP.  A suffix its points do not all take is
 * this level's error (*SAID is set); a point already being resolved further out is a
 * loop, the error of the level below, so this one still says "no match".
 */
static bool expand_alias(struct elaborator *el, struct probe_point *pp, struct alias_match *m,
			 struct point_context *cx, bool *said)
{
	struct point_context inner = {
		.probe = cx->probe,
		.file = cx->file,
		.tok = cx->outer ? cx->tok : pp->tok,	/* the user's point */
		.outer = cx,
	};
	char *definition, *named;
	bool resolved = false;

	if (m->suffix && !suffix_fits(el, m->alias, m->suffix)) {
		error_resolving(el, pp, m->suffix->tok, "invalid suffix for probe");
		*said = true;
		return false;
	}
	if (el->session->check_version && m->alias->version_dependent)
		library_warning(el, m->alias->tok, "This probe uses tapset constructs that are "
				"dependent on systemtap version");
	inner.body = wrap_body(m->alias, cx->body);
	named = alias_named(m);
	inner.script_point = cx->outer ? cx->script_point : named;
	inner.from_chain = xasprintf("%s from: %s", named, cx->from_chain);
	inner.named_at = pp->tok;
	if (cx->outer)
		free(named);
	definition = alias_definition(m->alias);
	inner.derivation = inner.alias_tail = xasprintf("%s <- %s", definition, cx->alias_tail);
	free(definition);
	for (struct probe_point *t = m->alias->points; t; t = t->next) {
		struct probe_point *point = copy_point(t, m->suffix);
		bool loop = false;

		point->within_optional = pp->optional || pp->within_optional;
		point->condition = and_conditions(t->condition, pp->condition);
		for (struct point_context *c = cx; c; c = c->outer)
			loop |= c->from == t;
		if (loop) {
			char *name = probe_point_text(t, false);

			error_resolving(el, point, NULL,
					"recursive loop in alias expansion of %s at %s:%d:%d", name,
					t->tok->file->name, t->tok->line, t->tok->column);
			free(name);
			continue;
		}
		inner.from = t;
		if (derive_point(el, point, &inner)) {
			resolved = true;
			if (t->sufficient)
				break;
		}
	}
	return resolved;
}

/* Resolves one point; true if it made at least one derived probe. */
static bool derive_point(struct elaborator *el, struct probe_point *pp,
			 struct point_context *cx)
{
	struct alias_match *matches;
	int n = find_aliases(el, pp, &matches);

	if (el->listing) {
		/* -l names the aliases themselves (those that take their suffix), and what
		 * the families have of the pattern */
		for (int i = 0; i < n; i++)
			if (!matches[i].suffix || suffix_fits(el, matches[i].alias, matches[i].suffix))
				list_alias(el, &matches[i]);
		free(matches);
		return derive_from_families(el, pp, cx) || n > 0;
	}
	if (n > 0) {
		bool resolved = false;
		int errors_before = el->errors;

		bool said = false;

		bool optional = point_is_optional(pp);

		diag_quiet += optional;
		for (int i = 0; i < n; i++)
			resolved |= expand_alias(el, pp, &matches[i], cx, &said);
		free(matches);
		if (has_wildcards(pp) && fits_a_family(pp)) {	/* "**": aliases and families */
			int before = el->errors;	/* what the families lack is no error */

			diag_quiet++;
			resolved |= derive_from_families(el, pp, cx);
			diag_quiet--;
			el->errors = before;
		}
		if (!resolved && !said)	/* each level that fails says so, as in stap */
			error_resolving(el, pp, NULL, "no match");
		diag_quiet -= optional;
		if (optional)
			el->errors = errors_before;
		return resolved;
	}
	return derive_from_families(el, pp, cx);
}

/* Neither an alias nor a family's form: say where it stopped fitting, with suggestions. */
static void report_mismatch(struct elaborator *el, struct probe_point *pp)
{
	struct strlist aliases = { 0 };
	const char **names;
	int count = tapset_names(el->tapsets, TAPSET_ALIAS, &names);
	struct token *where;
	bool suffix;
	char *similar;

	for (int i = 0; i < count; i++)
		strlist_add(&aliases, names[i]);
	for (struct stapfile *f = el->prog->files; f; f = f->next)
		for (struct probe *a = f->probes; a; a = a->next)
			if (a->alias)
				strlist_add(&aliases, probe_point_text(a->alias_name, false));
	similar = probe_point_mismatch(pp, &aliases, &where, &suffix);
	el->resolving = pp->tok;
	el->resolving_shown = false;
	if (suffix)
		semantic_error(el, where, "invalid suffix for probe");
	else
		semantic_error(el, where, "probe point mismatch%s", similar);
	el->resolving = NULL;
	free(similar);
	free(names);
	strlist_free(&aliases);
}

/* The families' forms that PP fits; each builds its probes. */
/* One form M of the point PP (a family's), built with the context CX; true if it made
 * a derived probe. */
static bool build_form(struct elaborator *el, struct probe_point *pp, struct point_context *cx,
		       const struct family_match *m)
{
	struct derived_probe proto = {
		.handler = cx->handler,
		.point = m->point,
		.family = m->family,
		.derivation = cx->derivation,
		/* pn(): the alias named, else (NULL) the point the family resolves, as
		 * stap 4.8's: kernel.function("vfs_read@fs/read_write.c:450") */
		.script_point = cx->outer ? cx->script_point : NULL,
		.from_point = cx->from_chain,
		.location = cx->named_at,
		.from_wildcard = has_wildcards(pp),
		.condition = pp->condition,
	};

	return privilege_allows_point(el, m->point) &&	/* --privilege */
	       m->family->build(el, m->point, &proto);
}

static bool derive_from_families(struct elaborator *el, struct probe_point *pp,
				 struct point_context *cx)
{
	struct family_match *matches;
	int n = match_probe_families(pp, &matches);
	int errors_before = el->errors, quiet = point_is_optional(pp) || el->listing;
	bool resolved = false, several;

	if (n == 0) {
		if (!quiet)
			report_mismatch(el, pp);
		return false;
	}
	if (!cx->handler) {
		cx->handler = xcalloc(1, sizeof(*cx->handler));
		cx->handler->body = cx->body;
		cx->handler->probe = cx->probe;
		cx->handler->file = cx->file;
		cx->handler->tok = cx->tok;
		cx->handler->index = -1;
	}
	el->resolving = pp->tok;
	el->resolving_shown = false;
	/* several forms (a wildcard in a name: "ti**(1)", "kernel.function(...).*"): as in
	 * stap, those that resolve are the point's and the others are left out quietly;
	 * when none does, the first says why */
	several = n > 1 && !quiet;
	diag_quiet += quiet || several;
	for (int i = 0; i < n; i++)
		resolved |= build_form(el, pp, cx, &matches[i]);
	diag_quiet -= quiet || several;
	if (several && !resolved) {	/* none did: the first again, saying why */
		el->errors = errors_before;
		resolved = build_form(el, pp, cx, &matches[0]);
	} else if (quiet || several) {
		el->errors = errors_before;	/* an optional point that fails is just left out */
	}
	el->resolving = NULL;
	free(matches);
	return resolved;
}

static void add_listed(struct elaborator *el, char *name, struct probe_point *alias_point)
{
	el->listed = xrealloc(el->listed, (el->nlisted + 1) * sizeof(*el->listed));
	el->listed[el->nlisted++] = (struct listed_point){ name, alias_point, NULL };
}

static bool is_target_variable(struct node *n, void *arg)
{
	bool *found = arg;

	/* and what else depends on the probe: @var("x") is its $x, @cast's module is its,
	 * @perf's counter must count its program */
	if (n->kind == ND_TARGET || n->kind == ND_ENTRY || n->kind == ND_AT_VAR ||
	    n->kind == ND_CAST || n->kind == ND_PERF)
		*found = true;
	return !*found;
}

/*
 * A handler whose target variables resolve in its probe's context ($count of one
 * function, $count of another): each probe that runs it gets a copy of its own.
 */
static struct probe_body *handler_for(struct derived_probe *dp)
{
	struct probe_body *h = dp->handler, *copy;
	bool found = false;

	/* a family without target variables still keeps @entry() per return probe */
	if (!dp->family->resolve_target && !dp->saves_entry)
		return h;
	walk_nodes(h->body, is_target_variable, &found);
	if (!found)
		return h;
	if (!h->context) {
		h->context = dp;
		return h;
	}
	copy = xmalloc(sizeof(*copy));
	*copy = *h;
	copy->body = copy_node(h->body);
	copy->index = -1;
	copy->next = NULL;
	copy->context = dp;
	return copy;
}

struct derived_probe *add_derived_probe(struct elaborator *el, struct derived_probe *proto,
					char *name, void *data)
{
	struct derived_probe *dp = xmalloc(sizeof(*dp));
	struct probe_body *h;

	*dp = *proto;
	dp->name = name;
	dp->data = data;
	dp->next = NULL;
	if (proto->from_point && dp->family->from_made != FROM_NOTHING) {
		/* -t's chain begins with the point the family made */
		char *made = dp->family->from_made == FROM_NAME ? xstrdup(name) :
			     probe_point_text(dp->point, false);

		dp->from_point = xasprintf("%s from: %s", made, proto->from_point);
		free(made);
	}
	if (el->listing) {
		add_listed(el, name, NULL);
		return dp;
	}
	h = dp->handler = handler_for(dp);
	if (h->index < 0) {	/* the first probe of this handler */
		h->index = el->prog->nbodies++;
		*el->body_tail = h;
		el->body_tail = &h->next;
	}
	dp->index = el->prog->nprobes++;
	*el->probe_tail = dp;
	el->probe_tail = &dp->next;
	return dp;
}

/* All points of a user's probe, in order; "!" ends the list once it resolves. */
void derive_probe(struct elaborator *el, struct probe *p)
{
	struct strbuf all = { 0 };
	struct point_context cx = { .probe = p, .body = p->body, .file = p->file, .tok = p->tok,
				    .named_at = p->tok };

	for (struct probe_point *pp = p->points; pp; pp = pp->next) {
		char *text = probe_point_text(pp, true);

		sb_printf(&all, "%s%s", text, pp->next ? "," : "");
		free(text);
	}
	/* a family resolving a point names them all; an alias just the one it expands */
	cx.derivation = sb_steal(&all);
	cx.from_chain = probe_point_text(p->points, false);	/* stap -t: the first, for all */
	for (struct probe_point *pp = p->points; pp; pp = pp->next) {
		bool resolved;

		cx.alias_tail = probe_point_text(pp, true);
		cx.script_point = probe_point_text(pp, false);
		resolved = derive_point(el, pp, &cx);
		if (resolved && pp->sufficient)
			break;
	}
}

/*
 * The probes (not aliases) of the tapset files loaded since the last call join the
 * program, as in stap, where a tapset file the script uses brings all of itself: argv.stp's
 * begin(-1) that fills argv, json.stp's procfs file.  True if there were any.
 */
bool derive_tapset_probes(struct elaborator *el)
{
	bool any = false;

	if (el->listing)
		return false;
	for (struct stapfile *file = el->prog->files->next; file; file = file->next) {
		if (file->probes_derived)
			continue;
		file->probes_derived = true;
		for (struct probe *p = file->probes; p; p = p->next)
			if (!p->alias) {
				derive_probe(el, p);
				any = true;
			}
	}
	return any;
}

/* ---- -l and -L ---- */

static struct component *append_components(struct component *a, struct component *b)
{
	struct probe_point joined = { .components = a };

	return copy_point(&joined, b)->components;
}

static void list_alias(struct elaborator *el, struct alias_match *m)
{
	struct probe_point *point = xcalloc(1, sizeof(*point));

	point->components = append_components(m->alias->alias_name->components, m->suffix);
	point->tok = m->alias->alias_name->tok;
	add_listed(el, probe_point_text(point, false), point);
}
