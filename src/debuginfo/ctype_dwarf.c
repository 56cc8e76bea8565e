/*
 * ctype_dwarf.c - the C type model read from DWARF type DIEs.
 *
 * Each type DIE becomes one struct ctype, made the first time it is asked for and kept
 * (keyed by its Dwarf and offset), so recursive types (a struct with a pointer to
 * itself) end.  A struct's members are read when first needed.  The types of a Dwarf
 * live until ctype_forget() (they point into its DIEs and strings).
 */
#include "ctype.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

struct dwarf_type {
	Dwarf *dwarf;
	Dwarf_Off offset;
	struct ctype *type;
};

static struct {
	struct dwarf_type *slots;
	size_t capacity, used;
} types;

static struct ctype **slot_for(Dwarf *dw, Dwarf_Off offset, bool *found)
{
	size_t i;

	if ((types.used + 1) * 2 > types.capacity) {
		struct dwarf_type *old = types.slots;
		size_t old_capacity = types.capacity;

		types.capacity = old_capacity ? old_capacity * 2 : 1024;
		types.slots = xcalloc(types.capacity, sizeof(*types.slots));
		types.used = 0;
		for (size_t k = 0; k < old_capacity; k++)
			if (old[k].type) {
				bool seen;

				*slot_for(old[k].dwarf, old[k].offset, &seen) = old[k].type;
			}
		free(old);
	}
	i = hash64(&offset, sizeof(offset), (uint64_t)(uintptr_t)dw) % types.capacity;
	for (; types.slots[i].type; i = (i + 1) % types.capacity)
		if (types.slots[i].dwarf == dw && types.slots[i].offset == offset) {
			*found = true;
			return &types.slots[i].type;
		}
	*found = false;
	types.used++;
	types.slots[i].dwarf = dw;
	types.slots[i].offset = offset;
	return &types.slots[i].type;
}

static void free_type(struct ctype *t)
{
	free(t->pointer);
	free(t->params);
	free(t->members);
	free(t->origin);
	free(t);
}

void ctype_forget(Dwarf *dw)
{
	struct dwarf_type *old = types.slots;
	size_t capacity = types.capacity;

	types.slots = capacity ? xcalloc(capacity, sizeof(*types.slots)) : NULL;
	types.used = 0;
	for (size_t k = 0; k < capacity; k++) {
		bool seen;

		if (!old[k].type)
			continue;
		if (old[k].dwarf == dw)
			free_type(old[k].type);
		else
			*slot_for(old[k].dwarf, old[k].offset, &seen) = old[k].type;
	}
	free(old);
}

static bool type_of(Dwarf_Die *die, Dwarf_Die *type)
{
	Dwarf_Attribute attr;

	return dwarf_attr_integrate(die, DW_AT_type, &attr) && dwarf_formref_die(&attr, type);
}

static void read_members(struct ctype *t);
static const char *declared_at(struct ctype *t, int *line);

static const void *source(const struct ctype *t)
{
	const Dwarf_Die *die = t->origin;

	return die ? dwarf_cu_getdwarf(die->cu) : NULL;
}

static const struct ctype_reader dwarf_reader = { .read_members = read_members,
						  .declared_at = declared_at,
						  .source = source };

static uint64_t die_udata(Dwarf_Die *die, int name, uint64_t fallback)
{
	Dwarf_Attribute attr;
	Dwarf_Word value;

	if (dwarf_attr_integrate(die, name, &attr) && dwarf_formudata(&attr, &value) == 0)
		return value;
	return fallback;
}

/* The element count of an array type (its first dimension times the others'). */
static int64_t array_count(Dwarf_Die *die)
{
	Dwarf_Die child;
	int64_t count = -1;

	if (dwarf_child(die, &child) != 0)
		return -1;
	do {
		Dwarf_Attribute attr;
		Dwarf_Word n;
		int64_t dim = -1;

		if (dwarf_tag(&child) != DW_TAG_subrange_type)
			continue;
		if (dwarf_attr(&child, DW_AT_count, &attr) && dwarf_formudata(&attr, &n) == 0)
			dim = (int64_t)n;
		else if (dwarf_attr(&child, DW_AT_upper_bound, &attr) &&
			 dwarf_formudata(&attr, &n) == 0)
			dim = (int64_t)n + 1;
		count = count < 0 ? dim : dim < 0 ? -1 : count * dim;
		if (dim < 0)
			return -1;
	} while (dwarf_siblingof(&child, &child) == 0);
	return count;
}

/* A function type's parameters: their types, and whether "..." ends them. */
static void read_params(struct ctype *t, Dwarf_Die *die)
{
	Dwarf_Die child;

	if (dwarf_child(die, &child) != 0)
		return;
	do {
		Dwarf_Die type;

		if (dwarf_tag(&child) == DW_TAG_unspecified_parameters)
			t->varargs = true;
		if (dwarf_tag(&child) != DW_TAG_formal_parameter)
			continue;
		t->params = xrealloc(t->params, (t->nparams + 1) * sizeof(*t->params));
		t->params[t->nparams++] = type_of(&child, &type) ? ctype_of_die(&type) : NULL;
	} while (dwarf_siblingof(&child, &child) == 0);
}

/* The kind of type each type DIE's tag makes; any other tag makes void. */
static const struct {
	int tag;
	enum ctype_kind kind;
} kinds[] = {
	{ DW_TAG_base_type, CT_BASE },
	{ DW_TAG_enumeration_type, CT_ENUM },
	{ DW_TAG_pointer_type, CT_POINTER },
	{ DW_TAG_reference_type, CT_POINTER },
	{ DW_TAG_rvalue_reference_type, CT_POINTER },
	{ DW_TAG_array_type, CT_ARRAY },
	{ DW_TAG_structure_type, CT_STRUCT },
	{ DW_TAG_class_type, CT_STRUCT },
	{ DW_TAG_union_type, CT_UNION },
	{ DW_TAG_typedef, CT_TYPEDEF },
	{ DW_TAG_const_type, CT_CONST },
	{ DW_TAG_volatile_type, CT_VOLATILE },
	{ DW_TAG_restrict_type, CT_RESTRICT },
	{ DW_TAG_subroutine_type, CT_FUNCTION },
};

static enum ctype_kind kind_of(Dwarf_Die *die)
{
	int tag = dwarf_tag(die);

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (kinds[i].tag == tag)
			return kinds[i].kind;
	return CT_VOID;
}

struct ctype *ctype_of_die(Dwarf_Die *die)
{
	bool found;
	struct ctype **slot, *t;
	Dwarf_Die target, *d;

	if (!die)
		return NULL;
	slot = slot_for(dwarf_cu_getdwarf(die->cu), dwarf_dieoffset(die), &found);
	if (found)
		return *slot;
	t = *slot = xcalloc(1, sizeof(*t));
	d = xmalloc(sizeof(*d));
	*d = *die;
	t->origin = d;
	t->reader = &dwarf_reader;
	t->name = dwarf_diename(die);
	t->size = die_udata(die, DW_AT_byte_size, 0);
	t->kind = kind_of(die);
	switch (t->kind) {
	case CT_BASE: {
		uint64_t encoding = die_udata(die, DW_AT_encoding, 0);

		t->is_signed = encoding == DW_ATE_signed || encoding == DW_ATE_signed_char;
		t->is_float = encoding == DW_ATE_float;
		break;
	}
	case CT_ENUM: {
		/* signed as its underlying type: DW_AT_encoding (DWARF 5) or DW_AT_type's
		 * (gcc makes an enum without negative values unsigned) */
		uint64_t encoding = die_udata(die, DW_AT_encoding, 0);
		Dwarf_Attribute attr;
		Dwarf_Die underlying;

		if (!encoding &&
		    dwarf_formref_die(dwarf_attr_integrate(die, DW_AT_type, &attr), &underlying))
			encoding = die_udata(&underlying, DW_AT_encoding, 0);
		t->is_signed = !encoding || encoding == DW_ATE_signed ||
			       encoding == DW_ATE_signed_char;
		break;
	}
	case CT_POINTER:
		if (!t->size)
			t->size = sizeof(void *);
		break;
	case CT_ARRAY:
		t->count = array_count(die);
		break;
	case CT_STRUCT:
	case CT_UNION:
		t->incomplete = t->declared_here = dwarf_hasattr(die, DW_AT_declaration);
		break;
	default:
		break;
	}
	if (t->kind != CT_BASE && type_of(die, &target))
		t->target = ctype_of_die(&target);
	if (t->kind == CT_FUNCTION)
		read_params(t, die);
	if (t->kind == CT_ARRAY && ctype_resolve(t->target) && t->count >= 0 && !t->size)
		t->size = t->count * ctype_resolve(t->target)->size;
	if ((t->kind == CT_TYPEDEF || t->kind == CT_CONST || t->kind == CT_VOLATILE ||
	     t->kind == CT_RESTRICT) && t->target && !t->size)
		t->size = t->target->size;
	return t;
}

struct ctype *ctype_of_variable(Dwarf_Die *var)
{
	Dwarf_Die type;

	return type_of(var, &type) ? ctype_of_die(&type) : NULL;
}

static const char *declared_at(struct ctype *t, int *line)
{
	Dwarf_Die *die = t->origin;
	const char *file = dwarf_decl_file(die);

	if (!file || dwarf_decl_line(die, line) != 0)
		return NULL;
	return file;
}

static bool (*find_definition)(Dwarf *dw, const char *name, Dwarf_Die *def);

void ctype_find_definitions_with(bool (*find)(Dwarf *dw, const char *name, Dwarf_Die *def))
{
	find_definition = find;
}

/* A declared struct or union takes the members and size of its definition, as in stap:
 * task_struct's "struct files_struct *files" points to a type declared in that unit. */
static Dwarf_Die *definition_of(struct ctype *t, Dwarf_Die *die, Dwarf_Die *def)
{
	if (!t->incomplete || !t->name || !find_definition ||
	    !find_definition(dwarf_cu_getdwarf(die->cu), t->name, def) ||
	    dwarf_tag(def) != dwarf_tag(die) || dwarf_hasattr(def, DW_AT_declaration))
		return die;
	t->incomplete = false;
	t->size = die_udata(def, DW_AT_byte_size, 0);
	return def;
}

static void read_members(struct ctype *t)
{
	Dwarf_Die *die = t->origin, child, def;

	if (!die)
		return;
	die = definition_of(t, die, &def);
	if (dwarf_child(die, &child) != 0)
		return;
	do {
		struct ctype_member m = { 0 };
		Dwarf_Attribute attr;
		Dwarf_Word value;

		if (dwarf_tag(&child) != DW_TAG_member)
			continue;
		m.name = dwarf_diename(&child);
		m.type = ctype_of_variable(&child);
		if (dwarf_attr(&child, DW_AT_data_member_location, &attr) &&
		    dwarf_formudata(&attr, &value) == 0)
			m.offset = value;
		m.bit_size = (int)die_udata(&child, DW_AT_bit_size, 0);
		if (dwarf_attr(&child, DW_AT_data_bit_offset, &attr) &&
		    dwarf_formudata(&attr, &value) == 0) {
			m.offset = value / 8;
			m.bit_offset = value % 8;
		} else if (m.bit_size && dwarf_attr(&child, DW_AT_bit_offset, &attr) &&
			   dwarf_formudata(&attr, &value) == 0) {
			/* DWARF 2-4: the field's place from the most significant bit of its
			 * storage unit (DW_AT_byte_size, else its type's size) at the member's
			 * offset; x86 is little-endian */
			struct ctype *r = ctype_resolve(m.type);
			uint64_t unit = die_udata(&child, DW_AT_byte_size, r ? r->size : 0);
			uint64_t bits = m.offset * 8 + unit * 8 - value - (uint64_t)m.bit_size;

			if (unit * 8 >= value + (uint64_t)m.bit_size) {
				m.offset = bits / 8;
				m.bit_offset = bits % 8;
			}
		}
		t->members = xrealloc(t->members, (t->nmembers + 1) * sizeof(*t->members));
		t->members[t->nmembers++] = m;
	} while (dwarf_siblingof(&child, &child) == 0);
}
