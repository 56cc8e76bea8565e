/*
 * ast.c - operations on the AST that several passes need: deep copies (each handler made
 * through a probe alias gets its own copy of the bodies, resolved on its own), walking
 * every node, the names of its enums, and what a printf format asks for.
 */
#include "stap.h"

#include <ctype.h>
#include <string.h>

static struct target_component *copy_components(struct target_component *c)
{
	struct target_component head = { 0 }, *tail = &head;

	for (; c; c = c->next) {
		tail->next = xmalloc(sizeof(*tail->next));
		*tail->next = *c;
		tail = tail->next;
		tail->index = copy_node(c->index);
	}
	tail->next = NULL;
	return head.next;
}

static struct node *copy_list(struct node *list)
{
	struct node head = { 0 }, *tail = &head;

	for (; list; list = list->next)
		tail = tail->next = copy_node(list);
	return head.next;
}

/* N and everything under it (not its next: lists are copied by copy_list). */
struct node *copy_node(struct node *n)
{
	struct node *c;

	if (!n)
		return NULL;
	c = xmalloc(sizeof(*c));
	*c = *n;
	c->next = NULL;
	c->sym = NULL;
	c->func = NULL;
	c->type = TYPE_UNKNOWN;
	c->lhs = copy_node(n->lhs);
	c->rhs = copy_node(n->rhs);
	c->cond = copy_node(n->cond);
	c->then = copy_node(n->then);
	c->els = copy_node(n->els);
	c->init = copy_node(n->init);
	c->incr = copy_node(n->incr);
	c->catch_var = copy_node(n->catch_var);
	c->body = copy_list(n->body);
	c->args = copy_list(n->args);
	c->components = copy_components(n->components);
	if (n->foreach) {
		c->foreach = xmalloc(sizeof(*c->foreach));
		*c->foreach = *n->foreach;
		c->foreach->value = copy_node(n->foreach->value);
		c->foreach->keys = copy_list(n->foreach->keys);
		c->foreach->array = copy_node(n->foreach->array);
		c->foreach->filter = copy_list(n->foreach->filter);
		c->foreach->limit = copy_node(n->foreach->limit);
	}
	return c;
}

static bool is_component_index(const struct node *n, const struct node *index)
{
	for (const struct target_component *c = n->components; c; c = c->next)
		if (c->index == index)
			return true;
	return false;
}

/* The script expressions a resolved target read uses that are not N's own children: a
 * pretty-printed value's reads ($p->m$, @cast(t, "T")->a[i]$) carry @cast's operand and
 * the indexes in their access alone. */
static void walk_access(struct node *n, bool (*visit)(struct node *n, void *arg), void *arg)
{
	const struct target_access *a = n->access;

	if (a->base && a->base != n->lhs)
		walk_nodes(a->base, visit, arg);
	for (int i = 0; i < a->nsteps; i++)
		if (a->steps[i].kind == TSTEP_INDEX && !is_component_index(n, a->steps[i].index))
			walk_nodes(a->steps[i].index, visit, arg);
}

/*
 * Calls VISIT on N and every node under it, parents first; VISIT returns false to skip
 * a node's children.
 */
void walk_nodes(struct node *n, bool (*visit)(struct node *n, void *arg), void *arg)
{
	if (!n || !visit(n, arg))
		return;
	walk_nodes(n->lhs, visit, arg);
	walk_nodes(n->rhs, visit, arg);
	walk_nodes(n->cond, visit, arg);
	walk_nodes(n->then, visit, arg);
	walk_nodes(n->els, visit, arg);
	walk_nodes(n->init, visit, arg);
	walk_nodes(n->incr, visit, arg);
	walk_nodes(n->catch_var, visit, arg);
	for (struct node *s = n->body; s; s = s->next)
		walk_nodes(s, visit, arg);
	for (struct node *a = n->args; a; a = a->next)
		walk_nodes(a, visit, arg);
	for (struct target_component *c = n->components; c; c = c->next)
		walk_nodes(c->index, visit, arg);
	if (n->access)
		walk_access(n, visit, arg);
	if (n->foreach) {
		walk_nodes(n->foreach->value, visit, arg);
		for (struct node *k = n->foreach->keys; k; k = k->next)
			walk_nodes(k, visit, arg);
		walk_nodes(n->foreach->array, visit, arg);
		for (struct node *f = n->foreach->filter; f; f = f->next)
			walk_nodes(f, visit, arg);
		walk_nodes(n->foreach->limit, visit, arg);
	}
}

/* ---- names and formats ---- */

const char *type_name(enum stap_type type)
{
	switch (type) {
	case TYPE_LONG: return "long";
	case TYPE_STRING: return "string";
	case TYPE_STATS: return "stats";
	default: return "unknown";
	}
}

enum print_kind print_kind_of(const char *name)
{
	static const struct {
		const char *name;
		enum print_kind kind;
	} names[] = {
		{ "print", PRINT_PRINT }, { "println", PRINT_PRINTLN },
		{ "printd", PRINT_PRINTD }, { "printdln", PRINT_PRINTDLN },
		{ "printf", PRINT_PRINTF }, { "sprint", PRINT_SPRINT },
		{ "sprintln", PRINT_SPRINTLN }, { "sprintd", PRINT_SPRINTD },
		{ "sprintdln", PRINT_SPRINTDLN }, { "sprintf", PRINT_SPRINTF },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(name, names[i].name) == 0)
			return names[i].kind;
	return PRINT_NONE;
}

/*
 * The values a printf format takes, and (up to MAX of them) their types; -1 if it is
 * malformed.  A conversion: %[-+ #0][width|*][.precision|.*][l](d|i|o|u|x|X|p|c|b|s|m|M),
 * with one flag at most, as stap 4.8 parses it: in %+05d the 0 begins the width, and
 * %-+5d or %0*d after a flag are malformed.
 */
int format_conversions(const char *format, enum stap_type *types, int max)
{
	int n = 0;

	for (const char *p = format; *p; p++) {
		if (*p != '%')
			continue;
		if (*++p == '%')
			continue;
		if (*p && strchr("-+ #0", *p))
			p++;
		for (int part = 0; part < 2; part++) {	/* width, then precision */
			if (*p == '*') {
				if (n < max)
					types[n] = TYPE_LONG;
				n++;
				p++;
			}
			while (*p >= '0' && *p <= '9')
				p++;
			if (part == 0 && *p == '.')
				p++;
			else
				break;
		}
		if (*p == 'l')
			p++;
		if (!*p || !strchr("diouxXpcbsmM", *p))
			return -1;
		if (n < max)
			types[n] = *p == 's' ? TYPE_STRING : TYPE_LONG;
		n++;
	}
	return n;
}

/*
 * The script globals embedded C names in its pragmas (stap(1), "Embedded C": a
 * "pragma:read:NAME" or "pragma:write:NAME" in a comment of the code gives it
 * STAP_GLOBAL_GET_NAME() or STAP_GLOBAL_SET_NAME()): VISIT gets each NAME (LEN bytes)
 * with WRITE for pragma:write, in the order written.
 */
void embedded_pragma_globals(const char *code,
			     void (*visit)(const char *name, size_t len, bool write, void *arg),
			     void *arg)
{
	static const char *const prefix[] = { "pragma:read:", "pragma:write:" };

	for (const char *p = code ? strstr(code, "pragma:") : NULL; p; p = strstr(p + 1, "pragma:"))
		for (int w = 0; w < 2; w++) {
			size_t plen = strlen(prefix[w]), len = 0;

			if (strncmp(p, prefix[w], plen) != 0)
				continue;
			while (p[plen + len] == '_' || isalnum((unsigned char)p[plen + len]))
				len++;
			if (len)
				visit(p + plen, len, w == 1, arg);
		}
}
