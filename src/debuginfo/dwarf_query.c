/*
 * dwarf_query.c - function patterns (dwarf_pattern.c) to the places probes go.
 *
 * A function's places: its out-of-line copies' entries (kprobes, kretprobes) and its
 * inlined instances' entries.  A statement's: for each line asked, in each function
 * matched, the first address of each run of line-table rows of that line (a line the
 * compiler split, e.g. a loop's condition, has several).  Only text kprobes may touch
 * counts; an exactly named function that has none is refused with the reason.
 */
#include "dw.h"

#include <dwarf.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

/* ---- the functions a pattern names ---- */

/* Whether F cannot be probed at all; noted for its warning (stap warns for each). */
void dw_add_refused(struct dw_sites *out, const struct dw_function *f)
{
	out->refused = xrealloc(out->refused, (out->nrefused + 1) * sizeof(*out->refused));
	out->refused[out->nrefused++] = f;
}

static bool refused(const struct dw_function *f, struct dw_sites *out)
{
	if (!(f->flags & DWF_BLOCKED))
		return false;
	dw_add_refused(out, f);
	return true;
}

static bool function_matches(const struct dw_pattern *pat, const struct dw_function *f)
{
	if (fnmatch(pat->function, f->name, 0) != 0)
		return false;
	if (!pat->file)
		return true;
	return f->file && dw_file_matches(pat->file, f->file);
}

void dw_add_site(struct dw_sites *out, const struct dw_site *site)
{
	out->sites = xrealloc(out->sites, (out->count + 1) * sizeof(*out->sites));
	out->sites[out->count++] = *site;
}

int dw_compare_sites(const void *a, const void *b)
{
	const struct dw_site *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->kind == DW_SITE_SYMBOL && y->kind == DW_SITE_SYMBOL)
		return x->function->order - y->function->order;
	return x->line - y->line;
}

const struct dw_function *dw_wanted_function(struct unit_query *q, Dwarf_Off die)
{
	int lo = 0, hi = q->nwanted - 1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;

		if (q->wanted[mid]->die == die)
			return q->wanted[mid];
		if (q->wanted[mid]->die < die)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return NULL;
}

static int compare_by_die(const void *a, const void *b)
{
	const struct dw_function *x = *(const struct dw_function *const *)a;
	const struct dw_function *y = *(const struct dw_function *const *)b;

	return x->die < y->die ? -1 : x->die > y->die;
}

/* After the prologue: the first address the line table marks as past it. */
static uint64_t past_prologue(Dwarf_Die *function, uint64_t entry)
{
	Dwarf_Addr *points = NULL;
	int n = dwarf_entry_breakpoints(function, &points);
	uint64_t addr = entry;

	if (n > 0)
		addr = points[0];
	free(points);
	return addr;
}

static void function_die(void *arg, Dwarf_Die *die, enum dw_unit_die what, Dwarf_Off origin)
{
	struct unit_query *q = arg;
	const struct dw_function *f = dw_wanted_function(q, what == DW_UNIT_FUNCTION ?
							  dwarf_dieoffset(die) : origin);
	struct dw_site site = { .module = q->m, .function = f };
	uint64_t entry;

	if (!f || (what == DW_UNIT_FUNCTION && !dw_die_has_code(die)) ||
	    !dw_die_entry(die, &entry))
		return;
	if (what != DW_UNIT_INLINED && dw_partial_copy(q->m, entry + q->m->bias))
		return;		/* foo.part.0: only foo calls it */
	if (what == DW_UNIT_INLINED ? q->filter == DW_CALL || q->filter == DW_RETURN :
				      q->filter == DW_INLINE)
		return;
	site.kind = what == DW_UNIT_INLINED ? DW_SITE_INLINE : DW_SITE_ENTRY;
	site.entry = entry + q->m->bias;
	site.addr = site.entry;
	site.cu = f->cu;
	site.scope = dwarf_dieoffset(die);
	if (!dw_usable(q->m, site.entry))
		return;
	/* a program's .return reads its @entry values after the prologue too (the uretprobe
	 * goes at site.entry): unoptimized code keeps its parameters in the frame */
	if (site.kind == DW_SITE_ENTRY && (q->filter != DW_RETURN || q->m->is_user) &&
	    (q->prologue == DW_PROLOGUE_ALWAYS ||
	     (q->prologue == DW_PROLOGUE_AUTO && !q->optimized)))
		site.addr = past_prologue(die, entry) + q->m->bias;
	dw_add_site(q->out, &site);
}

/* Whether the unit was compiled with optimization (its producer names -O1 or more). */
static bool unit_optimized(Dwarf_Die *cu)
{
	Dwarf_Attribute attr;
	const char *producer = dwarf_attr(cu, DW_AT_producer, &attr) ? dwarf_formstring(&attr) :
								       NULL;

	for (const char *p = producer; p && (p = strstr(p, " -O")); p += 3)
		if (p[3] != '0')
			return true;
	return false;
}

/* Runs VISIT over each unit holding a wanted function, with the unit's wanted ones. */
void dw_for_each_unit(struct unit_query *q, const struct dw_function **matched, int n,
			  dw_unit_visitor *visit)
{
	int i = 0;

	if (n && !dw_module_open(q->m))
		return;
	while (i < n) {
		int j = i;
		Dwarf_Die cu;

		while (j < n && matched[j]->cu == matched[i]->cu)
			j++;
		q->wanted = matched + i;
		q->nwanted = j - i;
		qsort(q->wanted, q->nwanted, sizeof(*q->wanted), compare_by_die);
		if (dwarf_offdie(q->m->dwarf, matched[i]->cu, &cu)) {
			q->optimized = unit_optimized(&cu);
			dw_walk_unit(&cu, visit, q);
		}
		i = j;
	}
}

static int compare_by_unit(const void *a, const void *b)
{
	const struct dw_function *x = *(const struct dw_function *const *)a;
	const struct dw_function *y = *(const struct dw_function *const *)b;

	return x->cu < y->cu ? -1 : x->cu > y->cu;
}

void dw_name_range(struct dw_index *ix, const char *pattern, int *lo, int *hi)
{
	int first = 0, last = ix->nfunctions;

	*lo = 0;
	*hi = ix->nfunctions;
	if (strpbrk(pattern, "*?[\\"))
		return;
	while (first < last) {
		int mid = (first + last) / 2;

		if (strcmp(ix->functions[mid].name, pattern) < 0)
			first = mid + 1;
		else
			last = mid;
	}
	*lo = first;
	while (first < ix->nfunctions && strcmp(ix->functions[first].name, pattern) == 0)
		first++;
	*hi = first;
}

const struct dw_function **dw_match_functions(struct dw_module *m,
						   const struct dw_pattern *pat,
						   bool exported_only, bool with_lines,
						   struct dw_sites *out, int *count)
{
	struct dw_index *ix = dw_module_index(m);
	const struct dw_function **matched;
	int n = 0, lo, hi;

	dw_name_range(ix, pat->function, &lo, &hi);
	matched = xcalloc(hi - lo + 1, sizeof(*matched));
	for (int i = lo; i < hi; i++) {
		const struct dw_function *f = &ix->functions[i];

		if (f->flags & DWF_NO_DWARF || !function_matches(pat, f))
			continue;
		if (exported_only && !(f->flags & DWF_EXPORTED))
			continue;
		if (with_lines && pat->lines == DW_LINES_ABSOLUTE && !dw_line_wanted(pat, f->line, 0))
			continue;
		if (refused(f, out))
			continue;
		matched[n++] = f;
	}
	qsort(matched, n, sizeof(*matched), compare_by_unit);
	if (n && !dw_module_open(m))	/* statements and labels read its DWARF next */
		n = 0;
	*count = n;
	return matched;
}

/*
 * The order stap derives a function's probes in: by unit, out-of-line copies before
 * inlined instances, then by DIE.  -L lists what all of a point's probes have, in the
 * first one's order, so the order shows.
 */
static int compare_as_stap(const void *a, const void *b)
{
	const struct dw_site *x = a, *y = b;

	if (x->cu != y->cu)
		return x->cu < y->cu ? -1 : 1;
	if ((x->kind == DW_SITE_INLINE) != (y->kind == DW_SITE_INLINE))
		return x->kind == DW_SITE_INLINE ? 1 : -1;
	if (x->scope != y->scope)
		return x->scope < y->scope ? -1 : 1;
	return dw_compare_sites(a, b);
}

/* Whether a site kept before (from FIRST to KEPT) is SITE's function's at its address;
 * in a program or library, whether an ELF symbol's is. */
static bool kept_at(const struct dw_sites *out, int first, int kept, const struct dw_site *site)
{
	const struct dw_function *function = site->function;
	bool symbol = site->kind == DW_SITE_SYMBOL && site->module->is_user;

	for (int k = kept - 1; k >= first && out->sites[k].addr == site->addr; k--)
		if (out->sites[k].function == function ||
		    (out->sites[k].function && function &&
		     strcmp(out->sites[k].function->name, function->name) == 0) ||
		    (symbol && out->sites[k].kind == DW_SITE_SYMBOL))
			return true;
	return false;
}

/* One probe per function and address: a function inlined into itself has two instances
 * there.  Two functions at one address (an inlined one at the start of its caller) are
 * both kept, as stap keeps them; of a program's or library's names of one function
 * without DWARF (getpid, __getpid), the first its symbol table has, as stap does. */
static void drop_same_address(struct dw_sites *out, int first)
{
	int kept = first;

	qsort(out->sites + first, out->count - first, sizeof(*out->sites), dw_compare_sites);
	for (int i = first; i < out->count; i++)
		if (!kept_at(out, first, kept, &out->sites[i]))
			out->sites[kept++] = out->sites[i];
	out->count = kept;
}

/*
 * The site of F from its own DIE, when F is a function with one body and no inlined
 * instances (the index says so): the same as function_die() finds by walking F's unit,
 * without the walk (a syscall.* wildcard names hundreds of such functions in as many
 * units).  False when F needs the walk.
 */
static bool function_site_direct(struct unit_query *q, const struct dw_function *f)
{
	Dwarf_Die die, cu;

	if ((f->flags & (DWF_OUT_OF_LINE | DWF_INLINED | DWF_NO_DWARF)) != DWF_OUT_OF_LINE ||
	    !dw_module_open(q->m) || !dwarf_offdie(q->m->dwarf, f->die, &die) ||
	    dwarf_tag(&die) != DW_TAG_subprogram || !dw_die_has_code(&die) ||
	    dwarf_hasattr(&die, DW_AT_abstract_origin) ||
	    !dwarf_offdie(q->m->dwarf, f->cu, &cu))
		return false;
	q->wanted = &f;
	q->nwanted = 1;
	q->optimized = unit_optimized(&cu);
	function_die(q, &die, DW_UNIT_FUNCTION, 0);
	q->wanted = NULL;
	q->nwanted = 0;
	return true;
}

void dw_function_sites(struct dw_module *m, const struct dw_pattern *pat,
		       enum dw_function_filter filter, bool exported_only,
		       enum dw_prologue prologue, struct dw_sites *out)
{
	struct dw_index *ix = dw_module_index(m);
	struct unit_query q = { .m = m, .filter = filter, .prologue = prologue, .out = out };
	int n, first = out->count, lo, hi;
	const struct dw_function **matched = dw_match_functions(m, pat, exported_only, false, out,
							     &n);

	int walk = 0;

	/* a function with only its own out-of-line body needs no walk of its unit */
	for (int i = 0; i < n; i++)
		if (!function_site_direct(&q, matched[i]))
			matched[walk++] = matched[i];
	dw_for_each_unit(&q, matched, walk, function_die);
	free(matched);
	/* functions without DWARF: by name alone, at their symbol */
	dw_name_range(ix, pat->function, &lo, &hi);
	for (int i = lo; i < hi && !pat->file && filter != DW_INLINE; i++) {
		const struct dw_function *f = &ix->functions[i];

		if (!(f->flags & DWF_NO_DWARF) || fnmatch(pat->function, f->name, 0) != 0 ||
		    (exported_only && !(f->flags & DWF_EXPORTED)))
			continue;
		dw_add_site(out, &(struct dw_site){ .kind = DW_SITE_SYMBOL, .module = m,
						 .function = f, .addr = f->entry,
						 .entry = f->entry });
	}
	drop_same_address(out, first);
	qsort(out->sites + first, out->count - first, sizeof(*out->sites), compare_as_stap);
}

void dw_function_list(struct dw_module *m, const struct dw_pattern *pat,
		      enum dw_function_filter filter, bool exported_only, struct dw_sites *out)
{
	struct dw_index *ix = dw_module_index(m);
	unsigned wanted = filter == DW_INLINE ? DWF_INLINED :
			  filter == DW_ANY ? DWF_OUT_OF_LINE | DWF_INLINED : DWF_OUT_OF_LINE;

	struct dw_sites symbols = { 0 };

	for (int i = 0; i < ix->nfunctions; i++) {
		const struct dw_function *f = &ix->functions[i];

		if (!function_matches(pat, f) || (exported_only && !(f->flags & DWF_EXPORTED)))
			continue;
		if (f->flags & DWF_NO_DWARF && (pat->file || filter == DW_INLINE))
			continue;
		if (refused(f, out))
			continue;
		if (!(f->flags & wanted))
			continue;
		struct dw_sites *to = m->is_user && f->flags & DWF_NO_DWARF ? &symbols : out;

		dw_add_site(to, &(struct dw_site){
			.kind = f->flags & DWF_NO_DWARF ? DW_SITE_SYMBOL :
				f->flags & DWF_OUT_OF_LINE & wanted ? DW_SITE_ENTRY : DW_SITE_INLINE,
			.module = m, .function = f, .addr = f->entry, .entry = f->entry,
			.cu = f->cu, .scope = f->die });
	}
	/* a program's function without DWARF is listed by one of its names, as probed */
	drop_same_address(&symbols, 0);
	for (int i = 0; i < symbols.count; i++)
		dw_add_site(out, &symbols.sites[i]);
	free(symbols.sites);
}

int dw_function_names(struct dw_module *m, const char ***names)
{
	struct dw_index *ix = dw_module_index(m);
	int n = 0, nsyms = m->is_user && m->dwfl_module ? dwfl_module_getsymtab(m->dwfl_module) : 0;

	*names = xcalloc(ix->nfunctions + (nsyms > 0 ? nsyms : 0) + 1, sizeof(**names));
	for (int i = 0; i < ix->nfunctions; i++)
		if (n == 0 || strcmp((*names)[n - 1], ix->functions[i].name) != 0)
			(*names)[n++] = ix->functions[i].name;
	/* a program's: the functions it calls in other files too (not weak), as stap names
	 * them; in the same order (by name) */
	for (int i = 1; i < nsyms; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		const char *name = dwfl_module_getsym_info(m->dwfl_module, i, &sym, &addr, NULL,
							   NULL, NULL);

		if (name && *name && sym.st_shndx == SHN_UNDEF &&
		    GELF_ST_TYPE(sym.st_info) == STT_FUNC && GELF_ST_BIND(sym.st_info) == STB_GLOBAL)
			(*names)[n++] = name;
	}
	if (n > ix->nfunctions)
		qsort(*names, n, sizeof(**names), compare_strings);
	return n;
}


