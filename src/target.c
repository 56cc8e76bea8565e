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
	const char *member = first_member(t), *file;
	char where[256] = "";
	int line;

	if ((file = ctype_declared_at(ctype_resolve(t), &line)))
		snprintf(where, sizeof(where), " (%s:%d)", file, line);
	if (!quiet)
		semantic_error(el, tok, "'%s'%s is being accessed instead of a member such as "
			       "'->%s'", name, where, member ? member : "...");
	free(name);
}

/* How stap shows an index in its messages: the number, or index1, index2... for the
 * first, second... that is not a literal. */
static char *index_text(struct node *n, struct target_component *c)
{
	int computed = 0;

	if (c->index->kind == ND_NUMBER)
		return xasprintf("%" PRId64, c->index->number);
	for (struct target_component *k = n->components; k && k != c->next; k = k->next)
		computed += k->index && k->index->kind != ND_NUMBER;
	return xasprintf("index%d", computed);
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
		char *name = ctype_name(r);

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
		       bool *in_memory, struct node *n, struct target_component *c, bool quiet)
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
	} else {
		char *name = ctype_name(r), *index = index_text(n, c);

		if (quiet)
			;
		else if (is_aggregate(r))	/* stap names the whole expression */
			semantic_error(el, n->tok, "invalid access '[%s]' for %s", index, name);
		else
			semantic_error(el, c->tok, "invalid access '[%s]' vs. %s", index, name);
		free(name);
		free(index);
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
	struct target_component *last = NULL;
	struct ctype *r;

	for (struct target_component *c = n->components; c; last = c, c = c->next) {
		bool ok = c->field ? member_step(el, a, &type, &in_memory, c, quiet) :
				     index_step(el, a, &type, &in_memory, n, c, quiet);

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
	if (r && r->kind == CT_ARRAY && in_memory) {
		a->result = TRESULT_ADDRESS;	/* as in C and stap: kernel_string($x->comm) */
		return true;
	}
	if (!r || is_aggregate(r) || r->kind == CT_ARRAY || r->kind == CT_FUNCTION ||
	    r->kind == CT_VOID) {
		if (is_aggregate(r))
			aggregate_error(el, last ? last->tok : n->tok, r, quiet);
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

/* ---- pretty-printing: $var$, $var$$, and $$vars, $$parms, $$locals ---- */

/* What $var$ and $$vars print, built as an sprintf() call: its format and arguments. */
struct pretty {
	struct token *tok;
	struct strbuf format;
	struct node head, *tail;	/* the arguments */
	int nargs;
};

/* A resolved target node for one value the print reads (its access is ready). */
static struct node *target_node(struct token *tok, const char *name, struct target_access *a)
{
	struct node *n = xcalloc(1, sizeof(*n));

	n->kind = ND_TARGET;
	n->tok = tok;
	n->string = (char *)name;
	n->access = a;
	n->type = a->result == TRESULT_STRING ? TYPE_STRING : TYPE_LONG;
	return n;
}

static void add_argument(struct pretty *pr, struct node *arg)
{
	pr->tail = pr->tail->next = arg;
	pr->nargs++;
}

/* A copy of BASE one step further: to a member at OFFSET, or through a pointer. */
static struct target_access *step_from(const struct target_access *base, bool *in_memory,
				       struct target_step step)
{
	struct target_access *a = xcalloc(1, sizeof(*a));

	*a = *base;
	a->steps = xcalloc(base->nsteps + 2, sizeof(*a->steps));
	memcpy(a->steps, base->steps, base->nsteps * sizeof(*a->steps));
	a->bit_offset = a->bit_size = 0;
	if (step.kind == TSTEP_LOAD && !*in_memory) {
		*in_memory = true;	/* the pointer is the value: it is the address */
		return a;
	}
	if (step.kind != TSTEP_ADD || step.offset)
		a->steps[a->nsteps++] = step;
	*in_memory = true;
	return a;
}

static void pretty_value(struct pretty *pr, const char *name, struct target_access *a,
			 bool in_memory, struct ctype *type, int depth, int max_depth);

/* {.a=1, .b=0x0, .c={...}} */
static void pretty_struct(struct pretty *pr, const char *name, struct target_access *a,
			  struct ctype *type, int depth, int max_depth)
{
	struct ctype_member *members;
	int n = ctype_members(type, &members), shown = 0;

	sb_putc(&pr->format, '{');
	for (int i = 0; i < n; i++) {
		bool in_memory = true;
		struct target_access *m = step_from(a, &in_memory, (struct target_step){
			.kind = TSTEP_ADD, .offset = (int64_t)members[i].offset });

		m->bit_offset = members[i].bit_offset;
		m->bit_size = members[i].bit_size;
		if (shown++)
			sb_puts(&pr->format, ", ");
		if (members[i].name)
			sb_printf(&pr->format, ".%s=", members[i].name);
		pretty_value(pr, name, m, true, members[i].type, depth + 1, max_depth);
	}
	sb_putc(&pr->format, '}');
}

/* One value of TYPE at A, as $var$ (MAX_DEPTH 1) or $var$$ show it. */
static void pretty_value(struct pretty *pr, const char *name, struct target_access *a,
			 bool in_memory, struct ctype *type, int depth, int max_depth)
{
	struct ctype *r = ctype_resolve(type);

	if (!r || r->kind == CT_VOID || r->kind == CT_FUNCTION) {
		sb_puts(&pr->format, "?");
		return;
	}
	if (r->kind == CT_STRUCT || r->kind == CT_UNION) {
		if (depth >= max_depth || !in_memory)
			sb_puts(&pr->format, "{...}");
		else
			pretty_struct(pr, name, a, r, depth, max_depth);
		return;
	}
	if (r->kind == CT_ARRAY) {
		struct ctype *element = ctype_resolve(r->target);

		if (!in_memory) {
			sb_puts(&pr->format, "[...]");
		} else if (is_char(element)) {
			struct target_access *s = step_from(a, &in_memory, (struct target_step){
				.kind = TSTEP_ADD });
			struct node *call = xcalloc(1, sizeof(*call));

			s->result = TRESULT_STRING;
			s->type = r;
			call->kind = ND_CALL;	/* string_quoted(): escaped, in quotes */
			call->tok = pr->tok;
			call->string = "string_quoted";
			call->args = target_node(pr->tok, name, s);
			call->nargs = 1;
			sb_puts(&pr->format, "%s");
			add_argument(pr, call);
		} else if (depth < max_depth && element && r->count != 0) {
			sb_putc(&pr->format, '[');
			pretty_value(pr, name, step_from(a, &in_memory, (struct target_step){
					     .kind = TSTEP_ADD }), true, r->target, depth + 1,
				     max_depth);
			sb_puts(&pr->format, r->count == 1 ? "]" : ", ...]");
		} else {
			sb_puts(&pr->format, "[...]");
		}
		return;
	}
	/* a number: what target_components makes of a scalar */
	a->result = TRESULT_LONG;
	a->type = type;
	a->size = r->kind == CT_POINTER ? 8 : (int)r->size;
	a->is_signed = r->kind != CT_POINTER && r->is_signed;
	if (a->size != 1 && a->size != 2 && a->size != 4 && a->size != 8) {
		sb_puts(&pr->format, "?");
		return;
	}
	if (!in_memory && a->nsteps)
		in_memory = true;
	a->start_is_value = a->start_is_value && !a->nsteps;
	if (r->kind == CT_POINTER)
		sb_puts(&pr->format, "%p");
	else if (is_char(r))
		sb_puts(&pr->format, "'%#c'");
	else
		sb_puts(&pr->format, a->is_signed ? "%d" : "%u");
	add_argument(pr, target_node(pr->tok, name, a));
}

/* The sprintf() call PR has built. */
static struct node *pretty_call(struct pretty *pr)
{
	struct node *call = xcalloc(1, sizeof(*call)), *format = xcalloc(1, sizeof(*format));
	struct strbuf raw = { 0 };

	for (const char *p = pr->format.data ? pr->format.data : ""; *p; p++)
		sb_puts(&raw, *p == '"' ? "\\\"" : *p == '\\' ? "\\\\" : (char[]){ *p, 0 });
	format->kind = ND_STRING;
	format->tok = pr->tok;
	format->string = pr->format.data ? sb_steal(&pr->format) : xstrdup("");
	format->raw = sb_steal(&raw);
	format->type = TYPE_STRING;
	format->next = pr->head.next;
	call->kind = ND_PRINT;
	call->tok = pr->tok;
	call->string = "sprintf";
	call->print = PRINT_SPRINTF;
	call->args = format;
	call->nargs = pr->nargs + 1;
	call->type = TYPE_STRING;
	return call;
}

struct node *target_pretty(struct node *n, struct target_access *a, struct ctype *type)
{
	struct pretty pr = { .tok = n->tok };
	struct ctype *r = ctype_resolve(type);
	bool in_memory = !a->start_is_value || a->nsteps;

	pr.tail = &pr.head;
	/* a pointer to a struct prints the struct */
	if (r && r->kind == CT_POINTER && r->target &&
	    (ctype_resolve(r->target)->kind == CT_STRUCT ||
	     ctype_resolve(r->target)->kind == CT_UNION)) {
		a = step_from(a, &in_memory, (struct target_step){ .kind = TSTEP_LOAD });
		type = r->target;
	}
	pretty_value(&pr, n->string, a, in_memory, type, 0, n->pretty == 2 ? 8 : 1);
	return pretty_call(&pr);
}

struct pretty_list {
	struct pretty pr;
};

struct pretty_list *target_pretty_list(struct token *tok)
{
	struct pretty_list *list = xcalloc(1, sizeof(*list));

	list->pr.tok = tok;
	list->pr.tail = &list->pr.head;
	return list;
}

/* One variable of $$vars ("name=0x1f"), or "name=?" when it has no value here. */
void target_pretty_variable(struct pretty_list *list, const char *name, struct target_access *a,
			    struct ctype *type, int pretty)
{
	struct pretty *pr = &list->pr;
	struct ctype *r = ctype_resolve(type);

	if (pr->format.len)
		sb_putc(&pr->format, ' ');
	sb_printf(&pr->format, "%s=", name);
	if (!a) {
		sb_putc(&pr->format, '?');
		return;
	}
	if (pretty) {
		struct node fake = { .tok = pr->tok, .string = (char *)name, .pretty = pretty };
		struct node *inner = target_pretty(&fake, a, type);

		sb_puts(&pr->format, "%s");
		add_argument(pr, inner);
		return;
	}
	if (r && (r->kind == CT_STRUCT || r->kind == CT_UNION)) {
		sb_puts(&pr->format, "{...}");
		return;
	}
	if (r && r->kind == CT_ARRAY) {
		sb_puts(&pr->format, "[...]");
		return;
	}
	pretty_value(pr, name, a, !a->start_is_value || a->nsteps, type, 0, 0);
	/* $$vars shows numbers in hex */
	if (pr->format.len >= 2 && (strcmp(pr->format.data + pr->format.len - 2, "%d") == 0 ||
				    strcmp(pr->format.data + pr->format.len - 2, "%u") == 0 ||
				    strcmp(pr->format.data + pr->format.len - 2, "%p") == 0)) {
		pr->format.len -= 2;
		sb_puts(&pr->format, "%#x");
	}
}

struct node *target_pretty_list_call(struct pretty_list *list)
{
	struct node *call = pretty_call(&list->pr);

	free(list);
	return call;
}
