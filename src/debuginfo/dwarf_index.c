/*
 * dwarf_index.c - a module's functions, found in one pass over its compile units.
 *
 * A function is listed (and matched by name and file) when it has an instance a probe
 * can go to: an out-of-line copy (its own code, or a concrete copy of an inline
 * function, e.g. foo.constprop.0), or an inlined instance, in text kprobes may touch.
 * It is listed as name@file:line from its declaration; an assembler function (no
 * declaration) from the line table at its entry.  The ELF function symbols that are no
 * DWARF function's entry and no DWARF function's name (foo.cold, the static-call
 * trampolines) are listed by name alone, as stap lists them.
 *
 * The pass reads only the DIEs of function bodies (never types), and drops libdw's
 * per-unit caches every few dozen units: the vmlinux of the reference kernel (2172 units,
 * 164 MB of .debug_info) takes about half a second and little memory beyond the file.
 */
#include "dw.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

/* Units walked before libdw's caches of them (line tables, abbreviations) are dropped. */
#define UNITS_PER_HANDLE 50

/* ---- interned strings: file names outlive the libdw handle they came from ---- */

struct interned {
	char **slots;
	size_t capacity, used;
};

/* The slot of S in T: where it is, or the empty one where it would go. */
static size_t interned_slot(const struct interned *t, const char *s)
{
	size_t i = hash64(s, strlen(s), 0) % t->capacity;

	while (t->slots[i] && strcmp(t->slots[i], s) != 0)
		i = (i + 1) % t->capacity;
	return i;
}

static const char *intern(struct interned *t, const char *s)
{
	size_t i;

	if ((t->used + 1) * 2 > t->capacity) {
		struct interned bigger = { .capacity = t->capacity ? t->capacity * 2 : 1024 };

		bigger.slots = xcalloc(bigger.capacity, sizeof(*bigger.slots));
		for (size_t k = 0; k < t->capacity; k++)	/* the strings move, not copied */
			if (t->slots[k])
				bigger.slots[interned_slot(&bigger, t->slots[k])] = t->slots[k];
		bigger.used = t->used;
		free(t->slots);
		*t = bigger;
	}
	i = interned_slot(t, s);
	if (t->slots[i])
		return t->slots[i];
	t->used++;
	return t->slots[i] = xstrdup(s);
}

static bool interned_has(const struct interned *t, const char *s)
{
	return t->capacity && t->slots[interned_slot(t, s)];
}

static void interned_free(struct interned *t)
{
	for (size_t i = 0; i < t->capacity; i++)
		free(t->slots[i]);
	free(t->slots);
}

/* ---- one compile unit ---- */

bool dw_die_entry(Dwarf_Die *die, uint64_t *addr)
{
	Dwarf_Addr entry, base, start, end;

	if (dwarf_entrypc(die, &entry) == 0) {
		*addr = entry;
		return true;
	}
	if (dwarf_ranges(die, 0, &base, &start, &end) > 0) {
		*addr = start;
		return true;
	}
	return false;
}

bool dw_die_has_code(Dwarf_Die *die)
{
	return dwarf_hasattr(die, DW_AT_low_pc) || dwarf_hasattr(die, DW_AT_ranges) ||
	       dwarf_hasattr(die, DW_AT_entry_pc);
}

Dwarf_Off dw_die_origin(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	Dwarf_Die origin;

	if (!dwarf_attr(die, DW_AT_abstract_origin, &attr) || !dwarf_formref_die(&attr, &origin))
		return 0;
	return dwarf_dieoffset(&origin);
}

struct unit_walk {
	dw_unit_visitor *visit;
	void *arg;
};

/* The inlined instances below DIE, at any depth of a function's body. */
static void walk_bodies(struct unit_walk *w, Dwarf_Die *die, int depth)
{
	Dwarf_Die child;

	if (depth > 64 || dwarf_child(die, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);
		Dwarf_Off origin;

		if (tag == DW_TAG_inlined_subroutine && (origin = dw_die_origin(&child)))
			w->visit(w->arg, &child, DW_UNIT_INLINED, origin);
		if ((tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block ||
		     tag == DW_TAG_subprogram) && dwarf_haschildren(&child))
			walk_bodies(w, &child, depth + 1);
	} while (dwarf_siblingof(&child, &child) == 0);
}

void dw_walk_unit(Dwarf_Die *cu, dw_unit_visitor *visit, void *arg)
{
	struct unit_walk w = { visit, arg };
	Dwarf_Die child;

	if (dwarf_child(cu, &child) != 0)
		return;
	do {
		Dwarf_Off origin;

		if (dwarf_tag(&child) != DW_TAG_subprogram)
			continue;
		if ((origin = dw_die_origin(&child))) {
			if (dw_die_has_code(&child))
				visit(arg, &child, DW_UNIT_COPY, origin);
		} else if (dwarf_diename(&child) && !dwarf_hasattr(&child, DW_AT_declaration)) {
			visit(arg, &child, DW_UNIT_FUNCTION, 0);
		}
		if (dwarf_haschildren(&child))
			walk_bodies(&w, &child, 1);
	} while (dwarf_siblingof(&child, &child) == 0);
}

/* A concrete instance: an out-of-line copy or an inlined one, of the function ORIGIN. */
struct instance {
	Dwarf_Off origin;
	uint64_t addr;
	bool inlined;
	bool partial;		/* foo.part.N: no entry of foo's, yet its symbol is covered */
};

struct function_candidate {
	Dwarf_Die die;
	const char *name;
	uint64_t entry;		/* its own code's entry, or 0 */
	uint64_t partial;	/* its own code is foo.part.N there, or 0 */
};

struct unit_functions {
	struct dw_module *m;
	struct instance *instances;
	int ninstances, instances_cap;
	struct function_candidate *candidates;
	int ncandidates, candidates_cap;
};

struct index_build {
	struct dw_module *m;
	struct dw_index *ix;
	int cap, types_cap, globals_cap, declared_cap;
	struct interned strings;
	struct interned type_names;	/* the types' names met so far */
	struct interned declared_names;	/* the declared variables' */
	struct interned codeless_names;	/* a kernel object's functions compiled away */
	uint64_t *entries;	/* every out-of-line entry (sorted at the end) */
	int nentries, entries_cap;
};

static void note_unit_die(void *arg, Dwarf_Die *die, enum dw_unit_die what, Dwarf_Off origin)
{
	struct unit_functions *w = arg;
	uint64_t addr;

	if (what == DW_UNIT_FUNCTION) {
		struct function_candidate c = { .die = *die, .name = dwarf_diename(die) };

		if (dw_die_has_code(die) && dw_die_entry(die, &addr)) {
			if (dw_partial_copy(w->m, addr + w->m->bias))
				c.partial = addr + w->m->bias;
			else
				c.entry = addr + w->m->bias;
		}
		if (w->ncandidates == w->candidates_cap) {
			w->candidates_cap = w->candidates_cap ? w->candidates_cap * 2 : 256;
			w->candidates = xrealloc(w->candidates,
						 w->candidates_cap * sizeof(*w->candidates));
		}
		w->candidates[w->ncandidates++] = c;
		return;
	}
	if (!dw_die_entry(die, &addr))
		return;		/* an abstract instance tree's: no code */
	if (w->ninstances == w->instances_cap) {
		w->instances_cap = w->instances_cap ? w->instances_cap * 2 : 256;
		w->instances = xrealloc(w->instances, w->instances_cap * sizeof(*w->instances));
	}
	w->instances[w->ninstances++] = (struct instance){
		origin, addr + w->m->bias, what == DW_UNIT_INLINED,
		what == DW_UNIT_COPY && dw_partial_copy(w->m, addr + w->m->bias) };
}

static int compare_origins(const void *a, const void *b)
{
	const struct instance *x = a, *y = b;

	return x->origin < y->origin ? -1 : x->origin > y->origin;
}

/* By origin, then by address. */
static int compare_instances(const void *a, const void *b)
{
	const struct instance *x = a, *y = b;
	int c = compare_origins(a, b);

	return c ? c : x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void add_entry(struct index_build *b, uint64_t addr)
{
	if (b->nentries == b->entries_cap) {
		b->entries_cap = b->entries_cap ? b->entries_cap * 2 : 4096;
		b->entries = xrealloc(b->entries, b->entries_cap * sizeof(*b->entries));
	}
	b->entries[b->nentries++] = addr;
}

static struct dw_function *new_function(struct index_build *b)
{
	if (b->ix->nfunctions == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 4096;
		b->ix->functions = xrealloc(b->ix->functions, b->cap * sizeof(*b->ix->functions));
	}
	return memset(&b->ix->functions[b->ix->nfunctions++], 0, sizeof(struct dw_function));
}

/* Where an assembler function is: the line table's file and line at its entry. */
static void line_at(Dwarf_Die *cu, uint64_t addr, const char **file, int *line)
{
	Dwarf_Line *l = dwarf_getsrc_die(cu, addr);

	if (l) {
		*file = dwarf_linesrc(l, NULL, NULL);
		dwarf_lineno(l, line);
	}
}

/* Whether an instance at ADDR can be probed; else why not (NULL for "not text"). */
static bool usable(struct dw_module *m, uint64_t addr, const char **why)
{
	*why = dw_blocked(m, addr);
	return !*why && dw_in_text(m, addr);
}

/* The unit's candidates with an instance to probe become index entries. */
static void add_unit_functions(struct index_build *b, struct unit_functions *w, Dwarf_Die *cu)
{
	struct dw_module *m = b->m;

	qsort(w->instances, w->ninstances, sizeof(*w->instances), compare_instances);
	for (int i = 0; i < w->ninstances; i++)
		if (!w->instances[i].inlined)
			add_entry(b, w->instances[i].addr);
	for (int i = 0; i < w->ncandidates; i++) {
		struct function_candidate *c = &w->candidates[i];
		Dwarf_Off off = dwarf_dieoffset(&c->die);
		struct instance key = { .origin = off };
		struct instance *first = bsearch(&key, w->instances, w->ninstances,
						 sizeof(*w->instances), compare_origins);
		unsigned flags = 0, seen = 0;
		const char *why = NULL, *file = NULL;
		uint64_t entry = 0;
		struct dw_function *f;
		int line = 0;

		/* bsearch found one of the origin's; back up to the first */
		while (first && first > w->instances && first[-1].origin == off)
			first--;
		if (c->partial)
			add_entry(b, c->partial);
		if (c->entry) {
			seen++;
			add_entry(b, c->entry);
			if (usable(m, c->entry, &why)) {
				flags |= DWF_OUT_OF_LINE;
				entry = c->entry;
			}
		}
		for (struct instance *in = first; in && in < w->instances + w->ninstances &&
		     in->origin == off; in++) {
			const char *blocked;

			if (in->partial)
				continue;
			seen++;
			if (!usable(m, in->addr, &blocked)) {
				why = why ? why : blocked;
				continue;
			}
			if (in->inlined) {
				flags |= DWF_INLINED;
			} else if (!(flags & DWF_OUT_OF_LINE)) {
				flags |= DWF_OUT_OF_LINE;
				entry = in->addr;
			}
		}
		if (!seen) {	/* never compiled, or folded into another: nothing to probe */
			/* a definition, not an inline one, without code is one the compiler
			 * folded into an identical function: its symbol is not listed */
			if (!m->is_user && !dwarf_hasattr(&c->die, DW_AT_inline) &&
			    !dwarf_hasattr(&c->die, DW_AT_declaration))
				intern(&b->codeless_names, c->name);
			continue;
		}
		if (!(flags & (DWF_OUT_OF_LINE | DWF_INLINED))) {
			if (!why)
				continue;	/* only in data or discarded sections */
			flags |= DWF_BLOCKED;
		}
		file = dwarf_decl_file(&c->die);
		dwarf_decl_line(&c->die, &line);
		if (!file && (c->entry || entry))
			line_at(cu, (c->entry ? c->entry : entry) - m->bias, &file, &line);
		if (!(flags & DWF_BLOCKED) && !m->is_user &&
		    (why = dw_blocklisted(c->name, file))) {
			flags = DWF_BLOCKED;	/* by what it is (blocklist.c) */
			entry = 0;
		}
		f = new_function(b);
		f->name = c->name;
		f->file = file ? intern(&b->strings, file) : NULL;
		f->line = line;
		f->cu = dwarf_dieoffset(cu);
		f->die = off;
		f->entry = entry;
		f->flags = flags;
		f->why_blocked = flags & DWF_BLOCKED ? why : NULL;
	}
}

static int compare_addresses(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* ELF function symbols that are no DWARF function's entry nor name: listed by name. */
/* Out-of-line functions by entry: their indexes in the index being built. */
struct by_entry {
	uint64_t entry;
	int index;
};

static int compare_by_entry(const void *a, const void *b)
{
	const struct by_entry *x = a, *y = b;

	return x->entry < y->entry ? -1 : x->entry > y->entry;
}

/* The out-of-line function whose entry is ADDR, or -1; SORTED holds N of them. */
static int function_at(const struct by_entry *sorted, int n, uint64_t addr)
{
	struct by_entry key = { addr, 0 };
	const struct by_entry *at = bsearch(&key, sorted, n, sizeof(*sorted), compare_by_entry);

	return at ? at->index : -1;
}

/*
 * The function symbols the DWARF has not named.  Those at no function's code are probed
 * by name only (no @file).  In a program or library, another name of a function the
 * DWARF has (malloc for glibc's __libc_malloc) matches as that function does, and its
 * probes are named as the DWARF names it, as stap does.
 */
static void add_symbol_functions(struct index_build *b)
{
	struct dw_module *m = b->m;
	int ndwarf = b->ix->nfunctions;
	const char **names = xcalloc(ndwarf + 1, sizeof(*names));

	struct by_entry *sorted = xcalloc(ndwarf + 1, sizeof(*sorted));
	int nsorted = 0;

	for (int i = 0; i < ndwarf; i++) {
		names[i] = b->ix->functions[i].name;
		if (b->ix->functions[i].flags & DWF_OUT_OF_LINE)
			sorted[nsorted++] = (struct by_entry){ b->ix->functions[i].entry, i };
	}
	qsort(names, ndwarf, sizeof(*names), compare_names);
	qsort(sorted, nsorted, sizeof(*sorted), compare_by_entry);
	qsort(b->entries, b->nentries, sizeof(*b->entries), compare_addresses);
	for (int i = 0; i < m->nsymbols; i++) {
		const struct dw_symbol *s = &m->symbols[i];
		const char *why;
		struct dw_function *f;
		int same;

		if (!s->function || !usable(m, s->addr, &why) ||
		    bsearch(&s->name, names, ndwarf, sizeof(*names), compare_names) ||
		    interned_has(&b->codeless_names, s->name))
			continue;
		if (bsearch(&s->addr, b->entries, b->nentries, sizeof(*b->entries),
			    compare_addresses)) {
			if (!m->is_user || (same = function_at(sorted, nsorted, s->addr)) < 0)
				continue;
			f = new_function(b);
			*f = b->ix->functions[same];
			f->dwarf_name = f->name;
			f->name = s->name;
			continue;
		}
		f = new_function(b);
		f->name = s->name;
		f->entry = s->addr;
		f->flags = DWF_NO_DWARF | DWF_OUT_OF_LINE;
		f->order = s->order;
		if (!m->is_user && (f->why_blocked = dw_blocklisted(s->name, NULL))) {
			f->flags = DWF_NO_DWARF | DWF_BLOCKED;
			f->entry = 0;
		}
	}
	free(sorted);
	free(names);
}

static int compare_functions(const void *a, const void *b)
{
	const struct dw_function *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	if (!x->file || !y->file)
		return !x->file - !y->file;
	if ((c = strcmp(x->file, y->file)))
		return c;
	return x->line - y->line;
}

/* Whether NAME is new to T (then it is added: the table holds the callers' strings). */
static bool first_sight(struct interned *t, const char *name)
{
	size_t before = t->used;

	intern(t, name);
	return t->used != before;
}

static void add_named(struct dw_named **list, int *count, int *cap, const char *name,
		      const char *file, Dwarf_Off cu, Dwarf_Off die)
{
	if (*count == *cap) {
		*cap = *cap ? *cap * 2 : 1024;
		*list = xrealloc(*list, *cap * sizeof(**list));
	}
	(*list)[(*count)++] = (struct dw_named){ name, file, cu, die };
}

/* The unit's named types (complete ones) and its global variables (with a location). */
static void add_unit_names(struct index_build *b, Dwarf_Die *cu)
{
	Dwarf_Die child;
	const char *unit = dwarf_diename(cu);
	const char *file = unit ? intern(&b->strings, unit) : NULL;

	if (dwarf_child(cu, &child) != 0)
		return;
	do {
		const char *name = dwarf_diename(&child);

		if (!name)
			continue;
		switch (dwarf_tag(&child)) {
		case DW_TAG_structure_type: case DW_TAG_union_type: case DW_TAG_enumeration_type:
		case DW_TAG_typedef: case DW_TAG_base_type:
			/* every unit has its own task_struct: one per name is kept */
			if (!dwarf_hasattr(&child, DW_AT_declaration) &&
			    first_sight(&b->type_names, name))
				add_named(&b->ix->types, &b->ix->ntypes, &b->types_cap, name, file,
					  dwarf_dieoffset(cu), dwarf_dieoffset(&child));
			break;
		case DW_TAG_variable:
			if (dwarf_hasattr(&child, DW_AT_location))
				add_named(&b->ix->globals, &b->ix->nglobals, &b->globals_cap, name,
					  file, dwarf_dieoffset(cu), dwarf_dieoffset(&child));
			else if (dwarf_hasattr(&child, DW_AT_declaration) &&
				 first_sight(&b->declared_names, name))
				add_named(&b->ix->declared, &b->ix->ndeclared, &b->declared_cap,
					  name, file, dwarf_dieoffset(cu), dwarf_dieoffset(&child));
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
}

static int compare_named(const void *a, const void *b)
{
	const struct dw_named *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->cu < y->cu ? -1 : x->cu > y->cu;	/* stable: the first unit's first */
}

/* One type per name is enough for @cast (the first unit's complete one). */
static void unique_types(struct dw_index *ix)
{
	int kept = 0;

	qsort(ix->types, ix->ntypes, sizeof(*ix->types), compare_named);
	for (int i = 0; i < ix->ntypes; i++)
		if (kept == 0 || strcmp(ix->types[kept - 1].name, ix->types[i].name) != 0)
			ix->types[kept++] = ix->types[i];
	ix->ntypes = kept;
}

static void build_index(struct index_build *b)
{
	struct dw_module *m = b->m;
	Dwarf *dw = m->symbols_only ? NULL : dwarf_begin_elf(m->elf, DWARF_C_READ, NULL);
	Dwarf_Off off = 0, next;
	size_t header;
	struct unit_functions w = { .m = m };
	int units = 0;

	if (!dw)	/* no second handle: walk with libdwfl's own */
		dw = m->dwarf;
	while (dw && dwarf_nextcu(dw, off, &next, &header, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(dw, off + header, &cu)) {
			w.ninstances = w.ncandidates = 0;
			dw_walk_unit(&cu, note_unit_die, &w);
			add_unit_functions(b, &w, &cu);
			add_unit_names(b, &cu);
		}
		off = next;
		if (++units % UNITS_PER_HANDLE == 0 && dw != m->dwarf) {
			dwarf_end(dw);	/* names stay: they point into the ELF's .debug_str */
			dw = dwarf_begin_elf(m->elf, DWARF_C_READ, NULL);
		}
	}
	if (dw && dw != m->dwarf)
		dwarf_end(dw);
	free(w.instances);
	free(w.candidates);
	add_symbol_functions(b);
	for (int i = 0; i < b->ix->nfunctions; i++)
		if (dw_name_exported(m, b->ix->functions[i].name))
			b->ix->functions[i].flags |= DWF_EXPORTED;
	if (b->ix->nfunctions)
		qsort(b->ix->functions, b->ix->nfunctions, sizeof(*b->ix->functions),
		      compare_functions);
	unique_types(b->ix);
	if (b->ix->ndeclared)
		qsort(b->ix->declared, b->ix->ndeclared, sizeof(*b->ix->declared), compare_named);
	if (b->ix->nglobals)
		qsort(b->ix->globals, b->ix->nglobals, sizeof(*b->ix->globals), compare_named);
}

/* ---- looking up a type or a global ---- */

/* The first of LIST's entries named NAME, or NULL. */
static const struct dw_named *first_named(const struct dw_named *list, int n, const char *name)
{
	int lo = 0, hi = n - 1, found = -1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2, c = strcmp(list[mid].name, name);

		if (c == 0)
			found = mid;
		if (c >= 0)
			hi = mid - 1;
		else
			lo = mid + 1;
	}
	return found < 0 ? NULL : &list[found];
}

bool dw_find_type(struct dw_module *m, const char *name, Dwarf_Die *die)
{
	struct dw_index *ix = dw_module_index(m);
	const struct dw_named *t;
	static const char *const tags[] = { "struct ", "union ", "enum " };

	for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++)
		if (starts_with(name, tags[i]))
			name += strlen(tags[i]);
	t = first_named(ix->types, ix->ntypes, name);
	return t && dw_module_open(m) && dwarf_offdie(m->dwarf, t->die, die);
}

bool dw_find_declared(struct dw_module *m, const char *name, Dwarf_Die *die)
{
	struct dw_index *ix = dw_module_index(m);
	const struct dw_named *d = first_named(ix->declared, ix->ndeclared, name);

	return d && dw_module_open(m) && dwarf_offdie(m->dwarf, d->die, die);
}

bool dw_find_global(struct dw_module *m, const char *name, const char *file, Dwarf_Die *die)
{
	struct dw_index *ix = dw_module_index(m);
	const struct dw_named *g = first_named(ix->globals, ix->nglobals, name), *best = NULL;

	for (; g && g < ix->globals + ix->nglobals && strcmp(g->name, name) == 0; g++)
		if (!file || (g->file && dw_file_matches(file, g->file)))
			if (!best || !best->file || (g->file && strlen(g->file) < strlen(best->file)))
				best = g;
	return best && dw_module_open(m) && dwarf_offdie(m->dwarf, best->die, die);
}

struct dw_index *dw_module_index(struct dw_module *m)
{
	struct index_build b = { .m = m };
	double start = now_ms();

	if (m->index)
		return m->index;
	if (!dw_module_open(m) && !m->symbols_only) {	/* opened when the tables were read */
		m->index = xcalloc(1, sizeof(*m->index));
		return m->index;
	}
	b.ix = m->index = xcalloc(1, sizeof(*m->index));
	build_index(&b);
	free(b.entries);
	free(b.strings.slots);	/* the strings stay: the index points at them */
	interned_free(&b.type_names);
	interned_free(&b.declared_names);
	interned_free(&b.codeless_names);
	if (!m->is_user)	/* a program's tables are read from its file each run */
		dw_cache_store(m);
	if (verbose_at(m->session, 2, 2))
		fprintf(stderr, "Pass 2: indexed %s's %d functions in %.0f ms\n", m->name,
			m->index->nfunctions, now_ms() - start);
	return m->index;
}
