/*
 * dwarf_scope.c - the variables in scope at a probe's place, as -L lists them.
 *
 * stap 4.8's rules, as its output shows them:
 *   - at a function's entry (out-of-line or inlined): the parameters and locals that are
 *     direct children of the instance's DIE, in DIE order (not those of its blocks);
 *   - at a statement: those of the lexical blocks holding the address, innermost
 *     first, then the instance's own; never those of a function inlined there;
 *   - at a label: the same from the block holding the label's DIE, then the blocks
 *     around that one (the label's address may be past their ranges);
 *   - .return: "$return:TYPE" first (unless void), then as at the entry;
 *   - a variable is listed if it has a constant value or a location covering the
 *     address; at a function's entry that is "call __fentry__" (the probe point or a
 *     statement there), the address after that call (the blocks stay those at the entry);
 *   - a "$name:type" a probe has twice is dropped (GCC may describe a parameter twice).
 * A point with several probes (inlined instances) lists what all of them have, in the
 * first one's order: the listing (elaborate.c) intersects the lists.
 */
#include "dw.h"
#include "ctype.h"

#include <dwarf.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;

	return dwarf_attr_integrate(die, DW_AT_name, &attr) ? dwarf_formstring(&attr) : NULL;
}

/* The DIE of the function or inlined instance SITE is in, or false (an ELF symbol's
 * site has none). */
static bool site_scope(const struct dw_site *site, Dwarf_Die *scope)
{
	return site->kind != DW_SITE_SYMBOL && dw_module_open(site->module) &&
	       dwarf_offdie(site->module->dwarf, site->scope, scope);
}

/* Whether the variable has a value at ADDR: a constant, or a location covering it. */
static bool available_at(Dwarf_Die *var, Dwarf_Addr addr)
{
	Dwarf_Attribute attr;
	Dwarf_Op *expr;
	size_t len;

	if (dwarf_hasattr_integrate(var, DW_AT_const_value))
		return true;
	if (!dwarf_attr(var, DW_AT_location, &attr))
		return false;
	return dwarf_getlocation_addr(&attr, addr, &expr, &len, 1) > 0;
}

struct listed_variable {
	char *text;		/* " $name:type" */
	bool twice;		/* listed twice: dropped */
};

struct variable_list {
	struct listed_variable *items;
	int count;
	Dwarf_Addr read_at;	/* where the values are read (past a call to __fentry__) */
};

/* A "$name:type" met twice is marked to be dropped; one name with two types (shadowing)
 * stays twice. */
static void add_variable(struct variable_list *vl, Dwarf_Die *var)
{
	const char *name = die_name(var);
	char *type, *text;

	if (!name)
		return;
	type = ctype_name(ctype_of_variable(var));
	text = xasprintf(" $%s:%s", name, type);
	free(type);
	for (int i = 0; i < vl->count; i++)
		if (strcmp(vl->items[i].text, text) == 0) {
			vl->items[i].twice = true;
			free(text);
			return;
		}
	vl->items = xrealloc(vl->items, (vl->count + 1) * sizeof(*vl->items));
	vl->items[vl->count++] = (struct listed_variable){ .text = text };
}

static bool is_variable(Dwarf_Die *die)
{
	int tag = dwarf_tag(die);

	return tag == DW_TAG_formal_parameter || tag == DW_TAG_variable;
}

/* SCOPE's parameters and locals available where VL reads, in the order of the DIEs (GCC
 * may put a parameter it added after the locals: so does stap). */
static void scope_variables(struct variable_list *vl, Dwarf_Die *scope)
{
	Dwarf_Die child;

	if (dwarf_child(scope, &child) != 0)
		return;
	do {
		if (is_variable(&child) && available_at(&child, vl->read_at))
			add_variable(vl, &child);
	} while (dwarf_siblingof(&child, &child) == 0);
}

/* The lexical block directly in SCOPE that holds ADDR, or false. */
static bool block_holding(Dwarf_Die *scope, Dwarf_Addr addr, Dwarf_Die *block)
{
	if (dwarf_child(scope, block) != 0)
		return false;
	do {
		if (dwarf_tag(block) == DW_TAG_lexical_block && dwarf_haspc(block, addr) > 0)
			return true;
	} while (dwarf_siblingof(block, block) == 0);
	return false;
}

/* At a statement: the variables of the lexical blocks holding ADDR, innermost first,
 * then SCOPE's own. */
static void block_variables(struct variable_list *vl, Dwarf_Die *scope, Dwarf_Addr addr)
{
	Dwarf_Die block;

	if (block_holding(scope, addr, &block))
		block_variables(vl, &block, addr);
	scope_variables(vl, scope);
}

static bool is_label_at(Dwarf_Die *die, const char *name, Dwarf_Addr addr)
{
	Dwarf_Addr low;

	return dwarf_tag(die) == DW_TAG_label && dwarf_lowpc(die, &low) == 0 && low == addr &&
	       die_name(die) && strcmp(die_name(die), name) == 0;
}

/*
 * At a label: as at a statement from the block the label's DIE is in, then the blocks
 * around it up to SCOPE (its address may be past their ranges: a label ending a block);
 * false if the label is not in SCOPE.
 */
static bool label_variables(struct variable_list *vl, Dwarf_Die *scope, const char *label,
			    Dwarf_Addr addr)
{
	Dwarf_Die child;

	if (dwarf_child(scope, &child) != 0)
		return false;
	do {
		if (is_label_at(&child, label, addr)) {
			block_variables(vl, scope, addr);
			return true;
		}
		if (dwarf_tag(&child) == DW_TAG_lexical_block &&
		    label_variables(vl, &child, label, addr)) {
			scope_variables(vl, scope);
			return true;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

static void put_return(struct strbuf *sb, Dwarf_Die *function)
{
	struct ctype *type = ctype_of_variable(function);
	char *name;

	if (!type || type->kind == CT_VOID)
		return;		/* void, or an assembler routine's unspecified type */
	name = ctype_name(type);
	sb_printf(sb, " $return:%s", name);
	free(name);
}

/* ET_REL: whether the relocation at OFFSET of section TEXT names __fentry__ (found by
 * bisection: an assembler writes a section's relocations in order). */
static bool relocated_to_fentry(Elf *elf, Elf_Scn *text, uint64_t offset)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr, symtab;
	Elf_Data *relocs, *symbols;
	size_t lo = 0, hi;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &shdr) && shdr.sh_type == SHT_RELA &&
		    shdr.sh_info == elf_ndxscn(text) && shdr.sh_entsize)
			break;
	if (!scn || !gelf_getshdr(elf_getscn(elf, shdr.sh_link), &symtab))
		return false;
	relocs = elf_getdata(scn, NULL);
	symbols = elf_getdata(elf_getscn(elf, shdr.sh_link), NULL);
	hi = shdr.sh_size / shdr.sh_entsize;
	while (relocs && symbols && lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		GElf_Rela rela;
		GElf_Sym sym;
		const char *name;

		if (!gelf_getrela(relocs, (int)mid, &rela))
			return false;
		if (rela.r_offset < offset) {
			lo = mid + 1;
		} else if (rela.r_offset > offset) {
			hi = mid;
		} else {
			name = gelf_getsym(symbols, (int)GELF_R_SYM(rela.r_info), &sym) ?
			       elf_strptr(elf, symtab.sh_link, sym.st_name) : NULL;
			return name && strcmp(name, "__fentry__") == 0;
		}
	}
	return false;
}

/*
 * Whether the function at ADDR starts with "call __fentry__" (-pg -mfentry: ftrace's
 * hook).  stap reads an entry's variables after that call, where a kprobe on ftrace
 * runs: a parameter GCC describes from the next instruction on is listed.
 */
static bool calls_fentry(struct dw_module *m, uint64_t addr)
{
	Dwarf_Addr offset = addr, bias;
	Elf_Scn *scn = dwfl_module_address_section(m->dwfl_module, &offset, &bias);
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
	const unsigned char *code;
	const struct dw_symbol *target;
	GElf_Ehdr ehdr;
	int32_t displacement;

	if (!data || !data->d_buf || offset + 5 > data->d_size || !gelf_getehdr(m->elf, &ehdr))
		return false;
	code = (const unsigned char *)data->d_buf + offset;
	if (code[0] != 0xe8)	/* call rel32 */
		return false;
	if (ehdr.e_type == ET_REL)
		return relocated_to_fentry(m->elf, scn, offset + 1);
	memcpy(&displacement, code + 1, sizeof(displacement));
	target = dw_symbol_at(m, addr + 5 + displacement);
	return target && strcmp(target->name, "__fentry__") == 0;
}

char *dw_site_variables(const struct dw_site *site, bool with_return)
{
	struct variable_list vl = { 0 };
	struct strbuf sb = { 0 };
	Dwarf_Die function;
	Dwarf_Addr addr = site->addr - site->module->bias;

	if (!site_scope(site, &function))
		return xstrdup("");
	/* a function's entry, or a statement there: its blocks are those at ADDR */
	vl.read_at = calls_fentry(site->module, site->addr) ? addr + 5 : addr;
	switch (site->kind) {
	case DW_SITE_LABEL:	/* as a statement if its DIE is not found */
		if (label_variables(&vl, &function, site->label, addr))
			break;
		/* fall through */
	case DW_SITE_STATEMENT:
		block_variables(&vl, &function, addr);
		break;
	default:
		scope_variables(&vl, &function);
		break;
	}
	if (with_return)
		put_return(&sb, &function);
	for (int i = 0; i < vl.count; i++) {
		if (!vl.items[i].twice)
			sb_puts(&sb, vl.items[i].text);
		free(vl.items[i].text);
	}
	free(vl.items);
	return sb.data ? sb_steal(&sb) : xstrdup("");
}

/* ---- finding a variable by name ---- */

uint64_t dw_site_read_at(const struct dw_site *site)
{
	return calls_fentry(site->module, site->addr) ? site->addr + 5 : site->addr;
}

struct search {
	const char *name;	/* the one looked for */
	Dwarf_Die found;
	bool done;
	struct strlist seen;	/* the names met, for the alternatives */
};

static void search_scope(struct search *s, Dwarf_Die *scope)
{
	Dwarf_Die child;

	if (s->done || dwarf_child(scope, &child) != 0)
		return;
	do {
		const char *name;

		if (!is_variable(&child) || !(name = die_name(&child)))
			continue;
		if (strcmp(name, s->name) == 0) {
			s->found = child;
			s->done = true;
			return;
		}
		strlist_add(&s->seen, name);
	} while (dwarf_siblingof(&child, &child) == 0);
}

/* The blocks holding ADDR, innermost first, then SCOPE itself. */
static void search_blocks(struct search *s, Dwarf_Die *scope, Dwarf_Addr addr)
{
	Dwarf_Die block;

	if (block_holding(scope, addr, &block))
		search_blocks(s, &block, addr);
	search_scope(s, scope);
}

static char *alternatives_of(struct strlist *names)
{
	struct strbuf sb = { 0 };

	for (int i = 0; i < names->count; i++) {
		bool again = false;

		for (int k = 0; k < i && !again; k++)
			again = strcmp(names->items[k], names->items[i]) == 0;
		if (!again)
			sb_printf(&sb, "%s$%s", sb.len ? ", " : "", names->items[i]);
	}
	return sb_steal(&sb);
}

bool dw_find_variable(const struct dw_site *site, const char *name, Dwarf_Die *var,
		      Dwarf_Die *function, char **alternatives)
{
	struct search s = { .name = name };
	Dwarf_Die cu;
	Dwarf_Addr addr = site->addr - site->module->bias;

	if (!site_scope(site, function)) {
		if (alternatives)
			*alternatives = xstrdup("");
		return false;
	}
	if (site->kind == DW_SITE_STATEMENT || site->kind == DW_SITE_LABEL)
		search_blocks(&s, function, addr);
	else
		search_scope(&s, function);
	/* then the globals of the unit */
	if (!s.done && dwarf_offdie(site->module->dwarf, site->cu, &cu)) {
		struct strlist locals = s.seen;

		s.seen = (struct strlist){ 0 };
		search_scope(&s, &cu);
		strlist_free(&s.seen);
		s.seen = locals;
	}
	if (s.done)
		*var = s.found;
	else if (alternatives)
		*alternatives = alternatives_of(&s.seen);
	strlist_free(&s.seen);
	return s.done;
}

int dw_site_scope_variables(const struct dw_site *site, bool params, Dwarf_Die **vars)
{
	Dwarf_Die function, child;
	int n = 0;

	*vars = NULL;
	if (!site_scope(site, &function) || dwarf_child(&function, &child) != 0)
		return 0;
	do {
		if (dwarf_tag(&child) != (params ? DW_TAG_formal_parameter : DW_TAG_variable) ||
		    !die_name(&child))
			continue;
		*vars = xrealloc(*vars, (n + 1) * sizeof(**vars));
		(*vars)[n++] = child;
	} while (dwarf_siblingof(&child, &child) == 0);
	return n;
}
