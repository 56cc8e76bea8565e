/*
 * probe_family.c - the probe families and the forms of their probe points.
 *
 * Each family lists its forms as templates ("timer.ms(number).randomize(number)").  A
 * probe point matches a template component by component: names by wildcard, and an
 * argument where the template has one, of its type.  A wildcard point may match several
 * templates (timer.* is timer.profile; b* is begin); each becomes a concrete point that
 * the family's build() checks and turns into derived probes.  To add a family, write
 * family_NAME.c and list it here; nothing else in pass 2 or 3 needs to change.
 */
#include "family.h"

#include <fnmatch.h>
#include <string.h>

/* In the order pass 3 registers them (and the reverse of unregistering). */
const struct probe_family *const probe_families[] = {
	&begin_end_family,
	&timer_family,
	&procfs_family,
	&kprobe_family,
	&dwarf_family,
	&trace_family,
	&netfilter_family,
	&hwbkpt_family,
	&process_family,
	&perf_family,
	NULL,
};

enum template_arg { ARG_NONE, ARG_NUMBER, ARG_STRING };

struct template_component {
	char *name;
	enum template_arg arg;
};

struct template {
	const struct probe_family *family;
	struct template_component *c;
	int n;
};

static struct template *templates;
static int ntemplates;

/* "timer.ms(number).randomize(number)": its components point into one copy of TEXT,
 * cut where the dots and parentheses were (a hundred of them parsed every run). */
static void parse_template(const struct probe_family *family, const char *text)
{
	struct template *t;
	char *p = xstrdup(text);
	int n = 1;

	for (const char *q = text; *q; q++)	/* dots outside the arguments */
		if (*q == '(')
			q = strchr(q, ')');
		else if (*q == '.')
			n++;
	if ((ntemplates & (ntemplates - 1)) == 0)	/* full at 0, 1, 2, 4...: twice the room */
		templates = xrealloc(templates, (ntemplates ? 2 * ntemplates : 1) * sizeof(*templates));
	t = &templates[ntemplates++];
	*t = (struct template){ .family = family, .c = xcalloc(n, sizeof(*t->c)) };
	while (*p && t->n < n) {
		size_t len = strcspn(p, ".(");
		struct template_component *c = &t->c[t->n++];

		c->name = p;
		c->arg = ARG_NONE;
		p += len;
		if (*p == '(') {
			c->arg = starts_with(p, "(number)") ? ARG_NUMBER : ARG_STRING;
			*p = '\0';
			p = strchr(p + 1, ')') + 1;
		}
		if (*p == '.')
			*p++ = '\0';
	}
}

/* After xfree_all() (the fuzzer frees everything between inputs), start again. */
void forget_probe_templates(void)
{
	templates = NULL;
	ntemplates = 0;
}

static void load_templates(void)
{
	if (templates)
		return;
	for (int i = 0; probe_families[i]; i++)
		for (const char *const *t = probe_families[i]->templates; *t; t++)
			parse_template(probe_families[i], *t);
}

static bool arg_fits(struct component *c, enum template_arg arg)
{
	if (!c->arg)
		return arg == ARG_NONE;
	return (arg == ARG_NUMBER && c->arg->kind == ND_NUMBER) ||
	       (arg == ARG_STRING && c->arg->kind == ND_STRING);
}

/* How many leading components of PP fit T (all of them: a match). */
static int fitting_components(struct probe_point *pp, struct template *t)
{
	int i = 0;

	for (struct component *c = pp->components; c; c = c->next, i++)
		if (i >= t->n || fnmatch(c->name, t->c[i].name, 0) != 0 || !arg_fits(c, t->c[i].arg))
			return i;
	return i == t->n ? i + 1 : i;	/* i + 1: longer than any partial fit */
}

/*
 * Whether the components from P on match the N template components T, all of them; each
 * template component's pattern component goes in FROM (NULL for those a "**" took).  A
 * component "**" (or one holding it, "p**") takes one or more components, joined by
 * dots: "**" matches "procfs.read"; its argument, if any, is the last one's, as in stap:
 * "ti**es(1)" is timer.jiffies(1).
 */
static bool match_template(struct component *p, struct template_component *t, int n,
			   struct component **from)
{
	if (!p)
		return n == 0;
	if (strstr(p->name, "**")) {
		struct strbuf joined = { 0 };
		bool matched = false;

		for (int k = 1; k <= n && !matched; k++) {
			sb_printf(&joined, "%s%s", k > 1 ? "." : "", t[k - 1].name);
			if (fnmatch(p->name, joined.data, 0) == 0 && arg_fits(p, t[k - 1].arg) &&
			    match_template(p->next, t + k, n - k, from + k)) {
				for (int i = 0; i < k - 1; i++)
					from[i] = NULL;
				from[k - 1] = p->arg ? p : NULL;	/* the argument's */
				matched = true;
			}
			if (t[k - 1].arg != ARG_NONE)
				break;	/* only the last joined component may have an argument */
		}
		sb_free(&joined);
		return matched;
	}
	if (n == 0 || fnmatch(p->name, t->name, 0) != 0 || !arg_fits(p, t->arg))
		return false;
	from[0] = p;
	return match_template(p->next, t + 1, n - 1, from + 1);
}

/* The point PP names in template T: T's component names, PP's arguments. */
static struct probe_point *concrete_point(struct probe_point *pp, struct template *t,
					  struct component **from)
{
	struct probe_point *copy = xmalloc(sizeof(*copy));
	struct component head = { 0 }, *tail = &head;

	*copy = *pp;
	copy->next = NULL;
	for (int i = 0; i < t->n; i++) {
		tail->next = xcalloc(1, sizeof(*tail->next));
		if (from[i])
			*tail->next = *from[i];
		else
			tail->next->tok = pp->tok;
		tail = tail->next;
		tail->name = t->c[i].name;
		tail->next = NULL;
	}
	copy->components = head.next;
	return copy;
}

int match_probe_families(struct probe_point *pp, struct family_match **out)
{
	int found = 0;

	load_templates();
	*out = NULL;
	for (int i = 0; i < ntemplates; i++) {
		struct component *few[16], **from = few;

		if (templates[i].n + 1 > 16)
			from = xmalloc((templates[i].n + 1) * sizeof(*from));
		memset(from, 0, (templates[i].n + 1) * sizeof(*from));
		/* a concrete point can fit just one template; a wildcard one, several */
		if (match_template(pp->components, templates[i].c, templates[i].n, from)) {
			*out = xrealloc(*out, (found + 1) * sizeof(**out));
			(*out)[found++] = (struct family_match){
				templates[i].family, concrete_point(pp, &templates[i], from) };
		}
		if (from != few)
			free(from);
	}
	return found;
}

/* The most leading components of PP that some family's form takes whole (0: none). */
int family_prefix_length(struct probe_point *pp)
{
	int longest = 0;

	load_templates();
	for (int i = 0; i < ntemplates; i++)
		if (fitting_components(pp, &templates[i]) >= templates[i].n &&
		    templates[i].n > longest)
			longest = templates[i].n;
	return longest;
}

/* Templates made of alias names (their components, no arguments), for suggestions. */
static struct template *alias_templates(const struct strlist *aliases)
{
	struct template *t = xcalloc(aliases->count + 1, sizeof(*t));

	for (int i = 0; i < aliases->count; i++) {
		const char *p = aliases->items[i];

		while (*p) {
			size_t len = strcspn(p, ".");

			t[i].c = xrealloc(t[i].c, (t[i].n + 1) * sizeof(*t[i].c));
			t[i].c[t[i].n++] = (struct template_component){ xstrndup(p, len), ARG_NONE };
			p += len + (p[len] == '.');
		}
	}
	return t;
}

/*
 * For a point no template fits: the component where fitting stopped and " (similar:
 * ...)" naming what the families' forms and the probe aliases (ALIASES, dotted names)
 * have there; *SUFFIX is set when a whole form fitted and more components follow.
 */
char *probe_point_mismatch(struct probe_point *pp, const struct strlist *aliases,
			   struct token **where, bool *suffix)
{
	struct strlist names = { 0 };
	struct template *extra = alias_templates(aliases);
	int best = 0, total = ntemplates + aliases->count;
	struct component *c = pp->components;
	char *similar;

	load_templates();
	*suffix = false;
	for (int i = 0; i < total; i++) {
		struct template *t = i < ntemplates ? &templates[i] : &extra[i - ntemplates];
		int fit = fitting_components(pp, t);

		if (fit > best)
			best = fit;
		if (i < ntemplates && fit == t->n && fit > 0)
			*suffix = true;
	}
	for (int i = 0; i < best && c->next; i++)
		c = c->next;
	*where = c->tok;
	/* the families' names; the aliases' only where no family has a name there (stap
	 * suggests "never" for "begn", not the tapset's "vm"), shortest first */
	for (int group = 0, from = 0; group < 2 && !names.count; group++) {
		for (int i = group ? ntemplates : 0; i < (group ? total : ntemplates); i++) {
			struct template *t = i < ntemplates ? &templates[i] : &extra[i - ntemplates];
			bool seen = false;

			if (fitting_components(pp, t) < best || t->n <= best)
				continue;
			for (int k = 0; k < names.count; k++)
				seen |= strcmp(names.items[k], t->c[best].name) == 0;
			if (!seen)
				strlist_add(&names, t->c[best].name);
		}
		if (names.count > from)
			qsort(names.items + from, names.count - from, sizeof(*names.items),
			      compare_strings_by_length);
		from = names.count;
	}
	similar = similar_names_including(c->name, (const char *const *)names.items,
					  names.count);
	strlist_free(&names);
	return similar;
}

const char *probe_point_first_name(struct probe_point *pp)
{
	return pp->components->name;
}
