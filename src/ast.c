/*
 * ast.c - operations on the AST that several passes need: deep copies (each handler made
 * through a probe alias gets its own copy of the bodies, resolved on its own) and
 * walking every node.
 */
#include "stap.h"

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
