/*
 * ctype_btf.c - the C type model (ctype.h) read from BTF (btf.h).
 *
 * Each BTF type id of a module becomes one struct ctype, made when first asked for and
 * kept in the module's table (a module's ids below its first own id are the kernel's,
 * whose types it shares).  A struct's members are read on first use.  A forward
 * declaration ("struct files_struct;") takes the definition of its name when the BTF
 * has one.  BTF's type tags (btf_type_tag) are not C types: they are looked through.
 */
#include "btf.h"
#include "ctype.h"

#include <bpf/btf.h>
#include <stdlib.h>
#include <string.h>

struct btf_origin {
	struct btf_module *module;
	uint32_t id;
};

static void read_members(struct ctype *t);
static const struct ctype_reader btf_reader = { .read_members = read_members };

static const char *name_of(struct btf_module *m, const struct btf_type *t)
{
	const char *name = t->name_off ? btf__name_by_offset(m->btf, t->name_off) : NULL;

	return name && *name ? name : NULL;
}

/* A declared struct or union's definition: the complete one of its name, or 0. */
static uint32_t definition_of(struct btf_module *m, const char *name, bool is_union)
{
	int id = name ? btf__find_by_name_kind(m->btf, name, is_union ? BTF_KIND_UNION :
					       BTF_KIND_STRUCT) : -1;

	return id > 0 ? (uint32_t)id : 0;
}

static void read_params(struct ctype *t, struct btf_module *m, const struct btf_type *bt)
{
	const struct btf_param *p = btf_params(bt);
	int n = btf_vlen(bt);

	t->params = xcalloc(n + 1, sizeof(*t->params));
	for (int i = 0; i < n; i++) {
		if (!p[i].type && i == n - 1) {
			t->varargs = true;
			break;
		}
		t->params[t->nparams++] = ctype_of_btf(m, p[i].type);
	}
}

struct ctype *ctype_of_btf(struct btf_module *m, uint32_t id)
{
	const struct btf_type *bt;
	struct ctype **slot, *t;
	struct btf_origin *origin;

	if (id == 0 || id >= m->ntypes)
		return NULL;
	if (id < m->first_id)
		return m->base ? ctype_of_btf(m->base, id) : NULL;
	slot = &m->types[id - m->first_id];
	if (*slot)
		return *slot;
	bt = btf__type_by_id(m->btf, id);
	if (btf_kind(bt) == BTF_KIND_TYPE_TAG)
		return *slot = ctype_of_btf(m, bt->type);
	t = *slot = xcalloc(1, sizeof(*t));
	origin = xmalloc(sizeof(*origin));
	*origin = (struct btf_origin){ m, id };
	t->origin = origin;
	t->reader = &btf_reader;
	t->name = name_of(m, bt);
	switch (btf_kind(bt)) {
	case BTF_KIND_INT: {
		uint8_t encoding = BTF_INT_ENCODING(*(const uint32_t *)(bt + 1));

		t->kind = CT_BASE;
		t->size = bt->size;
		t->is_signed = encoding & BTF_INT_SIGNED;
		break;
	}
	case BTF_KIND_FLOAT:
		t->kind = CT_BASE;
		t->size = bt->size;
		t->is_float = true;
		t->is_signed = true;
		break;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		t->kind = CT_ENUM;
		t->size = bt->size;
		t->is_signed = btf_kflag(bt);
		break;
	case BTF_KIND_PTR:
		t->kind = CT_POINTER;
		t->size = sizeof(void *);
		t->target = ctype_of_btf(m, bt->type);
		break;
	case BTF_KIND_ARRAY: {
		const struct btf_array *a = btf_array(bt);
		struct ctype *element;

		t->kind = CT_ARRAY;
		t->count = a->nelems;
		t->target = ctype_of_btf(m, a->type);
		element = ctype_resolve(t->target);
		t->size = element ? element->size * a->nelems : 0;
		break;
	}
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		t->kind = btf_kind(bt) == BTF_KIND_STRUCT ? CT_STRUCT : CT_UNION;
		t->size = bt->size;
		break;
	case BTF_KIND_FWD: {
		uint32_t def = definition_of(m, t->name, btf_kflag(bt));

		t->kind = btf_kflag(bt) ? CT_UNION : CT_STRUCT;
		t->declared_here = true;
		if (def) {	/* the origin is the definition, whose members it reads */
			origin->id = def;
			if (def < m->first_id && m->base)
				origin->module = m->base;
			t->size = btf__type_by_id(m->btf, def)->size;
		} else {
			t->incomplete = true;
		}
		break;
	}
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT:
		t->kind = btf_kind(bt) == BTF_KIND_TYPEDEF ? CT_TYPEDEF :
			  btf_kind(bt) == BTF_KIND_CONST ? CT_CONST :
			  btf_kind(bt) == BTF_KIND_VOLATILE ? CT_VOLATILE : CT_RESTRICT;
		t->target = ctype_of_btf(m, bt->type);
		t->size = t->target ? t->target->size : 0;
		break;
	case BTF_KIND_FUNC_PROTO:
		t->kind = CT_FUNCTION;
		t->target = ctype_of_btf(m, bt->type);
		read_params(t, m, bt);
		break;
	default:
		t->kind = CT_VOID;
		break;
	}
	return t;
}

static void read_members(struct ctype *t)
{
	struct btf_origin *o = t->origin;
	const struct btf_type *bt;
	const struct btf_member *members;

	if (!o || t->incomplete)
		return;
	bt = btf__type_by_id(o->module->btf, o->id);
	if (!btf_is_composite(bt))
		return;
	members = btf_members(bt);
	t->members = xcalloc(btf_vlen(bt) + 1, sizeof(*t->members));
	for (int i = 0; i < btf_vlen(bt); i++) {
		uint32_t bits = btf_member_bit_offset(bt, i);
		struct ctype_member *cm = &t->members[t->nmembers++];

		const char *name = btf__name_by_offset(o->module->btf, members[i].name_off);

		cm->name = name && *name ? name : NULL;	/* an anonymous struct or union */
		cm->type = ctype_of_btf(o->module, members[i].type);
		cm->offset = bits / 8;
		cm->bit_size = (int)btf_member_bitfield_size(bt, i);
		cm->bit_offset = cm->bit_size ? bits % 8 : 0;
	}
}
