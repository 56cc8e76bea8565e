/*
 * autocast.c - pass 2: p->member, f()->member and (p)[i] on script values that hold
 * typed pointers.
 *
 * A value read from a target variable, @cast or @var keeps its C type (&$x: a pointer
 * to x's type).  A local or global assigned such values, all of one type, has that type
 * too, and so has a function whose return statements all return one; a function's
 * parameters do not (as in stap: the caller's types do not reach them).  The types
 * spread until nothing more changes; each autocast then resolves as a @cast of the
 * value to its pointer type would, and @defined() of an autocast waits for that.  What
 * still has no type after all is an error, as stap says it, from the type pass (types.c).
 */
#include "elaborate.h"
#include "debuginfo/ctype.h"

#include <stdlib.h>
#include <string.h>

enum walk_mode {
	TRY,		/* resolve what has a type now */
	UNDEFINED,	/* @defined() of what still has none is 0 */
};

struct walk {
	struct elaborator *el;
	struct probe_body *handler;	/* where the nodes are: a handler, */
	struct function *function;	/* or a function */
	enum walk_mode mode;
	int progress;
};

/* The C type of the value E has, or NULL when it is a plain number or string. */
static struct ctype *value_ctype(struct node *e)
{
	switch (e->kind) {
	case ND_TARGET:
	case ND_CAST:
	case ND_AT_VAR:
	case ND_AUTOCAST:
		if (!e->access || !e->access->type)
			return NULL;
		if (e->access->result == TRESULT_ADDRESS) {	/* &$x, or an array's address */
			struct ctype *r = ctype_resolve(e->access->type);

			if (r->kind == CT_ARRAY && !e->addressof)
				return r->target ? ctype_pointer_to(r->target) : NULL;
			return ctype_pointer_to(e->access->type);
		}
		return e->access->result == TRESULT_LONG ? e->access->type : NULL;
	case ND_VAR:
		return e->sym && !e->sym->ctype_mixed ? e->sym->ctype : NULL;
	case ND_CALL:
		return e->func && !e->func->ctype_mixed ? e->func->ctype : NULL;
	case ND_ASSIGN:
		return strcmp(e->op, "=") == 0 ? value_ctype(e->rhs) : NULL;
	case ND_ENTRY:
		return value_ctype(e->lhs);
	default:
		return NULL;
	}
}

/* One more value of type T for a variable or function; true when that changed it. */
static bool merge_ctype(struct ctype **into, bool *mixed, struct ctype *t)
{
	if (!t || *mixed)
		return false;
	if (!*into) {
		*into = t;
		return true;
	}
	if (ctype_same(*into, t))
		return false;
	*mixed = true;
	return true;
}

/* ---- spreading the types ---- */

static bool spread_visit(struct node *n, void *arg)
{
	struct walk *w = arg;

	if (n->kind == ND_ASSIGN && strcmp(n->op, "=") == 0 && n->lhs->kind == ND_VAR &&
	    n->lhs->sym && n->lhs->sym->kind != SYM_PARAM) {
		struct symbol *s = n->lhs->sym;

		w->progress += merge_ctype(&s->ctype, &s->ctype_mixed, value_ctype(n->rhs));
	} else if (n->kind == ND_RETURN && n->lhs && w->function) {
		struct function *f = w->function;

		w->progress += merge_ctype(&f->ctype, &f->ctype_mixed, value_ctype(n->lhs));
	}
	return true;
}

/* ---- resolving ---- */

enum autocast_result autocast_resolve(struct elaborator *el, struct probe_body *handler,
				      struct function *function, struct node *n, bool quiet)
{
	struct ctype *t = value_ctype(n->lhs);
	struct target_access *a;

	if (!t)
		return AUTOCAST_UNKNOWN;
	a = xcalloc(1, sizeof(*a));
	a->base = n->lhs;	/* the pointer is the script's value */
	a->start_is_value = true;
	a->regno = -1;
	if (!target_components(el, n, a, t, quiet)) {
		free(a);
		return AUTOCAST_FAILED;
	}
	target_resolved(n, a);
	if (n->kind != ND_AUTOCAST)	/* p->x$: the sprintf() it became */
		resolve_rewritten(el, handler, function, n);
	return AUTOCAST_RESOLVED;
}

static bool is_pending_defined(struct node *n)
{
	return n->kind == ND_DEFINED && n->lhs->kind == ND_AUTOCAST;
}

static void decide_defined(struct walk *w, struct node *n)
{
	enum autocast_result r = autocast_resolve(w->el, w->handler, w->function, n->lhs, true);

	if (r == AUTOCAST_UNKNOWN && w->mode == TRY)
		return;
	*n = (struct node){ .kind = ND_NUMBER, .tok = n->tok, .number = r == AUTOCAST_RESOLVED,
			    .next = n->next };
	w->el->defined_decided++;
	w->progress++;
}

static bool resolve_visit(struct node *n, void *arg)
{
	struct walk *w = arg;

	if (is_pending_defined(n)) {
		walk_nodes(n->lhs->lhs, resolve_visit, arg);
		decide_defined(w, n);
		return false;
	}
	if ((n->kind == ND_IF || n->kind == ND_TERNARY) && n->cond) {
		int decided_before = w->el->defined_decided;
		int64_t value;

		walk_nodes(n->cond, resolve_visit, arg);
		if (w->el->defined_decided != decided_before && constant_value(n->cond, &value)) {
			struct node *branch = value ? n->then : n->els, *next = n->next;

			if (branch)
				*n = *branch;
			else
				*n = (struct node){ .kind = ND_NULL_STMT, .tok = n->tok };
			n->next = next;
			walk_nodes(n, resolve_visit, arg);
			return false;
		}
		walk_nodes(n->then, resolve_visit, arg);
		walk_nodes(n->els, resolve_visit, arg);
		return false;
	}
	if (n->kind != ND_AUTOCAST || n->access)
		return true;
	walk_nodes(n->lhs, resolve_visit, arg);	/* (p->q)->r: the inner one first */
	for (struct target_component *c = n->components; c; c = c->next)
		walk_nodes(c->index, resolve_visit, arg);
	switch (autocast_resolve(w->el, w->handler, w->function, n, false)) {
	case AUTOCAST_RESOLVED:
		w->progress++;
		break;
	case AUTOCAST_FAILED:	/* said why; not again */
		*n = (struct node){ .kind = ND_NUMBER, .tok = n->tok, .next = n->next };
		w->progress++;
		break;
	case AUTOCAST_UNKNOWN:	/* maybe later; else the type pass says so */
		break;
	}
	return false;
}

/* Walks every handler and used function with VISIT; the progress it made. */
static int walk_program(struct elaborator *el, enum walk_mode mode,
			bool (*visit)(struct node *n, void *arg))
{
	struct walk w = { .el = el, .mode = mode };

	for (struct probe_body *h = el->prog->bodies; h; h = h->next) {
		w.handler = h;
		walk_nodes(h->body, visit, &w);
	}
	w.handler = NULL;
	for (struct function *f = el->prog->functions; f; f = f->next_used) {
		w.function = f;
		walk_nodes(f->body, visit, &w);
	}
	return w.progress;
}

static bool has_autocast(struct node *n, void *arg)
{
	if ((n->kind == ND_AUTOCAST && !n->access) || is_pending_defined(n))
		*(bool *)arg = true;
	return true;
}

void resolve_autocasts(struct elaborator *el)
{
	bool any = false;

	for (struct probe_body *h = el->prog->bodies; h && !any; h = h->next)
		walk_nodes(h->body, has_autocast, &any);
	for (struct function *f = el->prog->functions; f && !any; f = f->next_used)
		walk_nodes(f->body, has_autocast, &any);
	if (!any)
		return;
	for (;;) {
		while (walk_program(el, TRY, spread_visit) + walk_program(el, TRY, resolve_visit))
			;
		if (!walk_program(el, UNDEFINED, resolve_visit))
			break;
	}
	/* what still has no type is reported by the type pass (types.c), after the
	 * optimizer: as in stap, an autocast in an elided statement is no error */
}
