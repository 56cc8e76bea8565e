/*
 * dwarf_query.c - probe point patterns to the places probes go, and what is in scope.
 *
 * A pattern is func[@file[:N | :N-M | :N,M-O | :* | +N]] (stapprobes(3stap)): the
 * function is a glob; the file a glob matched as is or after any leading folders
 * ("read_write.c" matches fs/read_write.c); lines are absolute, or relative to the
 * function's declaration with '+'.
 *
 * A function's places: its out-of-line copies' entries (kprobes, kretprobes) and its
 * inlined instances' entries.  A statement's: for each line asked, in each function
 * matched, the first address of each run of line-table rows of that line (a line the
 * compiler split, e.g. a loop's condition, has several).  Only text kprobes may touch
 * counts; an exactly named function that has none is refused with the reason.
 */
#include "dwarf.h"
#include "ctype.h"

#include <dwarf.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

/* ---- patterns ---- */

static bool parse_number(const char **p, int *out)
{
	char *end;
	long n = strtol(*p, &end, 10);

	if (end == *p || n < 0 || n > 100000000)
		return false;
	*out = (int)n;
	*p = end;
	return true;
}

/* ":N", ":N-M", ":N,M-O", ":*" after the file; "+N" relative to the declaration */
static bool parse_lines(struct dw_pattern *pat, const char *p)
{
	if (*p == '+') {
		pat->lines = DW_LINES_RELATIVE;
		pat->ranges = xcalloc(1, sizeof(*pat->ranges));
		pat->nranges = 1;
		p++;
		return parse_number(&p, &pat->ranges[0][0]) && !*p;
	}
	p++;	/* ':' */
	if (strcmp(p, "*") == 0) {
		pat->lines = DW_LINES_ALL;
		return true;
	}
	pat->lines = DW_LINES_ABSOLUTE;
	for (;;) {
		int from, to;

		if (!parse_number(&p, &from))
			return false;
		to = from;
		if (*p == '-') {
			p++;
			if (!parse_number(&p, &to) || to < from)
				return false;
		}
		pat->ranges = xrealloc(pat->ranges, (pat->nranges + 1) * sizeof(*pat->ranges));
		pat->ranges[pat->nranges][0] = from;
		pat->ranges[pat->nranges][1] = to;
		pat->nranges++;
		if (!*p)
			return true;
		if (*p++ != ',')
			return false;
	}
}

struct dw_pattern *dw_parse_pattern(const char *text, char **error)
{
	struct dw_pattern *pat = xcalloc(1, sizeof(*pat));
	const char *at = strchr(text, '@');
	const char *lines;

	*error = NULL;
	pat->function = at ? xstrndup(text, at - text) : xstrdup(text);
	if (!at)
		return pat;
	/* the line part starts at the last ':' or '+' followed by a number or '*' */
	lines = NULL;
	for (const char *p = at + 1; *p; p++)
		if ((*p == ':' || *p == '+') &&
		    ((p[1] >= '0' && p[1] <= '9') || (*p == ':' && p[1] == '*')))
			lines = p;
	pat->file = lines ? xstrndup(at + 1, lines - at - 1) : xstrdup(at + 1);
	if (!*pat->function)
		*error = xasprintf("invalid function pattern '%s'", text);
	else if (lines && !parse_lines(pat, lines))
		*error = xasprintf("invalid line number in '%s'", text);
	else if (!lines && strpbrk(at + 1, ":+") && strpbrk(at + 1, ":+")[1])
		*error = xasprintf("invalid line number in '%s'", text);
	return pat;
}

bool dw_file_matches(const char *pattern, const char *file)
{
	char *anywhere;
	bool match;

	if (!file)
		return false;
	if (fnmatch(pattern, file, 0) == 0)
		return true;
	anywhere = xasprintf("*/%s", pattern);
	match = fnmatch(anywhere, file, 0) == 0;
	free(anywhere);
	return match;
}

static bool line_wanted(const struct dw_pattern *pat, int line, int decl_line)
{
	switch (pat->lines) {
	case DW_LINES_NONE:
	case DW_LINES_ALL:
		return true;
	case DW_LINES_RELATIVE:
		return line == decl_line + pat->ranges[0][0];
	case DW_LINES_ABSOLUTE:
		for (int i = 0; i < pat->nranges; i++)
			if (pat->ranges[i][0] <= line && line <= pat->ranges[i][1])
				return true;
		return false;
	}
	return false;
}

static bool has_wildcard(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* ---- the functions a pattern names ---- */

static bool function_matches(const struct dw_pattern *pat, const struct dw_function *f)
{
	if (fnmatch(pat->function, f->name, 0) != 0)
		return false;
	if (!pat->file)
		return true;
	return f->file && dw_file_matches(pat->file, f->file);
}

static void add_site(struct dw_sites *out, const struct dw_site *site)
{
	out->sites = xrealloc(out->sites, (out->count + 1) * sizeof(*out->sites));
	out->sites[out->count++] = *site;
}

static int compare_sites(const void *a, const void *b)
{
	const struct dw_site *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->line - y->line;
}

/* The functions of one unit that a query wants, and what it found of them. */
struct unit_query {
	struct dw_module *m;
	const struct dw_function **wanted;	/* sorted by die */
	int nwanted;
	enum dw_function_filter filter;
	enum dw_prologue prologue;
	bool optimized;				/* the unit's producer has -O1 or more */
	struct dw_sites *out;
	const struct dw_pattern *pat;		/* statements and labels */
	const char *label;
	bool nearest;
};

static const struct dw_function *wanted_function(struct unit_query *q, Dwarf_Off die)
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

static bool usable(struct dw_module *m, uint64_t addr)
{
	return dw_in_text(m, addr) && !dw_blocked(m, addr);
}

static void function_die(void *arg, Dwarf_Die *die, enum dw_unit_die what, Dwarf_Off origin)
{
	struct unit_query *q = arg;
	const struct dw_function *f = wanted_function(q, what == DW_UNIT_FUNCTION ?
							  dwarf_dieoffset(die) : origin);
	struct dw_site site = { .module = q->m, .function = f };
	uint64_t entry;

	if (!f || (what == DW_UNIT_FUNCTION && !dw_die_has_code(die)) ||
	    !dw_die_entry(die, &entry))
		return;
	if (what == DW_UNIT_INLINED ? q->filter == DW_CALL || q->filter == DW_RETURN :
				      q->filter == DW_INLINE)
		return;
	site.kind = what == DW_UNIT_INLINED ? DW_SITE_INLINE : DW_SITE_ENTRY;
	site.entry = entry + q->m->bias;
	site.addr = site.entry;
	site.cu = f->cu;
	site.scope = dwarf_dieoffset(die);
	if (!usable(q->m, site.entry))
		return;
	if (site.kind == DW_SITE_ENTRY && q->filter != DW_RETURN &&
	    (q->prologue == DW_PROLOGUE_ALWAYS ||
	     (q->prologue == DW_PROLOGUE_AUTO && !q->optimized)))
		site.addr = past_prologue(die, entry) + q->m->bias;
	add_site(q->out, &site);
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
static void for_each_unit(struct unit_query *q, const struct dw_function **matched, int n,
			  dw_unit_visitor *visit)
{
	int i = 0;

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

/* The index's functions PAT names (with DWARF), grouped by unit; refusals noted. */
static const struct dw_function **match_functions(struct dw_module *m,
						   const struct dw_pattern *pat,
						   bool exported_only, bool with_lines,
						   struct dw_sites *out, int *count)
{
	struct dw_index *ix = dw_module_index(m);
	const struct dw_function **matched = xcalloc(ix->nfunctions + 1, sizeof(*matched));
	int n = 0;

	for (int i = 0; i < ix->nfunctions; i++) {
		const struct dw_function *f = &ix->functions[i];

		if (f->flags & DWF_NO_DWARF || !function_matches(pat, f))
			continue;
		if (exported_only && !(f->flags & DWF_EXPORTED))
			continue;
		if (with_lines && pat->lines == DW_LINES_ABSOLUTE && !line_wanted(pat, f->line, 0))
			continue;
		if (f->flags & DWF_BLOCKED) {
			if (!has_wildcard(pat->function)) {
				out->refused_name = f->name;
				out->refused_why = f->why_blocked;
			}
			continue;
		}
		matched[n++] = f;
	}
	qsort(matched, n, sizeof(*matched), compare_by_unit);
	*count = n;
	return matched;
}

void dw_function_sites(struct dw_module *m, const struct dw_pattern *pat,
		       enum dw_function_filter filter, bool exported_only,
		       enum dw_prologue prologue, struct dw_sites *out)
{
	struct dw_index *ix = dw_module_index(m);
	struct unit_query q = { .m = m, .filter = filter, .prologue = prologue, .out = out };
	int n, first = out->count;
	const struct dw_function **matched = match_functions(m, pat, exported_only, true, out,
							     &n);

	for_each_unit(&q, matched, n, function_die);
	free(matched);
	/* functions without DWARF: by name alone, at their symbol */
	for (int i = 0; i < ix->nfunctions && !pat->file && filter != DW_INLINE; i++) {
		const struct dw_function *f = &ix->functions[i];

		if (!(f->flags & DWF_NO_DWARF) || fnmatch(pat->function, f->name, 0) != 0 ||
		    (exported_only && !(f->flags & DWF_EXPORTED)))
			continue;
		add_site(out, &(struct dw_site){ .kind = DW_SITE_SYMBOL, .module = m,
						 .function = f, .addr = f->entry,
						 .entry = f->entry });
	}
	qsort(out->sites + first, out->count - first, sizeof(*out->sites), compare_sites);
}

void dw_function_list(struct dw_module *m, const struct dw_pattern *pat,
		      enum dw_function_filter filter, bool exported_only, struct dw_sites *out)
{
	struct dw_index *ix = dw_module_index(m);
	unsigned wanted = filter == DW_INLINE ? DWF_INLINED :
			  filter == DW_ANY ? DWF_OUT_OF_LINE | DWF_INLINED : DWF_OUT_OF_LINE;

	for (int i = 0; i < ix->nfunctions; i++) {
		const struct dw_function *f = &ix->functions[i];

		if (!function_matches(pat, f) || (exported_only && !(f->flags & DWF_EXPORTED)))
			continue;
		if (f->flags & DWF_NO_DWARF ? pat->file || filter == DW_INLINE :
		    pat->lines == DW_LINES_ABSOLUTE && !line_wanted(pat, f->line, 0))
			continue;
		if (f->flags & DWF_BLOCKED) {
			if (!has_wildcard(pat->function)) {
				out->refused_name = f->name;
				out->refused_why = f->why_blocked;
			}
			continue;
		}
		if (!(f->flags & wanted))
			continue;
		add_site(out, &(struct dw_site){
			.kind = f->flags & DWF_NO_DWARF ? DW_SITE_SYMBOL :
				f->flags & DWF_OUT_OF_LINE & wanted ? DW_SITE_ENTRY : DW_SITE_INLINE,
			.module = m, .function = f, .addr = f->entry, .entry = f->entry,
			.cu = f->cu, .scope = f->die });
	}
}

int dw_function_names(struct dw_module *m, const char ***names)
{
	struct dw_index *ix = dw_module_index(m);
	int n = 0;

	*names = xcalloc(ix->nfunctions + 1, sizeof(**names));
	for (int i = 0; i < ix->nfunctions; i++)
		if (n == 0 || strcmp((*names)[n - 1], ix->functions[i].name) != 0)
			(*names)[n++] = ix->functions[i].name;
	return n;
}

/* ---- statements ---- */

/* The lines of one function instance's code that a statement pattern wants. */
static void statement_lines(struct unit_query *q, Dwarf_Die *scope, const struct dw_function *f,
			    Dwarf_Die *cu)
{
	Dwarf_Lines *lines;
	size_t nlines;
	bool previous_wanted = false;
	int previous_line = -1;
	int first = q->out->count;

	if (dwarf_getsrclines(cu, &lines, &nlines) != 0)
		return;
	for (size_t i = 0; i < nlines; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr addr;
		int lineno;
		bool is_stmt = false, end = false;
		const char *file;

		dwarf_lineaddr(l, &addr);
		dwarf_lineno(l, &lineno);
		dwarf_linebeginstatement(l, &is_stmt);
		dwarf_lineendsequence(l, &end);
		file = dwarf_linesrc(l, NULL, NULL);
		if (end || dwarf_haspc(scope, addr) <= 0 || !is_stmt) {
			previous_wanted = false;
			continue;
		}
		/* a run of rows of one line is one statement: its first address */
		if (previous_wanted && lineno == previous_line)
			continue;
		previous_line = lineno;
		previous_wanted = line_wanted(q->pat, lineno, f ? f->line : 0) &&
				  (!q->pat->file || dw_file_matches(q->pat->file, file));
		if (!previous_wanted || !usable(q->m, addr + q->m->bias))
			continue;
		add_site(q->out, &(struct dw_site){
			.kind = DW_SITE_STATEMENT, .module = q->m, .function = f,
			.addr = addr + q->m->bias, .cu = dwarf_dieoffset(cu),
			.scope = dwarf_dieoffset(scope), .file = file, .line = lineno });
	}
	/* the same line twice in a row of sites (a loop) keeps each address; exact
	 * duplicates (the same address listed twice) go */
	for (int i = q->out->count - 1; i > first; i--)
		if (q->out->sites[i].addr == q->out->sites[i - 1].addr) {
			memmove(&q->out->sites[i], &q->out->sites[i + 1],
				(q->out->count - i - 1) * sizeof(*q->out->sites));
			q->out->count--;
		}
}

static void statement_die(void *arg, Dwarf_Die *die, enum dw_unit_die what, Dwarf_Off origin)
{
	struct unit_query *q = arg;
	const struct dw_function *f = wanted_function(q, what == DW_UNIT_FUNCTION ?
							  dwarf_dieoffset(die) : origin);
	Dwarf_Die cu;

	if (!f || what == DW_UNIT_INLINED || !dw_die_has_code(die) ||
	    !dwarf_diecu(die, &cu, NULL, NULL))
		return;
	statement_lines(q, die, f, &cu);
}

/* .nearest: a line with no code moves to the next line that has some, in the function. */
static struct dw_pattern *nearest_lines(struct dw_module *m, const struct dw_pattern *pat,
					const struct dw_function **matched, int n)
{
	struct dw_pattern *near = xcalloc(1, sizeof(*near));

	*near = *pat;
	near->ranges = NULL;
	near->nranges = 0;
	for (int r = 0; r < pat->nranges; r++) {
		for (int line = pat->ranges[r][0]; line <= pat->ranges[r][1]; line++) {
			int best = -1;

			for (int i = 0; i < n; i++) {
				Dwarf_Die cu;
				Dwarf_Lines *lines;
				size_t nlines;

				if (!dwarf_offdie(m->dwarf, matched[i]->cu, &cu) ||
				    dwarf_getsrclines(&cu, &lines, &nlines) != 0)
					continue;
				for (size_t k = 0; k < nlines; k++) {
					Dwarf_Line *l = dwarf_onesrcline(lines, k);
					int lineno;
					const char *file = dwarf_linesrc(l, NULL, NULL);

					dwarf_lineno(l, &lineno);
					if (lineno >= line && (best < 0 || lineno < best) &&
					    (!pat->file || dw_file_matches(pat->file, file)) &&
					    lineno >= matched[i]->line)
						best = lineno;
				}
			}
			if (best < 0)
				continue;
			near->ranges = xrealloc(near->ranges,
						(near->nranges + 1) * sizeof(*near->ranges));
			near->ranges[near->nranges][0] = near->ranges[near->nranges][1] = best;
			near->nranges++;
		}
	}
	return near;
}

void dw_statement_sites(struct dw_module *m, const struct dw_pattern *pat, bool nearest,
			struct dw_sites *out)
{
	struct unit_query q = { .m = m, .out = out, .pat = pat, .nearest = nearest };
	int n, first = out->count;
	const struct dw_function **matched = match_functions(m, pat, false, false, out, &n);

	if (nearest && pat->lines == DW_LINES_ABSOLUTE)
		q.pat = nearest_lines(m, pat, matched, n);
	for_each_unit(&q, matched, n, statement_die);
	free(matched);
	qsort(out->sites + first, out->count - first, sizeof(*out->sites), compare_sites);
}

/* ---- labels ---- */

static void find_labels(struct unit_query *q, Dwarf_Die *scope, Dwarf_Die *die,
			const struct dw_function *f, Dwarf_Die *cu, int depth)
{
	Dwarf_Die child;

	if (depth > 64 || dwarf_child(die, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);
		Dwarf_Addr addr;
		const char *name;

		if (tag == DW_TAG_label && (name = dwarf_diename(&child)) &&
		    fnmatch(q->label, name, 0) == 0 && dwarf_lowpc(&child, &addr) == 0 &&
		    usable(q->m, addr + q->m->bias)) {
			int line = 0;

			dwarf_decl_line(&child, &line);
			add_site(q->out, &(struct dw_site){
				.kind = DW_SITE_LABEL, .module = q->m, .function = f,
				.addr = addr + q->m->bias, .cu = dwarf_dieoffset(cu),
				.scope = dwarf_dieoffset(scope), .label = name,
				.file = dwarf_decl_file(&child), .line = line });
		}
		if (tag == DW_TAG_lexical_block)
			find_labels(q, scope, &child, f, cu, depth + 1);
	} while (dwarf_siblingof(&child, &child) == 0);
}

static void label_die(void *arg, Dwarf_Die *die, enum dw_unit_die what, Dwarf_Off origin)
{
	struct unit_query *q = arg;
	const struct dw_function *f = wanted_function(q, what == DW_UNIT_FUNCTION ?
							  dwarf_dieoffset(die) : origin);
	Dwarf_Die cu;

	if (!f || what == DW_UNIT_INLINED || !dw_die_has_code(die) ||
	    !dwarf_diecu(die, &cu, NULL, NULL))
		return;
	find_labels(q, die, die, f, &cu, 0);
}

void dw_label_sites(struct dw_module *m, const struct dw_pattern *pat, const char *label,
		    struct dw_sites *out)
{
	struct unit_query q = { .m = m, .out = out, .pat = pat, .label = label };
	int n, first = out->count;
	const struct dw_function **matched = match_functions(m, pat, false, true, out, &n);

	for_each_unit(&q, matched, n, label_die);
	free(matched);
	qsort(out->sites + first, out->count - first, sizeof(*out->sites), compare_sites);
}

/* ---- the variables in scope (-L) ---- */

static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;

	return dwarf_attr_integrate(die, DW_AT_name, &attr) ? dwarf_formstring(&attr) : NULL;
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

struct variable_list {
	struct strbuf sb;
	struct strlist names;
};

static void add_variable(struct variable_list *vl, Dwarf_Die *var)
{
	const char *name = die_name(var);
	char *type;

	if (!name)
		return;
	for (int i = 0; i < vl->names.count; i++)
		if (strcmp(vl->names.items[i], name) == 0)
			return;		/* an inner scope's of the same name hides it */
	strlist_add(&vl->names, name);
	type = ctype_name(ctype_of_variable(var));
	sb_printf(&vl->sb, " $%s:%s", name, type);
	free(type);
}

/* SCOPE's parameters (TAG) or locals available at ADDR. */
static void scope_variables(struct variable_list *vl, Dwarf_Die *scope, int tag, Dwarf_Addr addr)
{
	Dwarf_Die child;

	if (dwarf_child(scope, &child) != 0)
		return;
	do {
		if (dwarf_tag(&child) == tag && available_at(&child, addr))
			add_variable(vl, &child);
	} while (dwarf_siblingof(&child, &child) == 0);
}

char *dw_site_variables(const struct dw_site *site, bool with_return)
{
	struct variable_list vl = { 0 };
	Dwarf_Die cu, *scopes = NULL;
	Dwarf_Addr addr = site->addr - site->module->bias;
	int n;

	if (site->kind == DW_SITE_SYMBOL || !dwarf_offdie(site->module->dwarf, site->cu, &cu))
		return xstrdup("");
	/* innermost first: blocks, then the function or inlined instance */
	n = dwarf_getscopes(&cu, addr, &scopes);
	for (int i = 0; i < n; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag == DW_TAG_compile_unit)
			break;
		if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
			scope_variables(&vl, &scopes[i], DW_TAG_formal_parameter, addr);
			scope_variables(&vl, &scopes[i], DW_TAG_variable, addr);
			if (dwarf_dieoffset(&scopes[i]) == site->scope)
				break;
		} else {
			scope_variables(&vl, &scopes[i], DW_TAG_variable, addr);
		}
	}
	if (with_return && n > 0) {
		Dwarf_Die *function = NULL;

		for (int i = 0; i < n && !function; i++)
			if (dwarf_dieoffset(&scopes[i]) == site->scope)
				function = &scopes[i];
		if (function && ctype_of_variable(function)) {
			char *type = ctype_name(ctype_of_variable(function));

			sb_printf(&vl.sb, " $return:%s", type);
			free(type);
		}
	}
	free(scopes);
	strlist_free(&vl.names);
	return vl.sb.data ? sb_steal(&vl.sb) : xstrdup("");
}
