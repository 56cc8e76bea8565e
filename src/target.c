/*
 * target.c - pass 2: the ->member and [index] components of target variables, @var and
 * @cast, over the C type model (ctype.h), whichever debuginfo the types came from.
 *
 * A target_access starts at a variable's location (an address, or a value the variable
 * is when it lives in a register); each component moves through memory:
 *   ->m on a pointer to a struct or union: load the pointer, then add m's offset
 *   ->m on a struct or union (in memory): add m's offset (members of anonymous structs
 *          and unions are reached through them)
 *   [i] on an array: add i * the element's size; on a pointer: load it, then the same
 * and the result is a number read there (of the type's size and signedness; a bitfield's
 * bits), a string (an array of char), or with & the address itself.  The messages are
 * stap's, word for word.
 */
#include "elaborate.h"
#include "ctype.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void add_step(struct target_access *a, struct target_step step)
{
	a->steps = xrealloc(a->steps, (a->nsteps + 1) * sizeof(*a->steps));
	a->steps[a->nsteps++] = step;
}

/* Whether T is a char type: a 1-byte base type named like one (arrays of them are strings). */
static bool is_char(struct ctype *t)
{
	t = ctype_resolve(t);
	return t && t->kind == CT_BASE && t->size == 1 && t->name && strstr(t->name, "char");
}

/* The member NAME of struct/union T, through anonymous members: its offset, its type. */
static bool find_member(struct ctype *t, const char *name, uint64_t *offset,
			struct ctype_member *found)
{
	struct ctype_member *members;
	int n = ctype_members(t, &members);

	for (int i = 0; i < n; i++) {
		if (members[i].name && strcmp(members[i].name, name) == 0) {
			*offset += members[i].offset;
			*found = members[i];
			return true;
		}
		if (!members[i].name) {		/* an anonymous struct or union */
			uint64_t inner = 0;

			if (find_member(members[i].type, name, &inner, found)) {
				*offset += members[i].offset + inner;
				return true;
			}
		}
	}
	return false;
}

/* "a, b, c": the members one can name, those of anonymous members among them. */
static void member_names(struct ctype *t, struct strbuf *sb)
{
	struct ctype_member *members;
	int n = ctype_members(t, &members);

	for (int i = 0; i < n; i++) {
		if (members[i].name)
			sb_printf(sb, "%s%s", sb->len ? ", " : "", members[i].name);
		else
			member_names(members[i].type, sb);
	}
}

static const char *first_member(struct ctype *t)
{
	struct ctype_member *members;
	int n = ctype_members(t, &members);

	for (int i = 0; i < n; i++) {
		if (members[i].name)
			return members[i].name;
		const char *inner = first_member(members[i].type);

		if (inner)
			return inner;
	}
	return NULL;
}

static bool is_aggregate(struct ctype *t)
{
	t = ctype_resolve(t);
	return t && (t->kind == CT_STRUCT || t->kind == CT_UNION);
}

/* stap's message for a struct where a member was wanted: 'struct path' is being
 * accessed instead of a member such as '->dentry' */
static void aggregate_error(struct elaborator *el, struct token *tok, struct ctype *t,
			    bool quiet)
{
	char *name = ctype_name(ctype_resolve(t));
	const char *member = first_member(t);

	if (!quiet)
		semantic_error(el, tok, "'%s' is being accessed instead of a member such as "
			       "'->%s'", name, member ? member : "...");
	free(name);
}

/* ->FIELD from the current type *T; false after saying why. */
static bool member_step(struct elaborator *el, struct target_access *a, struct ctype **t,
			bool *in_memory, struct target_component *c, bool quiet)
{
	struct ctype *r = ctype_resolve(*t);
	struct ctype_member m;
	uint64_t offset = 0;

	if (r && r->kind == CT_POINTER && is_aggregate(r->target)) {
		if (*in_memory)
			add_step(a, (struct target_step){ .kind = TSTEP_LOAD });
		*in_memory = true;	/* the pointer's value is the struct's address */
		r = ctype_resolve(r->target);
	} else if (!is_aggregate(r)) {
		char *name = ctype_name(*t);

		if (!quiet)
			semantic_error(el, c->tok, "invalid access '->%s' vs. %s", c->field, name);
		free(name);
		return false;
	} else if (!*in_memory) {
		if (!quiet)
			semantic_error(el, c->tok, "cannot access member '%s' of a structure in a "
				       "register", c->field);
		return false;
	}
	if (!find_member(r, c->field, &offset, &m)) {
		struct strbuf alternatives = { 0 };
		char *name = ctype_name(r);

		member_names(r, &alternatives);
		if (!quiet)
			semantic_error(el, c->tok, "unable to find member '%s' for %s "
				       "(alternatives: %s)", c->field, name,
				       alternatives.data ? alternatives.data : "");
		free(name);
		sb_free(&alternatives);
		return false;
	}
	if (offset)
		add_step(a, (struct target_step){ .kind = TSTEP_ADD, .offset = (int64_t)offset });
	a->bit_offset = m.bit_offset;
	a->bit_size = m.bit_size;
	*t = m.type;
	return true;
}

/* [INDEX] from the current type *T. */
static bool index_step(struct elaborator *el, struct target_access *a, struct ctype **t,
		       bool *in_memory, struct target_component *c, bool quiet)
{
	struct ctype *r = ctype_resolve(*t), *element;

	if (r && r->kind == CT_ARRAY && *in_memory) {
		element = r->target;
	} else if (r && r->kind == CT_POINTER && r->target &&
		   ctype_resolve(r->target)->kind != CT_VOID) {
		if (*in_memory)
			add_step(a, (struct target_step){ .kind = TSTEP_LOAD });
		*in_memory = true;
		element = r->target;
	} else if (is_aggregate(r)) {
		aggregate_error(el, c->tok, r, quiet);
		return false;
	} else {
		char *name = ctype_name(*t);

		if (!quiet)
			semantic_error(el, c->tok, "invalid access '[...]' vs. %s", name);
		free(name);
		return false;
	}
	add_step(a, (struct target_step){ .kind = TSTEP_INDEX, .index = c->index,
					  .scale = (int64_t)ctype_resolve(element)->size });
	a->bit_size = 0;
	*t = element;
	return true;
}

bool target_components(struct elaborator *el, struct node *n, struct target_access *a,
		       struct ctype *type, bool quiet)
{
	bool in_memory = !a->start_is_value;
	struct ctype *r;

	for (struct target_component *c = n->components; c; c = c->next) {
		bool ok = c->field ? member_step(el, a, &type, &in_memory, c, quiet) :
				     index_step(el, a, &type, &in_memory, c, quiet);

		if (!ok)
			return false;
	}
	a->start_is_value = !in_memory;
	a->type = type;
	r = ctype_resolve(type);
	if (n->addressof) {
		if (!in_memory || a->bit_size) {
			if (!quiet)
				semantic_error(el, n->tok, "cannot take address of object in "
					       "register");
			return false;
		}
		a->result = TRESULT_ADDRESS;
		return true;
	}
	if (n->pretty)
		return true;	/* $var$: the caller prints it member by member */
	if (r && r->kind == CT_ARRAY && is_char(r->target) && in_memory) {
		a->result = TRESULT_STRING;
		return true;
	}
	if (!r || is_aggregate(r) || r->kind == CT_ARRAY || r->kind == CT_FUNCTION ||
	    r->kind == CT_VOID) {
		if (is_aggregate(r))
			aggregate_error(el, n->tok, r, quiet);
		else if (!quiet) {
			char *name = ctype_name(type);

			semantic_error(el, n->tok, "cannot read a value of type %s", name);
			free(name);
		}
		return false;
	}
	a->result = TRESULT_LONG;
	a->size = r->kind == CT_POINTER ? 8 : (int)r->size;
	a->is_signed = r->kind != CT_POINTER && r->is_signed;
	if (a->size != 1 && a->size != 2 && a->size != 4 && a->size != 8) {
		char *name = ctype_name(type);

		if (!quiet)
			semantic_error(el, n->tok, "cannot read a value of %d bytes (%s)", a->size,
				       name);
		free(name);
		return false;
	}
	return true;
}
