/*
 * dwarf_lines.c - statements and labels: lines of the line table and DW_TAG_label DIEs
 * to the places probes go.
 *
 * A statement's places: for each line asked, in each out-of-line copy of each function
 * matched, the first address of each run of line-table rows of that line (a line the
 * compiler split, e.g. a loop's condition, has several).  .nearest moves a line with no
 * code to the next line that has some.
 */
#include "dwarf.h"

#include <dwarf.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

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
		previous_wanted = dw_line_wanted(q->pat, lineno, f ? f->line : 0) &&
				  (!q->pat->file || dw_file_matches(q->pat->file, file));
		if (!previous_wanted || !dw_usable(q->m, addr + q->m->bias))
			continue;
		dw_add_site(q->out, &(struct dw_site){
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
	const struct dw_function *f = dw_wanted_function(q, what == DW_UNIT_FUNCTION ?
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
	const struct dw_function **matched = dw_match_functions(m, pat, false, false, out, &n);

	if (nearest && pat->lines == DW_LINES_ABSOLUTE)
		q.pat = nearest_lines(m, pat, matched, n);
	dw_for_each_unit(&q, matched, n, statement_die);
	free(matched);
	qsort(out->sites + first, out->count - first, sizeof(*out->sites), dw_compare_sites);
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
		    dw_usable(q->m, addr + q->m->bias)) {
			int line = 0;

			dwarf_decl_line(&child, &line);
			dw_add_site(q->out, &(struct dw_site){
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
	const struct dw_function *f = dw_wanted_function(q, what == DW_UNIT_FUNCTION ?
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
	const struct dw_function **matched = dw_match_functions(m, pat, false, true, out, &n);

	dw_for_each_unit(&q, matched, n, label_die);
	free(matched);
	qsort(out->sites + first, out->count - first, sizeof(*out->sites), dw_compare_sites);
}

