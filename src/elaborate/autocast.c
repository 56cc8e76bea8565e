/*
 * autocast.c - pass 2: the C types of script values, for p->member, f()->member and
 * (p)[i] on values that hold typed pointers.
 *
 * A value read from a target variable, @cast or @var keeps its C type (&$x: a pointer
 * to x's type).  A local or global assigned such values, all of one type, has that type
 * too, and so has a function whose return statements all return one; a function's
 * parameters do not (as in stap: the caller's types do not reach them).  resolve.c
 * spreads the types (spread_value_type()) in rounds until nothing more changes; each
 * autocast then resolves as a @cast of the value to its pointer type would
 * (autocast_resolve()), and @defined() of an autocast waits for that.  What still has
 * no type after all is an error, as stap says it, from the type pass (types.c).
 */
#include "elaborate.h"
#include "debuginfo/ctype.h"

#include <stdlib.h>
#include <string.h>

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
	case ND_TERNARY: {	/* c ? &@cast(...) : &@cast(...): when both have one type */
		struct ctype *a = value_ctype(e->then), *b = value_ctype(e->els);

		return a && b && ctype_same(a, b) ? a : NULL;
	}
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

bool spread_value_type(struct node *n, struct function *function)
{
	if (n->kind == ND_ASSIGN && strcmp(n->op, "=") == 0 && n->lhs->kind == ND_VAR &&
	    n->lhs->sym && n->lhs->sym->kind != SYM_PARAM) {
		struct symbol *s = n->lhs->sym;

		return merge_ctype(&s->ctype, &s->ctype_mixed, value_ctype(n->rhs));
	}
	if (n->kind == ND_RETURN && n->lhs && function)
		return merge_ctype(&function->ctype, &function->ctype_mixed, value_ctype(n->lhs));
	return false;
}

/* ---- resolving ---- */

enum autocast_result autocast_resolve(struct elaborator *el, struct node *n, bool quiet)
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
	target_resolved(n, a);	/* p->x$: an sprintf() of the members */
	return AUTOCAST_RESOLVED;
}
