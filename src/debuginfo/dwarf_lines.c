/*
 * dwarf_lines.c - statements and labels: lines of the line table and DW_TAG_label DIEs
 * to the places probes go, chosen and named as stap 4.8 does (found by experiment).
 *
 * A function's instances are its out-of-line copies (not GCC's split-off "foo.part.N",
 * which stap never probes) and its inlined instances: per unit, the copies first, then
 * the inlined instances, each in DIE order.  A line's place in an instance is the lowest
 * address of the rows of that line (in the function's file, is_stmt or not) within the
 * instance's ranges; an address already taken there by a lower line is skipped.  Two
 * instances at the same entry (one inlined into the other) count as one.
 *
 *   func@file:N, :N-M, :N,M-O   each line asked, in each instance with rows of it
 *   func@file+N                 the line N after the declaration's
 *   func@file:*                 per instance, each line from the one at its entry (the
 *                               last row there, which must be in the function's file)
 *                               to the line before the next function declared in the
 *                               file; an inlined instance only up to its first empty
 *                               range; one inlined into another of its function (GCC
 *                               inlines part of a function into itself) with the lines
 *                               of the one it sits in, listed with it
 *   *@file:*                    as func@file:* for each function, but an instance also
 *                               takes the ":*" lines of the other functions inlined in it
 *   func@file                   each instance's entry, named by the declaration's line
 *   .nearest                    a line without rows becomes the closest ":*" line (the
 *                               later of two as close) within 5 lines; "*@file:N" the
 *                               closest of any function's, probed in all that have it
 *
 * A single line without rows (and no .nearest) is an error naming the ":*" lines within
 * 5 lines around it.  Labels: the DW_TAG_label DIEs of each instance's own body (not of
 * the functions inlined into it), at their low_pc, named by the label's declaration line.
 */
#include "dw.h"

#include <dwarf.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* How far from a function's lines .nearest and the error's suggestions look. */
#define NEAREST_WINDOW 5

struct ranges {
	Dwarf_Addr (*pairs)[2];
	int count;
};

/* An instance of a wanted function: an out-of-line copy or an inlined instance. */
struct instance {
	const struct dw_function *function;
	Dwarf_Off die;
	bool inlined;
	uint64_t entry;
	struct ranges ranges;	/* all of them */
	int *star;		/* its own ":*" lines, once asked for */
	int nstar;
	bool star_known;
};

/* A line-table row, as the instances' lookups need it. */
struct row {
	uint64_t addr;
	const char *file;
	int line;
	uint32_t index;		/* in the table: rows at one address keep their order */
};

/* A unit's rows by address (no end-of-sequence rows): an instance's rows are found
 * by its ranges, not by reading the whole table (an inline function can have
 * thousands of instances in a unit). */
struct unit_rows {
	Dwarf_Off cu;
	struct row *rows;
	size_t count;
};

#define UNIT_CACHE 8

/* A query over the instances of the wanted functions. */
struct line_query {
	struct unit_query q;		/* first: the unit visitor's argument */
	struct instance *instances;
	int ninstances, cap;
	struct unit_rows units[UNIT_CACHE];	/* the units read last */
	int next_unit;
	int *next_decls;	/* per index function: next_declaration() + 1, 0 unknown */
};

/* A line of an instance and its lowest address there. */
struct place {
	int line;
	uint64_t addr;
};

/* What one instance has of its function's file: sorted by line, one place per line. */
struct instance_lines {
	struct place *places;
	int nplaces;
	int entry_line;		/* the last row at the entry, if in the function's file; else -1 */
};

/* ---- instances ---- */

/* TRUNCATED: up to the first empty range, as stap's ":*" reads an inlined instance. */
static struct ranges read_ranges(Dwarf_Die *die, bool truncated)
{
	struct ranges r = { 0 };
	Dwarf_Addr base, start, end;
	ptrdiff_t offset = 0;

	while ((offset = dwarf_ranges(die, offset, &base, &start, &end)) > 0) {
		if (truncated && start == end)
			break;
		r.pairs = xrealloc(r.pairs, (r.count + 1) * sizeof(*r.pairs));
		r.pairs[r.count][0] = start;
		r.pairs[r.count][1] = end;
		r.count++;
	}
	return r;
}

static bool in_ranges(const struct ranges *r, Dwarf_Addr addr)
{
	for (int i = 0; i < r->count; i++)
		if (r->pairs[i][0] <= addr && addr < r->pairs[i][1])
			return true;
	return false;
}

/* GCC's split-off tail "foo.part.N": stap probes neither it nor its lines. */
static bool split_part(struct dw_module *m, Dwarf_Die *die)
{
	const struct dw_symbol *sym;
	uint64_t entry;

	if (!dw_die_entry(die, &entry))
		return false;
	sym = dw_symbol_at(m, entry + m->bias);
	return sym && sym->addr == entry + m->bias && strstr(sym->name, ".part.");
}

static void collect_instance(void *arg, Dwarf_Die *die, enum dw_unit_die what, Dwarf_Off origin)
{
	struct line_query *lq = arg;
	const struct dw_function *f = dw_wanted_function(&lq->q, what == DW_UNIT_FUNCTION ?
							  dwarf_dieoffset(die) : origin);
	struct instance *inst;

	if (!f || !dw_die_has_code(die) || (what != DW_UNIT_INLINED && split_part(lq->q.m, die)))
		return;
	if (lq->ninstances == lq->cap) {
		lq->cap = lq->cap ? 2 * lq->cap : 64;
		lq->instances = xrealloc(lq->instances, lq->cap * sizeof(*lq->instances));
	}
	inst = &lq->instances[lq->ninstances++];
	*inst = (struct instance){ .function = f, .die = dwarf_dieoffset(die),
				   .inlined = what == DW_UNIT_INLINED,
				   .ranges = read_ranges(die, false) };
	dw_die_entry(die, &inst->entry);
}

/* stap's order: unit by unit, the out-of-line copies, then the inlined instances. */
static int compare_instances(const void *a, const void *b)
{
	const struct instance *x = a, *y = b;

	if (x->function->cu != y->function->cu)
		return x->function->cu < y->function->cu ? -1 : 1;
	if (x->inlined != y->inlined)
		return x->inlined ? 1 : -1;
	return x->die < y->die ? -1 : x->die > y->die;
}

static void free_instances(struct line_query *lq)
{
	for (int i = 0; i < lq->ninstances; i++) {
		free(lq->instances[i].ranges.pairs);
		free(lq->instances[i].star);
	}
	free(lq->instances);
}

/* The query whose instance indexes qsort() is sorting (it passes no context). */
static const struct line_query *sorting;

/* Instance indexes by function, then entry, then stap's order. */
static int compare_by_entry(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	const struct instance *ix = &sorting->instances[x], *iy = &sorting->instances[y];

	if (ix->function != iy->function)
		return ix->function < iy->function ? -1 : 1;
	if (ix->entry != iy->entry)
		return ix->entry < iy->entry ? -1 : 1;
	return x - y;
}

static int *by_function_and_entry(const struct line_query *lq)
{
	int *order = xcalloc(lq->ninstances + 1, sizeof(*order));

	for (int i = 0; i < lq->ninstances; i++)
		order[i] = i;
	sorting = lq;
	qsort(order, lq->ninstances, sizeof(*order), compare_by_entry);
	return order;
}

/* An instance inlined into another instance of its function at the same entry (GCC's
 * tty_kref_put in tty_kref_put): stap probes the two as one. */
static void drop_same_entries(struct line_query *lq)
{
	int *order = by_function_and_entry(lq), n = 0;
	bool *drop = xcalloc(lq->ninstances + 1, sizeof(*drop));

	for (int k = 1; k < lq->ninstances; k++) {
		int i = order[k - 1], j = order[k];

		if (lq->instances[i].function == lq->instances[j].function &&
		    lq->instances[i].entry == lq->instances[j].entry && lq->instances[j].entry)
			drop[j] = true;
	}
	for (int i = 0; i < lq->ninstances; i++) {
		if (drop[i])
			free(lq->instances[i].ranges.pairs);
		else
			lq->instances[n++] = lq->instances[i];
	}
	lq->ninstances = n;
	free(order);
	free(drop);
}

/* The instances of the functions PAT names, in stap's order. */
static const struct dw_function **find_instances(struct line_query *lq,
						 const struct dw_pattern *pat, int *nmatched)
{
	const struct dw_function **matched = dw_match_functions(lq->q.m, pat, false, false,
								 lq->q.out, nmatched);

	dw_for_each_unit(&lq->q, matched, *nmatched, collect_instance);
	qsort(lq->instances, lq->ninstances, sizeof(*lq->instances), compare_instances);
	drop_same_entries(lq);
	lq->q.out->functions_found = *nmatched > 0;
	return matched;
}

/* ---- an instance's lines ---- */

static int compare_places(const void *a, const void *b)
{
	const struct place *x = a, *y = b;

	if (x->line != y->line)
		return x->line - y->line;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Sorted by line and address, then each line's lowest address only. */
static void keep_lowest(struct instance_lines *il)
{
	int n = 0;

	qsort(il->places, il->nplaces, sizeof(*il->places), compare_places);
	for (int i = 0; i < il->nplaces; i++)
		if (n == 0 || il->places[n - 1].line != il->places[i].line)
			il->places[n++] = il->places[i];
	il->nplaces = n;
}

static int compare_rows(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static void read_unit_rows(struct dw_module *m, struct unit_rows *u)
{
	Dwarf_Die cu;
	Dwarf_Lines *lines;
	size_t nlines;

	if (!dwarf_offdie(m->dwarf, u->cu, &cu) || dwarf_getsrclines(&cu, &lines, &nlines) != 0)
		return;
	u->rows = xcalloc(nlines + 1, sizeof(*u->rows));
	for (size_t i = 0; i < nlines; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		struct row *r = &u->rows[u->count];
		bool end = false;

		dwarf_lineendsequence(l, &end);
		if (end || dwarf_lineaddr(l, &r->addr) != 0 || dwarf_lineno(l, &r->line) != 0)
			continue;
		r->file = dwarf_linesrc(l, NULL, NULL);
		r->index = i;
		u->count++;
	}
	qsort(u->rows, u->count, sizeof(*u->rows), compare_rows);
}

static const struct unit_rows *unit_rows(struct line_query *lq, Dwarf_Off cu)
{
	struct unit_rows *u;

	for (int i = 0; i < UNIT_CACHE; i++)
		if (lq->units[i].rows && lq->units[i].cu == cu)
			return &lq->units[i];
	u = &lq->units[lq->next_unit++ % UNIT_CACHE];
	free(u->rows);
	*u = (struct unit_rows){ .cu = cu };
	read_unit_rows(lq->q.m, u);
	return u;
}

static void free_unit_rows(struct line_query *lq)
{
	for (int i = 0; i < UNIT_CACHE; i++)
		free(lq->units[i].rows);
}

/* The first row at or after ADDR. */
static size_t first_row(const struct unit_rows *u, uint64_t addr)
{
	size_t lo = 0, hi = u->count;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (u->rows[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Whether ROW is in FILE; the last file name seen is remembered (rows come in runs). */
static bool row_in_file(const struct row *row, const char *file, const char **last,
			bool *last_match)
{
	if (row->file != *last) {
		*last = row->file;
		*last_match = row->file && file && strcmp(row->file, file) == 0;
	}
	return *last_match;
}

static void add_place(struct instance_lines *il, int *cap, int line, uint64_t addr)
{
	if (il->nplaces == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		il->places = xrealloc(il->places, *cap * sizeof(*il->places));
	}
	il->places[il->nplaces++] = (struct place){ line, addr };
}

/* The line of the last row at the instance's entry, if in FILE; else -1. */
static int entry_line(const struct unit_rows *u, uint64_t entry, const char *file)
{
	const char *last = NULL;
	bool last_match = false;
	int line = -1;

	for (size_t i = first_row(u, entry); i < u->count && u->rows[i].addr == entry; i++)
		line = row_in_file(&u->rows[i], file, &last, &last_match) ? u->rows[i].line : -1;
	return line;
}

/* The rows of the function's file within the instance, and the line at its entry. */
static struct instance_lines read_instance(struct line_query *lq, const struct instance *inst,
					   bool truncated)
{
	struct instance_lines il = { .entry_line = -1 };
	const struct unit_rows *u = unit_rows(lq, inst->function->cu);
	const char *file = inst->function->file, *last = NULL;
	bool last_match = false;
	Dwarf_Die die;
	struct ranges r;
	uint64_t entry = 0;
	int cap = 0;

	if (!dwarf_offdie(lq->q.m->dwarf, inst->die, &die) || !dw_die_entry(&die, &entry))
		return il;
	r = read_ranges(&die, truncated);
	for (int k = 0; k < r.count; k++)
		for (size_t i = first_row(u, r.pairs[k][0]);
		     i < u->count && u->rows[i].addr < r.pairs[k][1]; i++)
			if (row_in_file(&u->rows[i], file, &last, &last_match))
				add_place(&il, &cap, u->rows[i].line, u->rows[i].addr);
	free(r.pairs);
	keep_lowest(&il);
	il.entry_line = entry_line(u, entry, file);
	return il;
}

static const struct place *place_of(const struct instance_lines *il, int line)
{
	int lo = 0, hi = il->nplaces - 1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;

		if (il->places[mid].line == line)
			return &il->places[mid];
		if (il->places[mid].line < line)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return NULL;
}

/* ---- the lines ":*" takes ---- */

/* The line of the next function declared after F in F's file (INT_MAX: none). */
static int find_next_declaration(struct dw_module *m, const struct dw_function *f)
{
	Dwarf_Die cu, child;
	int next = INT_MAX;

	if (!dwarf_offdie(m->dwarf, f->cu, &cu) || dwarf_child(&cu, &child) != 0)
		return next;
	do {
		const char *file;
		int line;

		if (dwarf_tag(&child) != DW_TAG_subprogram ||
		    dwarf_hasattr(&child, DW_AT_declaration) ||
		    dwarf_decl_line(&child, &line) != 0 || line <= f->line || line >= next)
			continue;
		file = dwarf_decl_file(&child);
		if (file && f->file && strcmp(file, f->file) == 0)
			next = line;
	} while (dwarf_siblingof(&child, &child) == 0);
	return next;
}

static int next_declaration(struct line_query *lq, const struct dw_function *f)
{
	struct dw_index *ix = dw_module_index(lq->q.m);
	int i = f - ix->functions;

	if (!lq->next_decls)
		lq->next_decls = xcalloc(ix->nfunctions + 1, sizeof(*lq->next_decls));
	if (!lq->next_decls[i])
		lq->next_decls[i] = find_next_declaration(lq->q.m, f) == INT_MAX ? INT_MAX :
				    find_next_declaration(lq->q.m, f) + 1;
	return lq->next_decls[i] == INT_MAX ? INT_MAX : lq->next_decls[i] - 1;
}

/* An instance's ":*" lines: from its entry's line to the next declaration's. */
static bool star_bounds(const struct instance_lines *il, int next_decl, int *from, int *to)
{
	if (il->entry_line < 0)
		return false;	/* it starts in another file's code: stap takes none */
	*from = il->entry_line;
	*to = next_decl == INT_MAX ? INT_MAX : next_decl - 1;
	return true;
}

/* ---- the sites ---- */

/* ASKED: the single line asked with .nearest, which -l names; else 0. */
static void add_statement(struct line_query *lq, const struct instance *inst, int line,
			  uint64_t addr, int asked)
{
	struct dw_module *m = lq->q.m;

	if (!dw_usable(m, addr + m->bias))
		return;
	dw_add_site(lq->q.out, &(struct dw_site){
		.kind = DW_SITE_STATEMENT, .module = m, .function = inst->function,
		.addr = addr + m->bias, .cu = inst->function->cu, .scope = inst->die,
		.file = inst->function->file, .line = line, .asked_line = asked });
}

/* Addresses an instance has given a line already. */
struct taken {
	uint64_t *addrs;
	int count;
};

static bool take(struct taken *t, uint64_t addr)
{
	for (int i = 0; i < t->count; i++)
		if (t->addrs[i] == addr)
			return false;
	t->addrs = xrealloc(t->addrs, (t->count + 1) * sizeof(*t->addrs));
	t->addrs[t->count++] = addr;
	return true;
}

static int compare_ints(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

/* Sorted, each once. */
static int unique_ints(int *v, int n)
{
	int k = 0;

	qsort(v, n, sizeof(*v), compare_ints);
	for (int i = 0; i < n; i++)
		if (k == 0 || v[k - 1] != v[i])
			v[k++] = v[i];
	return k;
}

static void append_int(int **v, int *n, int x)
{
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = x;
}

static uint64_t span(const struct ranges *r)
{
	uint64_t size = 0;

	for (int i = 0; i < r->count; i++)
		size += r->pairs[i][1] - r->pairs[i][0];
	return size;
}

/* For each instance, the outermost other instance of its function that holds its entry
 * (GCC inlines part of a function into itself), or -1: stap probes such an instance
 * with the lines of the one it sits in, and lists them together. */
static int *outer_instances(struct line_query *lq)
{
	int *order = by_function_and_entry(lq), *outer = xcalloc(lq->ninstances + 1, sizeof(int));
	const struct instance *w = lq->instances;

	for (int i = 0; i < lq->ninstances; i++)
		outer[i] = -1;
	for (int a = 0, b; a < lq->ninstances; a = b) {
		for (b = a; b < lq->ninstances && lq->instances[order[b]].function ==
						   lq->instances[order[a]].function; b++)
			;
		for (int x = a; x < b; x++)	/* within one function's instances */
			for (int y = a; y < b; y++) {
				int i = order[x], j = order[y];

				if (i != j && lq->instances[i].inlined &&
				    in_ranges(&w[j].ranges, w[i].entry) &&
				    span(&w[j].ranges) > span(&w[i].ranges) &&
				    (outer[i] < 0 || span(&w[j].ranges) > span(&w[outer[i]].ranges)))
					outer[i] = j;
			}
	}
	free(order);
	return outer;
}

/* One instance of a ":*" group: its lines and the addresses given. */
struct member {
	const struct instance *inst;
	struct instance_lines lines;
	struct taken taken;
};

/* An instance's own ":*" lines (the bounds its entry and the next declaration give). */
static int own_star_lines(struct line_query *lq, struct instance *inst, const int **out)
{
	if (!inst->star_known) {
		struct instance_lines il = read_instance(lq, inst, inst->inlined);
		int from, to;

		inst->star_known = true;
		if (star_bounds(&il, next_declaration(lq, inst->function), &from, &to))
			for (int k = 0; k < il.nplaces; k++)
				if (il.places[k].line >= from && il.places[k].line <= to)
					append_int(&inst->star, &inst->nstar, il.places[k].line);
		free(il.places);
	}
	*out = inst->star;
	return inst->nstar;
}

/* Instance indexes by unit, then entry. */
static int compare_by_unit_entry(const void *a, const void *b)
{
	const struct instance *x = &sorting->instances[*(const int *)a];
	const struct instance *y = &sorting->instances[*(const int *)b];

	if (x->function->cu != y->function->cu)
		return x->function->cu < y->function->cu ? -1 : 1;
	return x->entry < y->entry ? -1 : x->entry > y->entry;
}

/* "*@file:*" also gives an instance the ":*" lines of the other functions inlined in
 * it: those whose entry is in its ranges (BY_ENTRY: indexes by unit and entry). */
static int inlined_lines(struct line_query *lq, const int *by_entry, int first, int **out)
{
	const struct instance *in = &lq->instances[first];
	int *lines = NULL, n = 0;

	for (int k = 0; by_entry && k < in->ranges.count; k++) {
		int lo = 0, hi = lq->ninstances;

		while (lo < hi) {	/* the first instance of the unit at or after the range */
			int mid = (lo + hi) / 2;
			const struct instance *m = &lq->instances[by_entry[mid]];

			if (m->function->cu < in->function->cu ||
			    (m->function->cu == in->function->cu && m->entry < in->ranges.pairs[k][0]))
				lo = mid + 1;
			else
				hi = mid;
		}
		for (int i = lo; i < lq->ninstances; i++) {
			struct instance *j = &lq->instances[by_entry[i]];
			const int *own;
			int nown;

			if (j->function->cu != in->function->cu || j->entry >= in->ranges.pairs[k][1])
				break;
			if (j->function == in->function)
				continue;
			nown = own_star_lines(lq, j, &own);
			for (int l = 0; l < nown; l++)
				append_int(&lines, &n, own[l]);
		}
	}
	*out = lines;
	return unique_ints(lines, n);
}

/* Instance FIRST and those inside it, line by line within FIRST's bounds. */
static void star_group(struct line_query *lq, const int *outer, const int *by_entry, int first)
{
	struct member *members = NULL;
	int n = 0, from = 1, to = 0, *lines = NULL, nlines = 0, *also, nalso;

	for (int i = first; i < lq->ninstances; i++)
		if (i == first || outer[i] == first) {
			members = xrealloc(members, (n + 1) * sizeof(*members));
			members[n] = (struct member){ .inst = &lq->instances[i] };
			members[n].lines = read_instance(lq, &lq->instances[i],
							 lq->instances[i].inlined);
			for (int k = 0; k < members[n].lines.nplaces; k++)
				append_int(&lines, &nlines, members[n].lines.places[k].line);
			n++;
		}
	nlines = unique_ints(lines, nlines);
	nalso = inlined_lines(lq, by_entry, first, &also);
	star_bounds(&members[0].lines, next_declaration(lq, members[0].inst->function),
		    &from, &to);
	for (int k = 0; k < nlines; k++) {
		if ((lines[k] < from || lines[k] > to) &&
		    !bsearch(&lines[k], also, nalso, sizeof(int), compare_ints))
			continue;
		for (int i = 0; i < n; i++) {
			const struct place *p = place_of(&members[i].lines, lines[k]);

			if (p && take(&members[i].taken, p->addr))
				add_statement(lq, members[i].inst, p->line, p->addr, 0);
		}
	}
	for (int i = 0; i < n; i++) {
		free(members[i].lines.places);
		free(members[i].taken.addrs);
	}
	free(members);
	free(lines);
	free(also);
}

/* func@file:*: each instance's lines in its bounds, in order of line. */
static void star_sites(struct line_query *lq)
{
	int *outer = outer_instances(lq), *by_entry = NULL;

	if (strcmp(lq->q.pat->function, "*") == 0) {
		by_entry = xcalloc(lq->ninstances + 1, sizeof(*by_entry));
		for (int i = 0; i < lq->ninstances; i++)
			by_entry[i] = i;
		sorting = lq;
		qsort(by_entry, lq->ninstances, sizeof(*by_entry), compare_by_unit_entry);
	}
	for (int i = 0; i < lq->ninstances; i++)
		if (outer[i] < 0)
			star_group(lq, outer, by_entry, i);
	free(by_entry);
	free(outer);
}

/* func@file: each instance's entry, named by the declaration's line. */
static void entry_sites(struct line_query *lq)
{
	for (int i = 0; i < lq->ninstances; i++)
		if (lq->instances[i].entry)
			add_statement(lq, &lq->instances[i], lq->instances[i].function->line,
				      lq->instances[i].entry, 0);
}

/* ---- lines asked: :N, :N-M, :N,M-O, +N, .nearest ---- */

/* One function's instances and their lines. */
struct function_lines {
	const struct dw_function *function;
	struct instance *instances;	/* consecutive in the query's list */
	struct instance_lines *lines;		/* each instance's, all its ranges */
	int count;
	int *star;		/* the lines ":*" would take, sorted, each once */
	int nstar;
	int *wanted;		/* the lines to probe, sorted, each once */
	int nwanted;
	int asked;		/* the single line asked with .nearest (for -l); else 0 */
};

/* The function's ":*" lines, over all its instances (for .nearest and the error). */
static void star_lines(struct line_query *lq, struct function_lines *fl)
{
	for (int i = 0; i < fl->count; i++) {
		const int *own;
		int nown = own_star_lines(lq, &fl->instances[i], &own);

		for (int k = 0; k < nown; k++)
			append_int(&fl->star, &fl->nstar, own[k]);
	}
	fl->nstar = unique_ints(fl->star, fl->nstar);
}

static bool has_rows(const struct function_lines *fl, int line)
{
	for (int i = 0; i < fl->count; i++)
		if (place_of(&fl->lines[i], line))
			return true;
	return false;
}

/* The ":*" lines just below and above LINE, no further than NEAREST_WINDOW (-1: none). */
static void lines_around(const struct function_lines *fl, int line, int *below, int *above)
{
	*below = *above = -1;
	for (int i = 0; i < fl->nstar; i++) {
		if (fl->star[i] < line && line - fl->star[i] <= NEAREST_WINDOW)
			*below = fl->star[i];
		else if (fl->star[i] > line && fl->star[i] - line <= NEAREST_WINDOW && *above < 0)
			*above = fl->star[i];
	}
}

/* .nearest: the closest ":*" line, the later of two as close; -1 if too far. */
static int nearest_line(const struct function_lines *fl, int line)
{
	int below, above;

	lines_around(fl, line, &below, &above);
	if (above >= 0 && (below < 0 || above - line <= line - below))
		return above;
	return below;
}

static bool single_line(const struct dw_pattern *pat)
{
	return pat->lines == DW_LINES_RELATIVE ||
	       (pat->nranges == 1 && pat->ranges[0][0] == pat->ranges[0][1]);
}

/* The line +N or :N means for this function. */
static int asked_line(const struct dw_pattern *pat, const struct function_lines *fl, int line)
{
	return pat->lines == DW_LINES_RELATIVE ? fl->function->line + pat->ranges[0][0] : line;
}

static bool any_rows(const struct function_lines *fls, int nfl, int line)
{
	for (int i = 0; i < nfl; i++)
		if (has_rows(&fls[i], line))
			return true;
	return false;
}

/* .nearest over several functions: the closest of their lines (the later of two as
 * close), and whose it is; -1 if none is near. */
static int closest_line(const struct function_lines *fls, int nfl, int line, int *which)
{
	int best = -1;

	for (int i = 0; i < nfl; i++) {
		int near = nearest_line(&fls[i], line);

		if (near >= 0 && (best < 0 || abs(near - line) < abs(best - line) ||
				  (abs(near - line) == abs(best - line) && near > best))) {
			best = near;
			*which = i;
		}
	}
	return best;
}

/* The lines of [FROM, TO] that .nearest could move: those near a function's lines
 * (a huge range costs no more than the functions' lines). */
static int movable_lines(const struct function_lines *fls, int nfl, int from, int to, int **out)
{
	int *lines = NULL, n = 0;

	for (int i = 0; i < nfl; i++)
		for (int k = 0; k < fls[i].nstar; k++)
			for (int line = fls[i].star[k] - NEAREST_WINDOW;
			     line <= fls[i].star[k] + NEAREST_WINDOW; line++)
				if (line >= from && line <= to)
					append_int(&lines, &n, line);
	*out = lines;
	return unique_ints(lines, n);
}

/* .nearest: where the asked lines without rows move.  A line is asked of all the
 * functions at once (stap moves "*@file:N" to the closest line of any of them); +N,
 * relative to each declaration, of each function alone. */
static int moved_lines(const struct line_query *lq, const struct function_lines *fls,
		       int nfl, int **out)
{
	const struct dw_pattern *pat = lq->q.pat;
	int *lines = NULL, n = 0, which;

	for (int r = 0; lq->q.nearest && r < pat->nranges; r++) {
		int from = asked_line(pat, &fls[0], pat->ranges[r][0]);
		int to = pat->lines == DW_LINES_RELATIVE ? from : pat->ranges[r][1];
		int *movable, nmovable = movable_lines(fls, nfl, from, to, &movable);

		for (int k = 0; k < nmovable; k++) {
			int line = movable[k];
			int near = any_rows(fls, nfl, line) ? -1 : closest_line(fls, nfl, line, &which);

			if (near >= 0)
				append_int(&lines, &n, near);
		}
		free(movable);
	}
	*out = lines;
	return n;
}

/* FL's lines to probe: those asked that it has, and those moved. */
static void wanted_lines(const struct line_query *lq, struct function_lines *fl,
			 const int *moved, int nmoved)
{
	for (int i = 0; i < fl->count; i++)
		for (int k = 0; k < fl->lines[i].nplaces; k++) {
			int line = fl->lines[i].places[k].line;

			if (dw_line_wanted(lq->q.pat, line, fl->function->line))
				append_int(&fl->wanted, &fl->nwanted, line);
		}
	for (int k = 0; k < nmoved; k++)
		append_int(&fl->wanted, &fl->nwanted, moved[k]);
	fl->nwanted = unique_ints(fl->wanted, fl->nwanted);
	if (lq->q.nearest && single_line(lq->q.pat))
		fl->asked = asked_line(lq->q.pat, fl, lq->q.pat->ranges[0][0]);
}

static bool wants(const struct function_lines *fl, int line)
{
	return bsearch(&line, fl->wanted, fl->nwanted, sizeof(int), compare_ints) != NULL;
}

/* An instance of one of the functions, for going over all in stap's order. */
struct instance_ref {
	struct function_lines *fl;
	int index;
	struct taken taken;
};

static int compare_refs(const void *a, const void *b)
{
	const struct instance_ref *x = a, *y = b;

	return compare_instances(&x->fl->instances[x->index], &y->fl->instances[y->index]);
}

/* Line by line, each instance wanting it (copies first), once per address there. */
static void emit_sites(struct line_query *lq, struct function_lines *fls, int nfl)
{
	struct instance_ref *refs = xcalloc(lq->ninstances + 1, sizeof(*refs));
	int *lines = NULL, nlines = 0, nrefs = 0;

	for (int i = 0; i < nfl; i++) {
		for (int k = 0; k < fls[i].nwanted; k++)
			append_int(&lines, &nlines, fls[i].wanted[k]);
		for (int k = 0; k < fls[i].count; k++)
			refs[nrefs++] = (struct instance_ref){ .fl = &fls[i], .index = k };
	}
	nlines = unique_ints(lines, nlines);
	qsort(refs, nrefs, sizeof(*refs), compare_refs);
	for (int k = 0; k < nlines; k++)
		for (int r = 0; r < nrefs; r++) {
			struct function_lines *fl = refs[r].fl;
			const struct place *p = place_of(&fl->lines[refs[r].index], lines[k]);

			if (p && wants(fl, lines[k]) && take(&refs[r].taken, p->addr))
				add_statement(lq, &fl->instances[refs[r].index], p->line, p->addr,
					      fl->asked);
		}
	for (int r = 0; r < nrefs; r++)
		free(refs[r].taken.addrs);
	free(refs);
	free(lines);
}

/* "no line records for fs/read_write.c:452 [man error::dwarf] (try :451 or :454)" */
static char *no_line_records(const struct function_lines *fl, int line)
{
	const char *what = MAN_PAGE("error::dwarf");
	int below, above;

	lines_around(fl, line, &below, &above);
	if (below >= 0 && above >= 0)
		return xasprintf("no line records for %s:%d%s (try :%d or :%d)",
				 fl->function->file, line, what, below, above);
	if (below >= 0 || above >= 0)
		return xasprintf("no line records for %s:%d%s (try :%d)", fl->function->file,
				 line, what, below >= 0 ? below : above);
	return xasprintf("no line records for %s:%d%s", fl->function->file, line, what);
}

/* A single line without rows: the error names the lines around it in the function
 * nearest to it (or the first's). */
static void note_missing_line(struct line_query *lq, struct function_lines *fls, int nfl)
{
	int which = 0;

	if (nfl == 0)
		return;
	if (lq->q.pat->lines == DW_LINES_RELATIVE) {
		for (int i = nfl - 1; i >= 0; i--)
			if (nearest_line(&fls[i], asked_line(lq->q.pat, &fls[i], 0)) >= 0)
				which = i;
	} else {
		closest_line(fls, nfl, lq->q.pat->ranges[0][0], &which);
	}
	lq->q.out->line_error = no_line_records(&fls[which],
						asked_line(lq->q.pat, &fls[which],
							   lq->q.pat->ranges[0][0]));
}

/* Splits the query's instances into one group per function, with their lines. */
static int group_functions(struct line_query *lq, struct function_lines **out)
{
	struct function_lines *fls = NULL;
	int n = 0, i = 0;

	while (i < lq->ninstances) {
		struct function_lines fl = { .function = lq->instances[i].function,
					     .instances = &lq->instances[i] };

		while (i + fl.count < lq->ninstances &&
		       lq->instances[i + fl.count].function == fl.function)
			fl.count++;
		i += fl.count;
		fl.lines = xcalloc(fl.count, sizeof(*fl.lines));
		for (int k = 0; k < fl.count; k++)
			fl.lines[k] = read_instance(lq, &fl.instances[k], false);
		star_lines(lq, &fl);
		fls = xrealloc(fls, (n + 1) * sizeof(*fls));
		fls[n++] = fl;
	}
	*out = fls;
	return n;
}

static int compare_by_function(const void *a, const void *b)
{
	const struct instance *x = a, *y = b;

	if (x->function != y->function)
		return x->function < y->function ? -1 : 1;
	return compare_instances(a, b);
}

static void free_functions(struct function_lines *fls, int n)
{
	for (int i = 0; i < n; i++) {
		for (int k = 0; k < fls[i].count; k++)
			free(fls[i].lines[k].places);
		free(fls[i].lines);
		free(fls[i].star);
		free(fls[i].wanted);
	}
	free(fls);
}

static void asked_sites(struct line_query *lq)
{
	struct function_lines *fls;
	int first = lq->q.out->count, n, *moved = NULL, nmoved = 0;

	qsort(lq->instances, lq->ninstances, sizeof(*lq->instances), compare_by_function);
	n = group_functions(lq, &fls);
	if (lq->q.pat->lines == DW_LINES_RELATIVE) {
		for (int i = 0; i < n; i++) {	/* +N moves within each function */
			nmoved = moved_lines(lq, &fls[i], 1, &moved);
			wanted_lines(lq, &fls[i], moved, nmoved);
			free(moved);
		}
	} else if (n > 0) {
		nmoved = moved_lines(lq, fls, n, &moved);
		for (int i = 0; i < n; i++)
			wanted_lines(lq, &fls[i], moved, nmoved);
		free(moved);
	}
	emit_sites(lq, fls, n);
	if (lq->q.out->count == first && single_line(lq->q.pat))
		note_missing_line(lq, fls, n);
	free_functions(fls, n);
}

void dw_statement_sites(struct dw_module *m, const struct dw_pattern *pat, bool nearest,
			struct dw_sites *out)
{
	struct line_query lq = { .q = { .m = m, .out = out, .pat = pat, .nearest = nearest } };
	int n;
	const struct dw_function **matched = find_instances(&lq, pat, &n);

	if (pat->lines == DW_LINES_NONE)
		entry_sites(&lq);
	else if (pat->lines == DW_LINES_ALL)
		star_sites(&lq);
	else
		asked_sites(&lq);
	free_instances(&lq);
	free_unit_rows(&lq);
	free(lq.next_decls);
	free(matched);
}

/* ---- labels ---- */

/* The labels of an instance's own body: its lexical blocks, not the code inlined in it. */
static void find_labels(struct line_query *lq, const struct instance *inst, Dwarf_Die *die,
			int depth)
{
	Dwarf_Die child;

	if (depth > 64 || dwarf_child(die, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);
		const char *name = dwarf_diename(&child);
		Dwarf_Addr addr;
		int line = 0;

		if (tag == DW_TAG_lexical_block)
			find_labels(lq, inst, &child, depth + 1);
		if (tag != DW_TAG_label || !name || fnmatch(lq->q.label, name, 0) != 0 ||
		    dwarf_lowpc(&child, &addr) != 0 || !dw_usable(lq->q.m, addr + lq->q.m->bias))
			continue;
		dwarf_decl_line(&child, &line);
		dw_add_site(lq->q.out, &(struct dw_site){
			.kind = DW_SITE_LABEL, .module = lq->q.m, .function = inst->function,
			.addr = addr + lq->q.m->bias, .cu = inst->function->cu,
			.scope = inst->die, .label = name, .file = dwarf_decl_file(&child),
			.line = line });
	} while (dwarf_siblingof(&child, &child) == 0);
}

void dw_label_sites(struct dw_module *m, const struct dw_pattern *pat, const char *label,
		    struct dw_sites *out)
{
	struct line_query lq = { .q = { .m = m, .out = out, .pat = pat, .label = label } };
	int n;
	const struct dw_function **matched = dw_match_functions(m, pat, false, true, out, &n);

	dw_for_each_unit(&lq.q, matched, n, collect_instance);
	out->functions_found = n > 0;
	free(matched);
	qsort(lq.instances, lq.ninstances, sizeof(*lq.instances), compare_instances);
	drop_same_entries(&lq);
	for (int i = 0; i < lq.ninstances; i++) {
		Dwarf_Die die;

		if (dwarf_offdie(m->dwarf, lq.instances[i].die, &die))
			find_labels(&lq, &lq.instances[i], &die, 0);
	}
	free_instances(&lq);
}
