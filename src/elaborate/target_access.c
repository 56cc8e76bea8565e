/*
 * target_access.c - pass 2: the ->member and [index] components of target variables, @var and
 * @cast, over the C type model (ctype.h), whichever debuginfo the types came from.
 *
 * A target_access starts at a variable's location (an address, or a value the variable
 * is when it lives in a register); each component moves through memory:
 *   ->m on a pointer to a struct or union: load the pointer, then add m's offset
 *   ->m on a struct or union (in memory): add m's offset (members of anonymous structs
 *          and unions are reached through them)
 *   [i] on an array: add i * the element's size; on a pointer: load it, then the same;
 *          first after @cast(p, "T"), P is taken as pointing to an array of T
 * and the result is a number read there (of the type's size and signedness; a bitfield's
 * bits), a string (an array of char), or with & the address itself.  The messages are
 * stap's, word for word.
 */
#include "elaborate.h"
#include "debuginfo/ctype.h"

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
	struct ctype_member *unused;

	if (r && r->kind == CT_ARRAY && *in_memory) {
		element = r->target;
	} else if (a->base && *in_memory && c == n->components && r && r->kind != CT_VOID &&
		   r->kind != CT_FUNCTION) {
		/* @cast(p, "T")[i]: p points to T, so to an array of them, as in stap */
		element = *t;
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
	ctype_members(element, &unused);	/* a declared struct: its definition's size */
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

/*
 * ---- pretty-printing: $var$, $var$$, and $$vars, $$parms, $$locals, $$return ----
 *
 * As Debian's stap 4.8 prints them (compared in the reference VM), built as an
 * sprintf() call: the format is the text and a conversion for each value read, the
 * arguments are the reads.  What it prints, by type (after typedefs, const and volatile):
 *   char types         '%#c' (escaped as a C character literal)
 *   other integers     %d, or %u for unsigned ones (an enum by its encoding); floats and
 *                      sizes other than 1, 2, 4 and 8 bytes print "?"
 *   char *, char[]     the string there ("char" and "unsigned char" only, not "signed
 *                      char"), kernel memory else user memory, escaped and quoted
 *                      (kernel_or_user_string_quoted); an array's string is not bounded by
 *                      its length
 *   other pointers     0x%x ("0x0" for NULL: stap's %p); not followed
 *   a struct or union  {.a=1, .b=0x0}: anonymous members as <union>={...} or, stap's labels
 *                      swapped, <class>={...} for an anonymous struct
 *   an array           [first element, ...] (", ..." even when there is only one)
 *   a bitfield member  a number whatever its type (pretty_bitfield)
 * $var$ shows the members of the top-level struct (or the top-level array's first element);
 * nested structs print {...} and nested arrays [...].  $var$$ shows everything nested, with
 * no depth limit (pointers are not followed).  At the top, a pointer is followed to what it
 * points to: a struct's members are read through it, but a number prints the pointer's own
 * value in the pointee's format ("pos=-53062273311441440" for a loff_t *), a function
 * pointer prints "<function>:0x...", void * prints 0x....
 * At most 32 values are read (as many as stap reads): a struct whose next
 * member would be the 33rd ends with ", ...}", an array then prints "[, ...]".
 * A variable with no location here still prints its type's shape with "?" for each value.
 * A read that faults makes the whole value "ERROR", as in stap: the sprintf node carries
 * pretty = 1 for the translator to do that.
 * The text is cut to MAXSTRINGLEN - 1 bytes by sprintf, with nothing to say so.
 */

/* What $var$ and $$vars print, built as an sprintf() call: its format and arguments. */
struct pretty {
	struct token *tok;
	const char *name;		/* of the variable, for the reads' nodes */
	struct strbuf format;
	struct node head, *tail;	/* the arguments */
	int nargs;
	bool full;			/* $$: nested structs and arrays too */
};

#define PRETTY_MAX_ARGS 32		/* values read for one printed value, as in stap */

/*
 * Where a value is: in memory at the address ACCESS gives, or (!in_memory) ACCESS's
 * value is the value itself (a register).  ACCESS NULL: it has no location here, and each
 * value it would read prints "?".
 */
struct place {
	struct target_access *access;
	bool in_memory;
};

/* Whether stap prints a pointer to T or an array of T as a string: only for these two. */
static bool is_string_char(struct ctype *t)
{
	t = ctype_resolve(t);
	return t && t->kind == CT_BASE && t->name &&
	       (strcmp(t->name, "char") == 0 || strcmp(t->name, "unsigned char") == 0);
}

/* Signed or not, as DWARF's encoding says: an enum's is its underlying type's. */
static bool is_signed_type(struct ctype *r)
{
	if (r->kind == CT_ENUM) {
		struct ctype *under = ctype_resolve(r->target);

		return under ? under->is_signed : r->is_signed;
	}
	return r->kind != CT_POINTER && r->is_signed;
}

/* Printed with %u: an unsigned integer, as DWARF's encoding says (an enum's is its
 * underlying type's); stap prints the rest with %i, _Bool among them. */
static bool prints_unsigned(struct ctype *r)
{
	if (r->kind == CT_BASE && r->name &&
	    (strcmp(r->name, "_Bool") == 0 || strcmp(r->name, "bool") == 0))
		return false;
	return !is_signed_type(r);
}

/* A copy of A with room for one more step. */
static struct target_access *copy_access(const struct target_access *a)
{
	struct target_access *c = xcalloc(1, sizeof(*c));

	*c = *a;
	c->steps = xcalloc(a->nsteps + 1, sizeof(*c->steps));
	if (a->nsteps)
		memcpy(c->steps, a->steps, a->nsteps * sizeof(*c->steps));
	c->bit_offset = c->bit_size = 0;
	return c;
}

/* The member M (not a bitfield) of the struct at P. */
static struct place member_place(struct place p, const struct ctype_member *m)
{
	struct target_access *a;

	if (!p.access || !p.in_memory)	/* a struct in a register: stap cannot either */
		return (struct place){ NULL, false };
	a = copy_access(p.access);
	if (m->offset)
		a->steps[a->nsteps++] = (struct target_step){ .kind = TSTEP_ADD,
							       .offset = (int64_t)m->offset };
	return (struct place){ a, true };
}

/* What the pointer at P points to. */
static struct place deref_place(struct place p)
{
	struct target_access *a;

	if (!p.access)
		return p;
	a = copy_access(p.access);
	/* in memory: load the pointer; a value: it is the address (a step makes it one) */
	a->steps[a->nsteps++] = p.in_memory ?
		(struct target_step){ .kind = TSTEP_LOAD } :
		(struct target_step){ .kind = TSTEP_ADD, .offset = 0 };
	return (struct place){ a, true };
}

/* The first element of the array at P (at the same address). */
static struct place first_element(struct place p)
{
	if (!p.access || !p.in_memory)
		return (struct place){ NULL, false };
	return (struct place){ copy_access(p.access), true };
}

/* A resolved target node for one value the print reads (its access is ready). */
static struct node *target_node(struct token *tok, const char *name, struct target_access *a)
{
	struct node *n = xcalloc(1, sizeof(*n));

	n->kind = ND_TARGET;
	n->tok = tok;
	n->string = (char *)(name ? name : "");
	n->access = a;
	n->type = a->result == TRESULT_STRING ? TYPE_STRING : TYPE_LONG;
	return n;
}

/* The read of the number of SIZE bytes at P (its bitfield's bits, if it is one), or NULL
 * when there is none: no location, or a size a number cannot have. */
static struct target_access *number_access(struct place p, int size, bool is_signed)
{
	struct target_access *a;

	if (!p.access || (size != 1 && size != 2 && size != 4 && size != 8))
		return NULL;
	a = copy_access(p.access);
	a->bit_offset = p.access->bit_offset;
	a->bit_size = p.access->bit_size;
	a->result = TRESULT_LONG;
	a->size = size;
	a->is_signed = is_signed;
	return a;
}

static void add_argument(struct pretty *pr, struct node *arg)
{
	pr->tail = pr->tail->next = arg;
	pr->nargs++;
}

/* FORMAT and the read of A, or "?" when there is nothing to read. */
static bool push_read(struct pretty *pr, const char *format, struct target_access *a)
{
	if (!a) {
		sb_putc(&pr->format, '?');
		return false;
	}
	sb_puts(&pr->format, format);
	add_argument(pr, target_node(pr->tok, pr->name, a));
	return true;
}

/* ---- the string at an address ---- */

static struct node *call(struct token *tok, const char *name, struct node *arg)
{
	struct node *n = xcalloc(1, sizeof(*n));

	n->kind = ND_CALL;
	n->tok = tok;
	n->type = TYPE_STRING;
	n->string = (char *)name;
	n->args = arg;
	n->nargs = 1;
	return n;
}

/*
 * "%s" and the string at ADDR (a number read: the address), quoted: read from kernel
 * memory, else from the current process's, else an error, which makes the whole value
 * "ERROR" (the tapset's kernel_or_user_string_quoted()).
 */
static void push_string(struct pretty *pr, struct target_access *addr)
{
	if (!addr) {
		sb_putc(&pr->format, '?');
		return;
	}
	sb_puts(&pr->format, "%s");
	add_argument(pr, call(pr->tok, "kernel_or_user_string_quoted",
			      target_node(pr->tok, pr->name, addr)));
}

/* The address of the array at P as a number, or NULL (not in memory, no location). */
static struct target_access *address_access(struct place p)
{
	struct target_access *a;

	if (!p.access || !p.in_memory)
		return NULL;
	a = copy_access(p.access);
	a->result = TRESULT_ADDRESS;
	return a;
}

/* ---- the walk over a type ---- */

static void pretty_value(struct pretty *pr, struct place self, struct place object,
			 struct ctype *type, bool top, bool through_pointer);

/* A number of TYPE R at SELF (or, THROUGH_POINTER, the top-level pointer's own value). */
static void pretty_number(struct pretty *pr, struct place self, struct ctype *r,
			  bool through_pointer)
{
	int size = through_pointer ? 8 : (int)r->size;
	bool is_signed = through_pointer ? false : is_signed_type(r);

	if (r->kind == CT_BASE && r->is_float) {
		sb_putc(&pr->format, '?');
		return;
	}
	if (is_char(r))
		push_read(pr, "'%#c'", number_access(self, size, is_signed));
	else
		push_read(pr, prints_unsigned(r) ? "%u" : "%d",
			  number_access(self, size, is_signed));
}

/*
 * A bitfield member M of the struct at OBJECT: a number, whatever its type (a char's too),
 * read as $x->m reads it.  (Debian's stap 4.8 misreads most bitfields of DWARF 5, printing
 * 0 or a neighbour's bits: there its output differs from ours, which is the true value.)
 */
static void pretty_bitfield(struct pretty *pr, struct place object, const struct ctype_member *m)
{
	struct ctype *r = ctype_resolve(m->type);
	struct target_access *a;
	uint64_t size;

	if (!r || (r->kind != CT_BASE && r->kind != CT_ENUM) ||
	    (r->kind == CT_BASE && r->is_float)) {
		sb_putc(&pr->format, '?');
		return;
	}
	size = r->size;
	if (!object.access || !object.in_memory || (size != 1 && size != 2 && size != 4 &&
						    size != 8)) {
		sb_putc(&pr->format, '?');
		return;
	}
	a = copy_access(object.access);
	if (m->offset)
		a->steps[a->nsteps++] = (struct target_step){ .kind = TSTEP_ADD,
							       .offset = (int64_t)m->offset };
	a->result = TRESULT_LONG;
	a->size = (int)size;
	a->is_signed = is_signed_type(r);
	a->bit_offset = m->bit_offset;
	a->bit_size = m->bit_size;
	push_read(pr, prints_unsigned(r) ? "%u" : "%d", a);
}

/* {.a=1, .b={...}}: the members of the struct or union R at OBJECT. */
static void pretty_struct(struct pretty *pr, struct place object, struct ctype *r, bool top)
{
	struct ctype_member *members;
	int n, count = 0;

	if (r->declared_here) {	/* a declaration: stap looks for the definition elsewhere */
		sb_puts(&pr->format, "{...}");
		return;
	}
	sb_putc(&pr->format, '{');
	if (!top && !pr->full) {
		sb_puts(&pr->format, "...}");
		return;
	}
	n = ctype_members(r, &members);
	for (int i = 0; i < n; i++) {
		struct place m;

		if (++count > 1)
			sb_puts(&pr->format, ", ");
		if (pr->nargs >= PRETTY_MAX_ARGS) {
			sb_puts(&pr->format, "...");
			break;
		}
		if (members[i].name)
			sb_printf(&pr->format, ".%s", members[i].name);
		else if (members[i].type && members[i].type->kind == CT_UNION)
			sb_puts(&pr->format, "<union>");
		else if (members[i].type && members[i].type->kind == CT_STRUCT)
			sb_puts(&pr->format, "<class>");	/* sic */
		sb_putc(&pr->format, '=');
		if (members[i].bit_size) {
			pretty_bitfield(pr, object, &members[i]);
			continue;
		}
		m = member_place(object, &members[i]);
		pretty_value(pr, m, m, members[i].type, false, false);
	}
	sb_putc(&pr->format, '}');
}

/* [first, ...], or the string of an array of chars. */
static void pretty_array(struct pretty *pr, struct place object, struct ctype *r, bool top)
{
	if (!top && !pr->full) {
		sb_puts(&pr->format, "[...]");
		return;
	}
	if (is_string_char(r->target)) {
		push_string(pr, address_access(object));
		return;
	}
	sb_putc(&pr->format, '[');
	if (pr->nargs < PRETTY_MAX_ARGS) {
		struct place first = first_element(object);

		pretty_value(pr, first, first, r->target, false, false);
	}
	sb_puts(&pr->format, ", ...]");
}

/* SELF is the value pretty-printed, OBJECT where its members are (they differ at the top,
 * through pointers); TOP for the value asked for itself. */
static void pretty_value(struct pretty *pr, struct place self, struct place object,
			 struct ctype *type, bool top, bool through_pointer)
{
	struct ctype *r = ctype_resolve(type), *pointee;

	switch (r ? r->kind : CT_VOID) {
	case CT_BASE:
	case CT_ENUM:
		pretty_number(pr, self, r, through_pointer);
		return;
	case CT_ARRAY:
		pretty_array(pr, object, r, top);
		return;
	case CT_POINTER:
		pointee = ctype_resolve(r->target);
		if (pointee && pointee->kind != CT_VOID) {
			if (is_string_char(pointee)) {
				push_string(pr, number_access(self, 8, false));
				return;
			}
			if (top) {	/* followed: the pointee, read through it */
				pretty_value(pr, self, deref_place(object), r->target, true, true);
				return;
			}
		}
		push_read(pr, "0x%x", number_access(self, 8, false));
		return;
	case CT_FUNCTION:
		push_read(pr, "<function>:0x%x", number_access(self, 8, false));
		return;
	case CT_STRUCT:
	case CT_UNION:
		pretty_struct(pr, object, r, top);
		return;
	default:
		sb_putc(&pr->format, '?');
		return;
	}
}

/* The sprintf() call PR has built; CATCH: a read that faults makes it "ERROR". */
static struct node *pretty_call(struct pretty *pr, bool catch)
{
	struct node *call = xcalloc(1, sizeof(*call)), *format = xcalloc(1, sizeof(*format));
	struct strbuf raw = { 0 };

	for (const char *p = pr->format.data ? pr->format.data : ""; *p; p++)
		sb_puts(&raw, *p == '"' ? "\\\"" : *p == '\\' ? "\\\\" : (char[]){ *p, 0 });
	format->kind = ND_STRING;
	format->tok = pr->tok;
	format->string = pr->format.data ? sb_steal(&pr->format) : xstrdup("");
	format->raw = raw.data ? sb_steal(&raw) : xstrdup("");
	format->type = TYPE_STRING;
	format->next = pr->head.next;
	call->kind = ND_PRINT;
	call->tok = pr->tok;
	call->string = "sprintf";
	call->print = PRINT_SPRINTF;
	call->args = format;
	call->nargs = pr->nargs + 1;
	call->type = TYPE_STRING;
	call->pretty = catch;	/* the translator: "ERROR" if a read in it faults */
	return call;
}

/* $var$ or $var$$ (FULL) of TYPE at A (NULL: no location here) as an sprintf() call. */
static struct node *pretty_print(struct token *tok, const char *name, struct target_access *a,
				 struct ctype *type, bool full)
{
	struct pretty pr = { .tok = tok, .name = name, .full = full };
	struct place p = { a, a && (!a->start_is_value || a->nsteps) };

	pr.tail = &pr.head;
	pretty_value(&pr, p, p, type, true, false);
	return pretty_call(&pr, true);
}

static void target_pretty(struct node *n, struct target_access *a)
{
	struct node *call, *next = n->next;

	if (!n->string)	/* an autocast: what the printed members' nodes are named */
		n->string = n->tok->text;
	call = pretty_print(n->tok, n->string, a, a->type, n->pretty >= 2);
	*n = *call;
	n->next = next;
	free(call);
}

bool target_resolved(struct node *n, struct target_access *a)
{
	if (n->pretty)
		target_pretty(n, a);
	else
		n->access = a;
	return true;
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

/*
 * One variable of $$vars: "name=0x1f" (stap's %#x, which prints 0x0 for 0), "name={...}"
 * for a struct or union, "name=[...]" for an array (whether or not it has a location
 * here), "name=?" when it has none; with $ or $$, "name=" and its $name$ or $name$$.
 */
void target_pretty_variable(struct pretty_list *list, const char *name, struct target_access *a,
			    struct ctype *type, int pretty)
{
	struct pretty *pr = &list->pr;
	struct ctype *r = ctype_resolve(type);
	struct place p = { a, a && (!a->start_is_value || a->nsteps) };

	if (pr->format.len)
		sb_putc(&pr->format, ' ');
	sb_printf(&pr->format, "%s=", name);
	if (pretty) {
		sb_puts(&pr->format, "%s");
		add_argument(pr, pretty_print(pr->tok, xasprintf("$%s", name), a, type,
					      pretty >= 2));
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
	if (!r || r->kind == CT_VOID || r->kind == CT_FUNCTION ||
	    (r->kind == CT_BASE && r->is_float)) {
		sb_putc(&pr->format, '?');
		return;
	}
	pr->name = xasprintf("$%s", name);
	push_read(pr, "0x%x", number_access(p, r->kind == CT_POINTER ? 8 : (int)r->size,
					     is_signed_type(r)));
}

struct node *target_pretty_list_call(struct pretty_list *list)
{
	struct node *call = pretty_call(&list->pr, false);

	free(list);
	return call;
}
