/*
 * elaborate.c - pass 2, what the script means: the pass manager.  In order:
 *
 *  1. derive.c: each probe point to derived probes, through aliases and families;
 *  2. resolve.c: every name to a local, global or function, loading tapset files (whose
 *     probes derive.c then derives too), and the autocasts (autocast.c) once types spread;
 *  3. checks.c: -G's globals, warnings about variables read but never written
 *     (privilege.c: the functions --privilege=stapusr may not call);
 *  4. optimize.c (with -u, constants only fold);
 *  5. types.c: the types of everything, and their conflicts (then the optimizer drops the
 *     overloads that can never run);
 *  6. checks.c: arrays changed inside a foreach over them, one histogram and one
 *     @variance precision per statistic;
 *  7. display.c: globals written but never read get an end probe that prints them.
 * -l/-L (listing.c) start their elaborations with elaborate_setup() too.
 * The diagnostics of all parts go through semantic_error() and friends (diag.c).
 */
#include "elaborate.h"

#include <stdlib.h>
#include <string.h>

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

void elaborate_setup(struct elaborator *el, struct session *s, struct preprocessor *pp,
		     struct stapfile *user)
{
	el->session = s;
	el->pp = pp;
	el->prog = xcalloc(1, sizeof(*el->prog));
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
	add_program_file(el, user);
}

/*
 * --check-version: the script's probes and the functions and globals the program uses
 * whose text tests systemtap_v (in the library too: the aliases are derive.c's), each
 * a warning in stap's words.
 */
static void warn_version_dependent(struct elaborator *el, struct stapfile *user)
{
	static const char *const message =
		"This %s uses tapset constructs that are dependent on systemtap version";

	if (!el->session->check_version)
		return;
	for (struct probe *p = user->probes; p; p = p->next)
		if (!p->alias && p->version_dependent)
			library_warning(el, p->tok, message, "probe");
	for (struct function *f = el->prog->functions; f; f = f->next_used)
		if (f->version_dependent)
			library_warning(el, f->tok, message, "function");
	for (struct symbol *g = el->prog->globals; g; g = g->next_used)
		if (g->version_dependent)
			library_warning(el, g->tok, message, "global");
}

struct program *elaborate(struct session *s, struct preprocessor *pp, struct stapfile *user,
			  int *errors)
{
	struct elaborator el = { 0 };

	elaborate_setup(&el, s, pp, user);
	for (struct probe *p = user->probes; p; p = p->next)
		if (!p->alias)
			derive_probe(&el, p);
	derive_tapset_probes(&el);	/* of the files the script's aliases loaded */
	if (el.errors == 0) {
		resolve_program(&el);
		warn_version_dependent(&el, user);
		check_function_privilege(&el);	/* --privilege=stapusr */
		apply_global_settings(&el, user);
		if (el.errors == 0)	/* stap's warnings wait for the names resolved */
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
	else if (el.errors == 0)
		drop_uncalled_functions(&el);
	if (el.errors == 0)
		check_foreach_changes(&el);
	if (el.errors == 0)
		check_statistics_declarations(&el);
	if (el.errors == 0)
		add_display_probes(&el);
	*errors += el.errors;
	return el.prog;
}
