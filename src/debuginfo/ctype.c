/*
 * ctype.c - the C type model's operations that do not depend on a reader: resolving
 * typedefs and qualifiers, members, and stap's spelling of a type.
 */
#include "ctype.h"

#include <stdlib.h>
#include <string.h>

struct ctype *ctype_resolve(struct ctype *t)
{
	while (t && (t->kind == CT_TYPEDEF || t->kind == CT_CONST || t->kind == CT_VOLATILE ||
		     t->kind == CT_RESTRICT))
		t = t->target;
	return t;
}

const char *ctype_declared_at(struct ctype *t, int *line)
{
	if (!t || !t->reader || !t->reader->declared_at)
		return NULL;
	return t->reader->declared_at(t, line);
}

struct ctype *ctype_pointer_to(struct ctype *t)
{
	if (!t->pointer) {
		t->pointer = xcalloc(1, sizeof(*t->pointer));
		t->pointer->kind = CT_POINTER;
		t->pointer->size = 8;
		t->pointer->target = t;
	}
	return t->pointer;
}

/* The debuginfo file T (or what it points to) was read from; NULL if unknown. */
static const void *ctype_source(const struct ctype *t)
{
	for (; t; t = t->target)
		if (t->reader && t->reader->source)
			return t->reader->source(t);
	return NULL;
}

/* Same spelling, from the same file (as stap: @cast headers compiled apart differ). */
bool ctype_same(const struct ctype *a, const struct ctype *b)
{
	const void *sa, *sb;
	char *na, *nb;
	bool same;

	if (a == b)
		return true;
	if (!a || !b)
		return false;
	na = ctype_name(a);
	nb = ctype_name(b);
	same = strcmp(na, nb) == 0;
	free(na);
	free(nb);
	sa = ctype_source(a);
	sb = ctype_source(b);
	return same && (!sa || !sb || sa == sb);
}

int ctype_members(struct ctype *t, struct ctype_member **members)
{
	t = ctype_resolve(t);
	if (!t || (t->kind != CT_STRUCT && t->kind != CT_UNION)) {
		*members = NULL;
		return 0;
	}
	if (!t->members_read && t->reader && t->reader->read_members)
		t->reader->read_members(t);
	t->members_read = true;
	*members = t->members;
	return t->nmembers;
}

/*
 * stap spells a type from the inside out, each layer a suffix to what it wraps:
 * qualifiers after what they qualify ("char const*"), "*" for a pointer, "[]" for an
 * array of any size ("char const[] const", "layer_mask_t[]*").  Only a pointer to a
 * function is spelled as in C: "int (*) (struct inode*, void*)".
 */
static void put_type(struct strbuf *sb, const struct ctype *t);

static void put_function_pointer(struct strbuf *sb, const struct ctype *function)
{
	put_type(sb, function->target);
	sb_puts(sb, " (*) (");
	for (int i = 0; i < function->nparams; i++) {
		if (i > 0)
			sb_puts(sb, ", ");
		put_type(sb, function->params[i]);
	}
	if (function->varargs)
		sb_puts(sb, function->nparams ? ", ..." : "...");
	else if (!function->nparams)
		sb_puts(sb, "void");
	sb_putc(sb, ')');
}

static const char *tag_keyword(enum ctype_kind kind)
{
	return kind == CT_STRUCT ? "struct" : kind == CT_UNION ? "union" : "enum";
}

static const char *qualifier(enum ctype_kind kind)
{
	return kind == CT_CONST ? "const" : kind == CT_VOLATILE ? "volatile" : "restrict";
}

static void put_type(struct strbuf *sb, const struct ctype *t)
{
	if (!t) {
		sb_puts(sb, "void");
		return;
	}
	switch (t->kind) {
	case CT_VOID:
		sb_puts(sb, "void");
		return;
	case CT_BASE:
	case CT_TYPEDEF:
		sb_puts(sb, t->name ? t->name : "<unknown>");
		return;
	case CT_STRUCT:
	case CT_UNION:
	case CT_ENUM:
		sb_printf(sb, "%s %s", tag_keyword(t->kind), t->name ? t->name : "{...}");
		return;
	case CT_CONST:
	case CT_VOLATILE:
	case CT_RESTRICT:
		put_type(sb, t->target);
		sb_printf(sb, " %s", qualifier(t->kind));
		return;
	case CT_POINTER:
		/* stap names a va_list parameter (its array of one __va_list_tag decayed) */
		if (t->target && t->target->kind == CT_STRUCT && t->target->name &&
		    strcmp(t->target->name, "__va_list_tag") == 0) {
			sb_puts(sb, "va_list");
			return;
		}
		if (t->target && t->target->kind == CT_FUNCTION) {
			put_function_pointer(sb, t->target);
			return;
		}
		put_type(sb, t->target);
		sb_putc(sb, '*');
		return;
	case CT_ARRAY:
		put_type(sb, t->target);
		sb_puts(sb, "[]");
		return;
	case CT_FUNCTION:	/* no variable has one: only a pointer to it */
		put_type(sb, t->target);
		sb_puts(sb, " ()");
		return;
	}
}

char *ctype_name(const struct ctype *t)
{
	struct strbuf sb = { 0 };

	put_type(&sb, t);
	return sb_steal(&sb);
}
