/*
 * family_dwarf.c - probes placed by the target's DWARF (dw.h).
 *
 *   kernel.function(PATTERN)                  each out-of-line copy's entry and each
 *     .call  .return[.maxactive(N)]           inlined instance; .call: out-of-line only;
 *     .inline  .exported  .label(LABEL)       .return: a kretprobe on each copy
 *   kernel.statement(PATTERN)[.nearest]       each line's first address in each function
 *   kernel.statement(ADDRESS)[.absolute]      a statement's address (.absolute: guru mode)
 *   module(MPATTERN).function(PATTERN)...     the same in a module (wildcards allowed)
 *   module(MPATTERN).statement(PATTERN)...
 *   process(PATH).function(PATTERN)           the same in a user-space program, or in a
 *     .call .return .inline .label(LABEL)     library of its processes: uprobes on the
 *   process(PATH).statement(PATTERN)[.nearest]  file (runtime/uprobe.c); PATH is found as
 *   process(PATH).library(LPATH)....          a shell finds a command; process(PID): the
 *   process(PID)....                          program that process runs now; process
 *   process.function(PATTERN)...              alone: -c's command, -x's program
 *
 * PATTERN is func[@file[:N | :N-M | :* | +N]] (dwarf_query.c).  Each place becomes a
 * kprobe (or kretprobe) on "symbol+offset" (or "module:symbol+offset"), registered by
 * runtime/kprobe.c when the session starts, so KASLR and load addresses do not matter.
 * Without the kernel's DWARF, kernel and module functions are placed from its BTF
 * (family_dwarf_btf.c); the two share the point and what it says (dwarf_point.c).
 */
#include "elaborate/elaborate.h"
#include "translate/emit.h"
#include "family.h"
#include "family_dwarf.h"
#include "debuginfo/btf.h"
#include "debuginfo/ctype.h"

#include <dwarf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define FUNCTION_FORMS(prefix) \
	prefix ".function(string)", prefix ".function(string).call", \
	prefix ".function(string).return", prefix ".function(string).return.maxactive(number)", \
	prefix ".function(string).inline", prefix ".function(string).exported", \
	prefix ".function(string).label(string)", \
	prefix ".statement(string)", prefix ".statement(string).nearest"

/* the calls a function makes (dwarf_callees.c) */
#define CALLEE_FORMS(prefix) \
	prefix ".function(string).callee(string)", \
	prefix ".function(string).callee(string).call", \
	prefix ".function(string).callee(string).return", \
	prefix ".function(string).callees", prefix ".function(string).callees(number)"

#define USER_FORMS(prefix) \
	prefix ".function(string)", prefix ".function(string).call", \
	prefix ".function(string).return", prefix ".function(string).inline", \
	prefix ".function(string).label(string)", \
	prefix ".statement(string)", prefix ".statement(string).nearest"

static const char *const dwarf_templates[] = {
	FUNCTION_FORMS("kernel"), CALLEE_FORMS("kernel"),
	FUNCTION_FORMS("module(string)"), CALLEE_FORMS("module(string)"),
	USER_FORMS("process"), CALLEE_FORMS("process"),
	USER_FORMS("process.library(string)"), CALLEE_FORMS("process.library(string)"),
	USER_FORMS("process(string)"), CALLEE_FORMS("process(string)"),
	USER_FORMS("process(number)"), CALLEE_FORMS("process(number)"),
	USER_FORMS("process(string).library(string)"),
	CALLEE_FORMS("process(string).library(string)"),
	USER_FORMS("process(number).library(string)"),
	CALLEE_FORMS("process(number).library(string)"),
	"kernel.statement(number)", "kernel.statement(number).absolute",
	NULL,
};

/* ---- naming ---- */

/* Whether the point names its module by the file's path: module("/path/m.ko"). */
static bool module_path(const struct dwarf_point *dp)
{
	return dp->module && dp->module[0] == '/';
}

/* The name a function's probes have: its DWARF's (malloc's is __libc_malloc's). */
static const char *function_name(const struct dw_function *f)
{
	return f->dwarf_name ? f->dwarf_name : f->name;
}

/* .function("vfs_read@fs/read_write.c:450"): F by its name, file and LINE (0: its own) */
static void put_function(struct strbuf *sb, const char *what, const struct dw_function *f,
			 int line)
{
	sb_printf(sb, "%s(\"%s", what, function_name(f));
	if (f->file)
		sb_printf(sb, "@%s:%d", f->file, line ? line : f->line);
	sb_puts(sb, "\")");
}

/*
 * kernel.function("vfs_read@fs/read_write.c:450").return, as stap names it.  A label's
 * function is named by the label's line; a .nearest statement is listed (-l) with
 * .nearest, and by the line asked when a single one was.  A callee's probe is named as
 * its function's; -l and its derivation name it by the caller too:
 * kernel.function("vfs_read@fs/read_write.c:450").callee("rw_verify_area@...").
 */
static char *site_name(const struct dwarf_point *dp, const struct dw_site *site, bool listing)
{
	struct strbuf sb = { 0 };
	const struct dw_function *f = site->function;

	if (dp->user && dp->library) {
		sb_printf(&sb, "process(\"%s\").library(\"%s\")", dp->program,
			  site->module->name);
	} else if (dp->user) {
		sb_printf(&sb, "process(\"%s\")", site->module->name);
	} else if (dp->module) {
		sb_printf(&sb, "module(\"%s\")", module_path(dp) ? dp->module : site->module->name);
	} else {
		sb_puts(&sb, "kernel");
	}
	if (site->kind == DW_SITE_STATEMENT) {
		sb_printf(&sb, ".statement(\"%s@%s:%d\")", f ? function_name(f) : "*", site->file,
			  listing && site->asked_line ? site->asked_line : site->line);
		if (listing && dp->nearest)
			sb_puts(&sb, ".nearest");
		return sb_steal(&sb);
	}
	if (site->caller && listing) {	/* .callee(...): the caller, then the callee */
		put_function(&sb, ".function", site->caller, 0);
		put_function(&sb, ".callee", f, 0);
		put_point_suffixes(&sb, dp);
		return sb_steal(&sb);
	}
	put_function(&sb, ".function", f, site->kind == DW_SITE_LABEL ? site->line : f->line);
	if (site->kind == DW_SITE_LABEL) {
		sb_printf(&sb, ".label(\"%s\")", site->label);
		return sb_steal(&sb);
	}
	put_point_suffixes(&sb, dp);
	return sb_steal(&sb);
}

/* The index of the executable section of M that holds ADDR, or -1. */
static int text_section(const struct dw_module *m, uint64_t addr)
{
	for (int i = 0; i < m->ntext; i++)
		if (m->text[i].start <= addr && addr < m->text[i].end)
			return i;
	return -1;
}

/* -p2's note: where the probe goes, "pc=_stext+0x34cc50" */
static char *site_note(const struct dwarf_probe *p)
{
	const struct dw_module *m = p->site.module;
	int section;

	if (p->module_path)	/* as stap notes it */
		return xasprintf("pc=<%s+%" PRIu64 "> ", p->symbol, p->offset);
	if (!m)
		return xasprintf("pc=%#" PRIx64 " ", p->site.addr);
	if (m->is_user)		/* as stap: a shared object's from its .dynamic */
		return xasprintf("pc=%s%#" PRIx64 " ", dw_relocatable(m) ? ".dynamic+" : "",
				 p->vaddr);
	if (m->is_kernel && m->text_start)
		return xasprintf("pc=_stext+%#" PRIx64 " ", p->site.addr - m->text_start);
	if ((section = text_section(m, p->site.addr)) >= 0)	/* a module's: from its section */
		return xasprintf("pc=%s+%#" PRIx64 " ", m->text[section].why,
				 p->site.addr - m->text[section].start);
	return xasprintf("pc=%s+%#" PRIx64 " ", p->symbol, p->offset);
}

/* ---- derived probes ---- */

/* A kernel or module probe: a kprobe on "symbol+offset" from a unique symbol before it. */
static bool place_in_kernel(struct elaborator *el, const struct dwarf_point *dp,
			    const struct dw_site *site, struct dwarf_probe *p)
{
	const struct dw_symbol *anchor = dw_anchor(site->module, site->addr);

	if (!anchor) {
		semantic_error(el, NULL, "cannot place a probe at %#" PRIx64 " of module %s: no "
			       "symbol before it", site->addr, site->module->name);
		return false;
	}
	p->symbol = site->module->is_kernel ? xstrdup(anchor->name) :
			xasprintf("%s:%s", site->module->name, anchor->name);
	p->offset = site->addr - anchor->addr;
	p->maxactive = dp->maxactive;
	p->module_path = module_path(dp);
	return true;
}

/* A probe of a program or library: a uprobe at the offset in its file that holds SITE (a
 * .return's at the function's entry, its @entry values read at SITE, after the prologue). */
static bool place_in_file(struct elaborator *el, const struct dwarf_point *dp,
			  const struct dw_site *site, struct dwarf_probe *p)
{
	uint64_t vaddr = dp->is_return ? site->entry : site->addr;

	if (!dw_file_offset(site->module, vaddr, &p->offset) ||
	    (dp->is_return && !dw_file_offset(site->module, site->addr, &p->entry_offset))) {
		semantic_error(el, NULL, "cannot place a probe at %#" PRIx64 " of %s: no segment "
			       "of the file holds it", vaddr, site->module->name);
		return false;
	}
	p->cfa_regno = -1;
	if (dp->is_return && !dw_cfa_rule(site->module, site->addr, &p->cfa_regno,
					  &p->cfa_offset)) {
		semantic_error(el, NULL, "cannot place a return probe at %#" PRIx64 " of %s: no "
			       "simple call frame information there", site->addr,
			       site->module->name);
		return false;
	}
	/* its symbols and unwind table may go into the module (user_symbols.c) */
	user_file_add(el->session, site->module->name, site->module->path);
	p->vaddr = vaddr - site->module->bias;
	p->entry_vaddr = site->addr - site->module->bias;
	p->file = xstrdup(site->module->name);
	p->process = dp->library ? xstrdup(dp->program) : NULL;
	return true;
}

/*
 * A callee's entry: where the caller's calls return, as distances from the probe's
 * address, which the runtime adds to where the probe is now.  A module lays its sections
 * out apart: a call from another section than the callee's is not known.  False when
 * none is.
 */
static bool callee_returns(const struct dw_site *site, struct dwarf_probe *p)
{
	const struct dw_module *m = site->module;
	const struct dw_call_level *level = &site->levels[0];

	p->callers = xcalloc(level->nreturns, sizeof(*p->callers));
	for (int i = 0; i < level->nreturns; i++)
		if (m->is_kernel || m->is_user ||
		    text_section(m, level->returns[i]) == text_section(m, site->addr))
			p->callers[p->ncallers++] = (int64_t)(level->returns[i] - site->addr);
	return p->ncallers > 0;
}

/* A frame rule the runtime can follow: the CFA from the stack or frame pointer. */
static bool followable(const struct dw_frame_rule *rule)
{
	return (rule->cfa_regno == 6 || rule->cfa_regno == 7) &&
	       rule->cfa_offset >= INT32_MIN && rule->cfa_offset <= INT32_MAX &&
	       rule->bp_offset >= INT32_MIN && rule->bp_offset <= INT32_MAX;
}

/*
 * .callees(N) below a direct callee (or an instance inlined in a called function): the
 * frames up the stack and the calls each may return to, as callee_returns() has them,
 * each call with the frame rule of the function it returns into, by which the runtime
 * finds the next frame.  False when a level keeps no call it can follow.
 */
static bool callee_chain(const struct dw_site *site, struct dwarf_probe *p)
{
	struct dw_module *m = site->module;

	if (!dw_frame_rule(m, site->addr, &p->rule) || !followable(&p->rule))
		return false;
	p->chain = xcalloc(site->nlevels, sizeof(*p->chain));
	for (int l = 0; l < site->nlevels; l++) {
		const struct dw_call_level *level = &site->levels[l];
		struct chain_level *to = &p->chain[p->nchain++];
		bool last = l == site->nlevels - 1;

		to->returns = xcalloc(level->nreturns, sizeof(*to->returns));
		for (int i = 0; i < level->nreturns; i++) {
			struct chain_return *r = &to->returns[to->nreturns];
			uint64_t ret = level->returns[i];

			if (!m->is_kernel && !m->is_user &&
			    text_section(m, ret) != text_section(m, site->addr))
				continue;
			if (!dw_frame_rule(m, ret, &r->rule) || !followable(&r->rule)) {
				if (!last)
					continue;
				r->rule = (struct dw_frame_rule){ .cfa_regno = 7, .bp = DW_BP_LOST };
			}
			r->offset = (int64_t)(ret - site->addr);
			to->nreturns++;
		}
		if (!to->nreturns)
			return false;
	}
	return true;
}

static void free_chain(struct dwarf_probe *p)
{
	for (int l = 0; l < p->nchain; l++)
		free(p->chain[l].returns);
	free(p->chain);
}

/* A probe at SITE, named NAME (NULL: as stap names the site). */
static bool add_site(struct elaborator *el, struct derived_probe *proto,
		     const struct dwarf_point *dp, const struct dw_site *site, char *name)
{
	struct dwarf_probe *p;
	struct derived_probe *derived;

	if (el->listing) {	/* -l/-L: the name, and the variables there */
		add_derived_probe(el, proto, name ? name : site_name(dp, site, true), NULL);
		if (el->session->list_locals)
			el->listed[el->nlisted - 1].variables =
				dw_site_variables(site, dp->is_return);
		return true;
	}
	p = xcalloc(1, sizeof(*p));
	if (!(site->module->is_user ? place_in_file : place_in_kernel)(el, dp, site, p) ||
	    (site->nlevels == 1 && site->kind == DW_SITE_ENTRY && !callee_returns(site, p)) ||
	    ((site->nlevels > 1 || (site->nlevels && site->kind != DW_SITE_ENTRY)) &&
	     !callee_chain(site, p))) {
		free(p->callers);
		free_chain(p);
		free(p);
		return false;
	}
	site->module->in_use = true;	/* the probe's target variables read its DWARF */
	p->is_return = dp->is_return;
	p->site = *site;
	if (!name)
		name = site_name(dp, site, false);
	/* -p2 shows a label's probe as its function's, the label in the derivation only */
	derived = add_derived_probe(el, proto, site->kind == DW_SITE_LABEL ?
				    xstrndup(name, strstr(name, ".label(") - name) : name, p);
	derived->note = site_note(p);
	derived->derivation = dp->nearest ? xasprintf("%s.nearest", name) :
			      site->caller ? site_name(dp, site, true) : xstrdup(name);
	if (!derived->script_point && site->kind == DW_SITE_LABEL)
		derived->script_point = xstrdup(name);	/* pn() keeps the label, as stap's */
	derived->saves_entry = dp->is_return;	/* the entry evaluates them (kretprobe, uprobe) */
	return true;
}

static void no_match(struct elaborator *el, struct dw_module *m, const struct dw_pattern *pat,
		     bool refused)
{
	const char **names = NULL;
	int count = m ? dw_function_names(m, &names) : 0;

	no_function_match(el, names, count, pat, refused);
	if (count)
		free(names);
}

static void find_sites(struct elaborator *el, struct dw_module *m, const struct dwarf_point *dp,
		       const struct dw_pattern *pat, struct dw_sites *sites)
{
	enum dw_function_filter filter = dp->is_return ? DW_RETURN : dp->call ? DW_CALL :
					 dp->inline_only ? DW_INLINE : DW_ANY;

	if (dp->callee)
		dw_callee_sites(m, pat, dp->callee, (int)dp->callees_depth, filter, sites);
	else if (dp->statement)
		dw_statement_sites(m, pat, dp->nearest, sites);
	else if (dp->label)
		dw_label_sites(m, pat, dp->label, sites);
	else if (el->listing && !el->session->list_locals)
		dw_function_list(m, pat, filter, dp->exported, sites);
	else
		dw_function_sites(m, pat, filter, dp->exported,
				  (enum dw_prologue)el->session->prologue_searching, sites);
}

/* A program's _start has no caller (its stack is what the kernel built): a return probe
 * there is refused, as in stap 4.8, and its sites from FIRST on dropped; true if one was. */
static bool refuse_start_return(struct elaborator *el, const struct derived_probe *proto,
				const struct dwarf_point *dp, struct dw_sites *sites, int first)
{
	bool refused = false;
	int kept = first;

	for (int k = first; k < sites->count; k++) {
		const struct dw_function *f = sites->sites[k].function;

		if (dp->is_return && sites->sites[k].module->is_user && f &&
		    strcmp(f->name, "_start") == 0) {
			if (!refused)
				semantic_warning(el, proto->handler->probe->tok,
						 "function _start return probe is blocklisted");
			refused = true;
			continue;
		}
		sites->sites[kept++] = sites->sites[k];
	}
	sites->count = kept;
	return refused;
}

static bool user_files(struct elaborator *el, struct dwarf_point *dp, struct strlist *targets);

/* The names of the modules a point names: one, or those matching a wildcard; a
 * program's or its libraries' paths. */
static struct strlist module_names(struct elaborator *el, struct dwarf_point *dp)
{
	struct strlist names = { 0 };

	if (dp->user) {
		user_files(el, dp, &names);
		return names;
	}
	if (module_path(dp)) {	/* one file: no wildcards, as in stap */
		strlist_add(&names, dp->module);
		return names;
	}
	if (dp->module)
		return debuginfo_module_names(elaborator_debuginfo(el), dp->module);
	strlist_add(&names, "kernel");
	return names;
}

/* "cannot find module /usr/bin/x debuginfo: No DWARF information found", as stap says it */
static void no_program(struct elaborator *el, const char *program, const char *why)
{
	semantic_warning(el, NULL, "cannot find module %s debuginfo: %s" MAN_PAGE("warning::debuginfo"),
			 program, why);
}

/*
 * The files a process(...) point names: its program, or the libraries of it that a
 * .library(...) names, where they run (DP->files: here); the program alone is DP->program.
 * process(PID) is the program that process runs, process alone -c's or -x's.  False after
 * a message says why none.
 */
static bool user_files(struct elaborator *el, struct dwarf_point *dp, struct strlist *targets)
{
	struct session *s = el->session;
	char *target, *file, *why = NULL, *exe = NULL;
	const char *path;
	bool ok = false;

	path = exe = process_point_program(s, dp->process, dp->pid, &why);
	if (!path) {
		semantic_error(el, NULL, "%s", why);
		dp->reported = true;
		goto out;
	}
	if (!dp->library && strpbrk(path, "*?[")) {	/* a glob: each program it matches */
		ok = program_paths(s, path, targets, &dp->files, &why) > 0;
		if (!ok)
			no_program(el, path, why);
		goto out;
	}
	if (!program_path(s, path, &target, &file, &why)) {
		no_program(el, path, why);
		goto out;
	}
	dp->program = target;
	if (!dp->library) {
		strlist_add(targets, target);
		strlist_add(&dp->files, file);
		ok = true;
	} else if (program_libraries(s, file, dp->library, targets, &dp->files, &why)) {
		ok = true;
	} else {
		no_program(el, dp->library, why);
	}
	free(file);
out:
	free(why);
	free(exe);
	return ok;
}

/* The DWARF of the Ith file of a process(...) point; NULL after a warning says why not.
 * A file without DWARF has its ELF symbols alone (stap's warning all the same). */
static struct dw_module *user_module(struct elaborator *el, struct dwarf_point *dp,
				     const char *target, int i)
{
	char *why;
	struct dw_module *m = debuginfo_program(elaborator_debuginfo(el), target,
						dp->files.items[i], &why);

	if (why)
		no_program(el, target, why);
	free(why);
	return m;
}

/* kernel.statement(ADDRESS): a statement's first address in text kprobes may touch. */
static bool address_build(struct elaborator *el, const struct dwarf_point *dp,
			  struct derived_probe *proto)
{
	struct dw_module *k;
	struct dw_site site = { .kind = DW_SITE_STATEMENT, .addr = dp->address };
	char *name = xasprintf("kernel.statement(%#" PRIx64 ")%s", dp->address,
			       dp->absolute ? ".absolute" : "");
	Dwarf_Die cu;
	Dwarf_Line *line = NULL;
	Dwarf_Addr at = 0;

	if (dp->absolute) {
		struct dwarf_probe *p = xcalloc(1, sizeof(*p));
		struct derived_probe *derived;

		if (!el->session->guru) {
			semantic_error(el, proto->handler->probe->tok, "absolute statement probe "
				       "in unprivileged script; need stap -g");
			return false;
		}
		p->offset = p->site.addr = dp->address;
		derived = add_derived_probe(el, proto, name, p);
		derived->note = site_note(p);
		derived->derivation = xstrdup(name);
		return true;
	}
	k = debuginfo_kernel(elaborator_debuginfo(el));
	if (!k || !dw_module_open(k)) {
		report_missing_debuginfo(el);
		return false;
	}
	if (!dwarf_addrdie(k->dwarf, dp->address - k->bias, &cu) ||
	    !(line = dwarf_getsrc_die(&cu, dp->address - k->bias)) ||
	    !dw_in_text(k, dp->address) || dw_blocked(k, dp->address)) {
		semantic_error(el, NULL, "no match");
		return false;
	}
	dwarf_lineaddr(line, &at);
	if (at + k->bias != dp->address) {
		/* stap says it before the "while resolving" of the "no match" */
		struct token *resolving = el->resolving;

		el->resolving = NULL;
		semantic_error(el, NULL, "address %#" PRIx64 " does not match the beginning of a "
			       "statement (try %#" PRIx64 ")", dp->address, at + k->bias);
		el->resolving = resolving;
		semantic_error(el, NULL, "no match");
		return false;
	}
	site.module = k;
	site.cu = dwarf_dieoffset(&cu);
	site.file = dwarf_linesrc(line, NULL, NULL);
	dwarf_lineno(line, &site.line);
	return add_site(el, proto, dp, &site, name);
}

static bool dwarf_build(struct elaborator *el, struct probe_point *pp,
			struct derived_probe *proto)
{
	struct dwarf_point dp;
	struct dw_pattern *pat;
	struct dw_module *last = NULL;
	struct dw_sites sites = { 0 };
	struct strlist names;
	char *error;
	int opened = 0;
	bool added = false, refused = false;

	read_dwarf_point(pp, &dp);
	if (!dp.pattern)
		return address_build(el, &dp, proto);
	if (dp.callee && dp.callees_depth < 1) {	/* stap's words */
		semantic_error(el, NULL, ".callees(N) only acceptable for N >= 1");
		return false;
	}
	pat = dw_parse_pattern(dp.pattern, &error);
	if (error) {
		semantic_error(el, dp.what->tok, "%s", error);
		free(error);
		return false;
	}
	if (!dp.user && (el->session->use_btf || !debuginfo_kernel(elaborator_debuginfo(el)))) {
		if (dp.callee) {	/* BTF has no call sites */
			report_missing_debuginfo(el);
			return false;
		}
		return place_from_btf(el, &dp, pat, proto);
	}
	/* stap warns, then ignores the lines of a .function */
	if (!dp.statement && !dp.label && pat->lines != DW_LINES_NONE)
		semantic_warning(el, proto->handler->probe->tok, "For probing a particular line, "
				 "use a .statement() probe, not .function()");
	names = module_names(el, &dp);
	if (dp.module && !names.count) {	/* modules without debuginfo: their BTF */
		struct strlist with_btf = btf_module_names(el->session, dp.module);
		bool any = with_btf.count > 0;

		strlist_free(&with_btf);
		if (any) {
			strlist_free(&names);
			return place_from_btf(el, &dp, pat, proto);
		}
	}
	for (int i = 0; i < names.count; i++) {
		struct dw_module *m = dp.user ? user_module(el, &dp, names.items[i], i) :
				      module_path(&dp) ? debuginfo_module_file(el->debuginfo, names.items[i]) :
				      dp.module ? debuginfo_module(el->debuginfo, names.items[i]) :
				      debuginfo_kernel(elaborator_debuginfo(el));
		int first = sites.count;

		if (!m)
			continue;
		opened++;
		last = m;
		find_sites(el, m, &dp, pat, &sites);
		if (sites.too_many) {
			semantic_error(el, NULL, ".callees(%" PRId64 ") reaches more than %d probe "
				       "points; ask for fewer levels", dp.callees_depth,
				       DW_CALLEES_MAX);
			strlist_free(&names);
			strlist_free(&dp.files);
			free(sites.sites);
			free(sites.refused);
			return false;
		}
		if (sites.line_error) {
			/* stap says it before the "while resolving" of the "no match" */
			struct token *resolving = el->resolving;

			el->resolving = NULL;
			semantic_error_keyed(el, NULL, "no line records", sites.line_error);
			el->resolving = resolving;
			free(sites.line_error);
			sites.line_error = NULL;
		}
		for (int k = 0; k < sites.nrefused; k++) {
			const struct dw_function *f = sites.refused[k];

			semantic_warning(el, proto->handler->probe->tok, "function %s is %s%s",
					 f->name,
					 strcmp(f->why_blocked, "blocklisted") == 0 ? "" : "in ",
					 f->why_blocked);
			refused = true;
		}
		sites.nrefused = 0;
		refused |= refuse_start_return(el, proto, &dp, &sites, first);
		for (int k = first; k < sites.count; k++)
			added |= add_site(el, proto, &dp, &sites.sites[k], NULL);
		/* a wildcard over modules opens them one at a time: what found nothing (or
		 * only named what -l lists) goes before the next */
		if (names.count > 1 && (el->listing || sites.count == first)) {
			sites.count = first;
			debuginfo_close(el->debuginfo, m);
			last = NULL;
		}
	}
	strlist_free(&names);
	strlist_free(&dp.files);
	if (opened == 0) {
		if (dp.user) {
			if (!dp.reported)
				semantic_error(el, NULL, "no match");
		}
		else if (!dp.module || !debuginfo_kernel(el->debuginfo))
			report_missing_debuginfo(el);
		else
			semantic_error(el, NULL, "no match");
		return false;
	}
	/* a statement: no similar names (stap 4.8 gives none, whatever matched); a label
	 * not found, or a function not in the file named: the names include the function's */
	if (!added)
		no_match(el, opened == 1 && !dp.statement ? last : NULL, pat,
			 refused || (dp.label && sites.functions_found) || (pat && pat->file));
	free(sites.sites);
	free(sites.refused);
	return added;
}

/* ---- target variables ---- */

/* "unable to find local 'x', [man error::dwarf] ... (alternatives: $a, $b)", as stap */
static void no_variable(struct elaborator *el, struct node *n, const struct dw_site *site,
			Dwarf_Die *function, const char *name, const char *alternatives)
{
	const struct dw_function *f = site->function;

	semantic_error(el, n->tok, "unable to find local '%s'," MAN_PAGE("error::dwarf")
		       " dieoffset %#" PRIx64 " in %s, near pc %#" PRIx64 " in %s %s "
		       "(alternatives: %s)", name, (uint64_t)dwarf_dieoffset(function),
		       site->module->name, site->addr, f ? f->name : "?",
		       f && f->file ? f->file : "", alternatives);
}

/* $return: the value in the return register, of the function's declared type. */
static bool return_value(struct elaborator *el, struct derived_probe *dp, struct node *n,
			 struct target_access *a, bool quiet)
{
	struct dwarf_probe *p = dp->data;
	Dwarf_Die function;
	struct ctype *type = NULL;

	if (p->is_return && dw_module_open(p->site.module) &&
	    dwarf_offdie(p->site.module->dwarf, p->site.scope, &function))
		type = ctype_of_variable(&function);
	return return_register_access(el, p, n, a, type, quiet);
}

/* The access of variable VAR at SITE, or NULL (with the reason in *ERROR if asked). */
static struct target_access *variable_access(struct elaborator *el, const struct dw_site *site,
					     Dwarf_Die *var, Dwarf_Die *function, char **error)
{
	struct target_access *a;
	struct dw_location loc;
	bool at_entry = site->kind == DW_SITE_ENTRY || site->kind == DW_SITE_INLINE;

	if (!dw_compile_location(site->module, var, function, dw_site_read_at(site), at_entry,
				 &loc)) {
		if (error)
			*error = loc.error;
		else
			free(loc.error);
		return NULL;
	}
	place_module_symbol(el, site->module, &loc);
	a = xcalloc(1, sizeof(*a));
	a->start = loc.c;
	a->start_is_value = loc.is_value;
	a->user = site->module->is_user;
	a->regno = loc.regno;
	a->kernel_address = strstr(loc.c, "stp_kernel_address") != NULL;
	a->type = ctype_of_variable(var);
	if (a->kernel_address && !use_kernel_addresses(el))
		return NULL;
	return a;
}

/* $$vars, $$parms, $$locals, $$return (and with $ or $$): "a=0x1 b=?" as an sprintf(). */
static enum target_resolution variable_list(struct elaborator *el, struct derived_probe *dp,
					    struct node *n, const char *which)
{
	struct dwarf_probe *p = dp->data;
	struct pretty_list *list = target_pretty_list(n->tok);
	struct node *call, *next = n->next;
	bool parms = strcmp(which, "vars") == 0 || strcmp(which, "parms") == 0;
	bool locals = strcmp(which, "vars") == 0 || strcmp(which, "locals") == 0;
	Dwarf_Die function;

	if (strcmp(which, "return") == 0) {
		struct target_access *a = xcalloc(1, sizeof(*a));
		struct node plain = *n;

		plain.pretty = 0;
		plain.components = NULL;
		if (p->is_return && return_value(el, dp, &plain, a, true))
			target_pretty_variable(list, "return", a, a->type, n->pretty);
	} else if (dwarf_offdie(p->site.module->dwarf, p->site.scope, &function)) {
		for (int pass = 0; pass < 2; pass++) {
			Dwarf_Die *vars;
			int count;

			if (pass == 0 ? !parms : !locals || p->is_return)
				continue;	/* a return probe's locals are gone */
			count = dw_site_scope_variables(&p->site, pass == 0, &vars);
			for (int i = 0; i < count; i++) {
				struct target_access *a = variable_access(el, &p->site, &vars[i],
									  &function, NULL);
				Dwarf_Attribute attr;
				const char *name = dwarf_formstring(dwarf_attr_integrate(
					&vars[i], DW_AT_name, &attr));

				target_pretty_variable(list, name ? name : "?", a,
						       ctype_of_variable(&vars[i]), n->pretty);
			}
			free(vars);
		}
	}
	call = target_pretty_list_call(list);
	call->next = next;
	*n = *call;
	/* a return probe's parameters are read at the entry; its $return at the return */
	return p->is_return && strcmp(which, "return") != 0 ? TARGET_AT_ENTRY : TARGET_RESOLVED;
}

/* In a program or library without DWARF, $$vars, $$parms, $$locals and $$return are ""
 * and other $ variables an error, as in stap. */
static enum target_resolution symbols_only_target(struct elaborator *el,
						  const struct dwarf_probe *p, struct node *n,
						  bool quiet)
{
	const char *name = n->string + 1;

	if (strcmp(name, "$vars") == 0 || strcmp(name, "$parms") == 0 ||
	    strcmp(name, "$locals") == 0 || strcmp(name, "$return") == 0) {
		struct node *next = n->next;

		*n = *target_pretty_list_call(target_pretty_list(n->tok));
		n->next = next;
		return TARGET_RESOLVED;
	}
	if (!quiet)
		semantic_error(el, n->tok, "debuginfo scope not found for module '%s', cannot "
			       "resolve context variable" MAN_PAGE("error::dwarf"),
			       p->site.module->name);
	return TARGET_UNRESOLVED;
}

/* N reads VAR, found in scope at SITE: its access with N's members and indexes, or
 * false after the error (unless QUIET). */
static bool resolve_variable(struct elaborator *el, const struct dw_site *site, struct node *n,
			     Dwarf_Die *var, Dwarf_Die *function, bool quiet)
{
	char *error = NULL;
	struct target_access *a = variable_access(el, site, var, function, &error);

	if (!a) {
		if (!quiet && error)
			semantic_error(el, n->tok, "$%s is %s" MAN_PAGE("error::dwarf"),
				       n->string + 1, error);
		free(error);
		return false;
	}
	if (!target_components(el, n, a, a->type, quiet))
		return false;
	target_resolved(n, a);	/* $var$: an sprintf() of its members */
	return true;
}

static enum target_resolution dwarf_resolve_target(struct elaborator *el,
						   struct derived_probe *dp, struct node *n,
						   bool quiet)
{
	struct dwarf_probe *p = dp->data;
	const struct dw_site *site = &p->site;
	struct target_access *a;
	const char *name = n->string + 1;
	Dwarf_Die var, function;
	char *alternatives = NULL;

	if (p->btf)
		return resolve_from_btf(el, dp, n, quiet);
	if (site->module && site->module->symbols_only)
		return symbols_only_target(el, p, n, quiet);
	a = xcalloc(1, sizeof(*a));
	if (!site->module || site->kind == DW_SITE_SYMBOL) {
		if (!quiet)
			semantic_error(el, n->tok, "unresolved target-symbol expression");
		return TARGET_UNRESOLVED;
	}
	if (strcmp(name, "return") == 0 && p->is_return) {
		if (!return_value(el, dp, n, a, quiet))
			return TARGET_UNRESOLVED;
		target_resolved(n, a);	/* $return$, $return->member$ too */
		return TARGET_RESOLVED;
	}
	if (starts_with(name, "$")) {	/* $$vars, $$parms, $$locals, $$return */
		if (strcmp(name, "$vars") && strcmp(name, "$parms") && strcmp(name, "$locals") &&
		    strcmp(name, "$return")) {
			if (!quiet)
				semantic_error(el, n->tok, "unresolved target-symbol expression");
			return TARGET_UNRESOLVED;
		}
		if (!dw_module_open(site->module))
			return TARGET_UNRESOLVED;
		return variable_list(el, dp, n, name + 1);
	}
	if (!dw_find_variable(site, name, &var, &function, quiet ? NULL : &alternatives)) {
		if (!quiet)
			no_variable(el, n, site, &function, name, alternatives);
		free(alternatives);
		return TARGET_UNRESOLVED;
	}
	free(a);
	if (dwarf_hasattr(&var, DW_AT_declaration) && !dwarf_hasattr(&var, DW_AT_location) &&
	    !dwarf_hasattr(&var, DW_AT_const_value)) {
		/* an extern the unit only declares (kallsyms_names, defined by the linker):
		 * found where @var finds it, as stap finds it */
		n->kind = ND_AT_VAR;
		n->string = xstrdup(name);
		n->module = NULL;
		return resolve_at_var(el, dp, n, quiet) ? TARGET_RESOLVED : TARGET_UNRESOLVED;
	}
	if (!resolve_variable(el, site, n, &var, &function, quiet))
		return TARGET_UNRESOLVED;
	/* a return probe's site is the function's entry: what it reads is read there */
	return p->is_return ? TARGET_AT_ENTRY : TARGET_RESOLVED;
}

/*
 * $NAME read at link-time address VADDR of a program's module M, for a probe of another
 * family placed there: an SDT marker reads, as stap lets it, the locals and parameters
 * its code has in scope and the unit's globals.  *FOUND false (nothing said) when M has
 * no DWARF of the code there.
 */
enum target_resolution dwarf_resolve_at(struct elaborator *el, struct dw_module *m,
					uint64_t vaddr, struct node *n, bool quiet, bool *found)
{
	struct dw_site site = { .kind = DW_SITE_STATEMENT, .module = m };
	const char *name = n->string + 1;
	Dwarf_Die cu, var, function, scope, *scopes = NULL;
	int count;

	*found = false;
	if (!m || m->symbols_only || !dw_module_open(m) || !dwarf_addrdie(m->dwarf, vaddr, &cu))
		return TARGET_UNRESOLVED;
	site.addr = vaddr + m->bias;
	site.cu = dwarf_dieoffset(&cu);
	count = dwarf_getscopes(&cu, vaddr, &scopes);
	for (int i = 0; i < count && !site.scope; i++) {
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram ||
		    dwarf_tag(&scopes[i]) == DW_TAG_inlined_subroutine) {
			scope = scopes[i];
			site.scope = dwarf_dieoffset(&scope);
		}
	}
	free(scopes);
	if (!site.scope)
		return TARGET_UNRESOLVED;
	*found = true;	/* the DWARF has the code there: it has the say */
	if (!dw_find_variable(&site, name, &var, &function, NULL)) {
		if (!quiet) {	/* stap's words, and as stap names no alternatives here */
			const char *file = dwarf_decl_file(&scope);

			semantic_error(el, n->tok, "unable to find local '%s'," MAN_PAGE("error::dwarf")
				       " dieoffset %#" PRIx64 " in %s, near pc %#" PRIx64 " in %s %s "
				       "(<no alternatives>)", name, (uint64_t)site.scope, m->name,
				       site.addr, dwarf_diename(&scope) ? dwarf_diename(&scope) : "?",
				       file ? file : "");
		}
		return TARGET_UNRESOLVED;
	}
	return resolve_variable(el, &site, n, &var, &function, quiet) ? TARGET_RESOLVED :
									 TARGET_UNRESOLVED;
}

/* ---- pass 3: kprobes on symbol+offset, through runtime/kprobe.c ---- */

static void put_rule(struct strbuf *sb, const struct dw_frame_rule *rule)
{
	static const char *const bp[] = { "STP_BP_SAME", "STP_BP_SAVED", "STP_BP_LOST" };

	sb_printf(sb, "{ %d, %" PRId64 ", %s, %" PRId64 " }", rule->cfa_regno, rule->cfa_offset,
		  bp[rule->bp], rule->bp_offset);
}

/* ", .chain = &(const struct stp_call_chain){ ... }": a .callees(N) probe's frames
 * (runtime/callers.c), or NULL. */
static char *chain_initializer(const struct dwarf_probe *p)
{
	struct strbuf sb = { 0 };

	if (!p->nchain)
		return NULL;
	sb_puts(&sb, ", .chain = &(const struct stp_call_chain){ .rule = ");
	put_rule(&sb, &p->rule);
	sb_puts(&sb, ", .levels = (const struct stp_call_level[]){ ");
	for (int l = 0; l < p->nchain; l++) {
		sb_puts(&sb, "{ (const struct stp_call_return[]){ ");
		for (int i = 0; i < p->chain[l].nreturns; i++) {
			sb_printf(&sb, "%s{ %" PRId64 "L, ", i ? ", " : "", p->chain[l].returns[i].offset);
			put_rule(&sb, &p->chain[l].returns[i].rule);
			sb_puts(&sb, " }");
		}
		sb_printf(&sb, " }, %d }%s", p->chain[l].nreturns, l + 1 < p->nchain ? ", " : "");
	}
	sb_printf(&sb, " }, .nlevels = %d }", p->nchain);
	return sb_steal(&sb);
}

static void dwarf_entry(struct emitter *e, struct derived_probe *dp)
{
	struct dwarf_probe *p = dp->data;
	struct kprobe_entry entry = {
		.symbol = p->symbol,
		.offset = p->offset,
		.with_offset = true,
		.address = p->offset,
		.is_return = p->is_return,
		.maxactive = p->maxactive,
		.wait_for_module = (p->site.module && !p->site.module->is_kernel) ||
				   (p->btf && !p->btf->is_kernel),
		.callers = p->callers,
		.ncallers = p->ncallers,
		.chain = chain_initializer(p),
	};

	emit_kprobe_entry(e, dp, &entry);
	free((char *)entry.chain);
}

/* A uprobe on a program's or library's file: runtime/uprobe.c */
static void user_entry(struct emitter *e, struct derived_probe *dp)
{
	struct dwarf_probe *p = dp->data;
	struct strbuf *sb = &e->out;

	sb_printf(sb, "\t{ .probe = &stp_probes[%d], .path = ", dp->index);
	sb_put_c_string(sb, p->file);
	sb_printf(sb, ", .offset = %#" PRIx64 "UL, .vaddr = %#" PRIx64 "UL", p->offset, p->vaddr);
	if (p->process) {
		sb_puts(sb, ", .process = ");
		sb_put_c_string(sb, p->process);
	}
	if (p->is_return)
		sb_puts(sb, ", .is_return = true");
	emit_callers(sb, p->callers, p->ncallers);
	if (p->nchain) {
		char *chain = chain_initializer(p);

		sb_puts(sb, chain);
		free(chain);
	}
	if (p->is_return && dp->handler->nentries) {
		char *size = entry_offset(dp->handler, dp->handler->nentries);

		sb_printf(sb, ", .entry_probe = &probe_%d_entry_probe, .data_size = %s, "
			  ".entry_offset = %#" PRIx64 "UL, .entry_vaddr = %#" PRIx64 "UL, "
			  ".cfa_regno = %d, .cfa_offset = %" PRId64, dp->handler->index, size,
			  p->entry_offset, p->entry_vaddr, p->cfa_regno, p->cfa_offset);
		free(size);
	}
	sb_puts(sb, " },\n");
}

static int user_probe(const struct derived_probe *dp)
{
	const struct dwarf_probe *p = dp->data;

	return p->file != NULL;
}

/* The kernel's and modules' probes in one table (kprobes), the programs' in another. */
static void dwarf_emit(struct emitter *e, struct program *prog)
{
	static const struct probe_table tables[2] = {
		{ "struct stp_kprobe_probe", "stp_dwarf_probes", "stp_kprobes_register",
		  "stp_kprobes_unregister", dwarf_entry },
		{ "struct stp_uprobe_probe", "stp_dwarf_uprobes", "stp_uprobes_register",
		  "stp_uprobes_unregister", user_entry },
	};

	emit_probe_tables(e, prog, &dwarf_family, tables, user_probe);
}

static char *dwarf_list_variables(struct derived_probe *dp)
{
	struct dwarf_probe *p = dp->data;

	if (p && p->btf)
		return variables_from_btf(p->btf, p->btf_function, p->is_return);
	return p && p->site.module ? dw_site_variables(&p->site, p->is_return) : NULL;
}

const struct probe_family dwarf_family = {
	.name = "dwarf",
	.from_made = FROM_NAME,
	.templates = dwarf_templates,
	.build = dwarf_build,
	.resolve_target = dwarf_resolve_target,
	.list_variables = dwarf_list_variables,
	.emit = dwarf_emit,
};
