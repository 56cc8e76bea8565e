/*
 * ctype.c - the C type model's operations that do not depend on a reader: resolving
 * typedefs and qualifiers, members, and stap's spelling of a type.
 */
#include "ctype.h"

#include <inttypes.h>
#include <string.h>

struct ctype *ctype_resolve(struct ctype *t)
{
	while (t && (t->kind == CT_TYPEDEF || t->kind == CT_CONST || t->kind == CT_VOLATILE ||
		     t->kind == CT_RESTRICT))
		t = t->target;
	return t;
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
 * Types are spelled inside out, as in C declarators, but with stap's conventions:
 * qualifiers after what they qualify ("char const*"), no space before '*', a pointer to
 * a function or an array in parentheses ("void (*)(...)", "int (*)[4]").
 */
static void put_type(struct strbuf *sb, const struct ctype *t, const char *declarator);

static void put_declared(struct strbuf *sb, const struct ctype *target, const char *inner,
			 bool needs_parens)
{
	char *wrapped = needs_parens ? xasprintf("(%s)", inner) : xstrdup(inner);

	put_type(sb, target, wrapped);
	free(wrapped);
}

static void put_type(struct strbuf *sb, const struct ctype *t, const char *declarator)
{
	char *inner;

	if (!t) {
		sb_printf(sb, "void%s", declarator);
		return;
	}
	switch (t->kind) {
	case CT_VOID:
		sb_printf(sb, "void%s", declarator);
		return;
	case CT_BASE:
	case CT_TYPEDEF:
		sb_printf(sb, "%s%s", t->name ? t->name : "<unknown>", declarator);
		return;
	case CT_STRUCT:
	case CT_UNION:
	case CT_ENUM:
		sb_printf(sb, "%s %s%s", t->kind == CT_STRUCT ? "struct" :
					 t->kind == CT_UNION ? "union" : "enum",
			  t->name ? t->name : "{...}", declarator);
		return;
	case CT_CONST:
	case CT_VOLATILE:
	case CT_RESTRICT:
		inner = xasprintf(" %s%s", t->kind == CT_CONST ? "const" :
				  t->kind == CT_VOLATILE ? "volatile" : "restrict", declarator);
		put_type(sb, t->target, inner);
		free(inner);
		return;
	case CT_POINTER: {
		const struct ctype *target = t->target;
		bool parens = target && (target->kind == CT_FUNCTION || target->kind == CT_ARRAY);

		inner = xasprintf("*%s", declarator);
		put_declared(sb, target, inner, parens);
		free(inner);
		return;
	}
	case CT_ARRAY:
		inner = t->count >= 0 ? xasprintf("%s[%" PRId64 "]", declarator, t->count) :
					xasprintf("%s[]", declarator);
		put_type(sb, t->target, inner);
		free(inner);
		return;
	case CT_FUNCTION:
		inner = xasprintf("%s(...)", *declarator ? declarator : " ");
		put_type(sb, t->target, inner);
		free(inner);
		return;
	}
}

char *ctype_name(const struct ctype *t)
{
	struct strbuf sb = { 0 };

	put_type(&sb, t, "");
	return sb_steal(&sb);
}
