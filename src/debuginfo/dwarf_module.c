/*
 * dwarf_module.c - one object with DWARF (struct dw_module): opening it with libdwfl, the
 * tables read once from its ELF file, and the lookups in them.
 *
 * A kernel or module file is reported to its own libdwfl session "offline", which lays
 * out a module's sections and relocates its DWARF; a program's DWARF may be in a separate
 * file, which libdwfl looks for.  From each file's ELF symbol table, read once: the
 * function symbols (for -l's functions without DWARF, and "symbol+offset" anchors),
 * which names are exported, and the text kprobes may not touch: the .init/.exit
 * sections, the kernel's entry, irqentry, softirqentry, noinstr and kprobes text, and the
 * functions of its own kprobe blocklist (NOKPROBE_SYMBOL, the _kprobe_blacklist table).
 * The same tables may come from the cache instead (dwarf_cache.c).
 */
#include "dw.h"
#include "ctype.h"
#include "sdt.h"

#include <gelf.h>
#include <stdlib.h>
#include <string.h>

/* ---- opening a file with libdwfl ---- */

/* The file reported is the one with DWARF: no separate debuginfo to look for. */
static int no_separate_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
				 Dwarf_Addr base, const char *file_name,
				 const char *debuglink_file, GElf_Word debuglink_crc,
				 char **debuginfo_file_name)
{
	(void)mod, (void)userdata, (void)modname, (void)base, (void)file_name;
	(void)debuglink_file, (void)debuglink_crc, (void)debuginfo_file_name;
	return -1;
}

static const Dwfl_Callbacks offline_callbacks = {
	.find_debuginfo = no_separate_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/* A program's DWARF may be in a separate file: .gnu_debuglink, or by build-id under
 * /usr/lib/debug/.build-id (Debian's -dbg packages), as libdwfl looks for it; with
 * --sysroot, under the sysroot's /usr/lib/debug (as user_symbols.c and stap look). */
static char *user_debuginfo_path;
static const Dwfl_Callbacks user_callbacks = {
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &user_debuginfo_path,
};

/* M's file reported to a libdwfl session of its own; false if it cannot be read. */
static bool report_file(struct dw_module *m)
{
	if (m->is_user) {
		free(user_debuginfo_path);
		user_debuginfo_path = m->session && m->session->sysroot ?
			xasprintf(":.debug:%s/usr/lib/debug", m->session->sysroot) : NULL;
	}
	m->dwfl = dwfl_begin(m->is_user ? &user_callbacks : &offline_callbacks);
	if (!m->dwfl)
		return false;
	dwfl_report_begin(m->dwfl);
	/* a program at its link-time addresses (offline, libdwfl would move a PIE one) */
	m->dwfl_module = m->is_user ? dwfl_report_elf(m->dwfl, m->name, m->path, -1, 0, false) :
				      dwfl_report_offline(m->dwfl, m->name, m->path, -1);
	dwfl_report_end(m->dwfl, NULL, NULL);
	return m->dwfl_module != NULL;
}

bool dw_module_open(struct dw_module *m)
{
	if (m->dwarf || m->open_failed)
		return m->dwarf != NULL;
	m->open_failed = true;
	if (!report_file(m))
		return false;
	m->dwarf = dwfl_module_getdwarf(m->dwfl_module, &m->bias);
	m->elf = dwfl_module_getelf(m->dwfl_module, &m->bias);
	if (!m->dwarf || !m->elf) {
		m->dwarf = NULL;
		return false;
	}
	m->open_failed = false;
	return true;
}

bool dw_module_open_symbols(struct dw_module *m)
{
	m->symbols_only = true;
	m->open_failed = true;	/* no DWARF to open later */
	if (!m->dwfl)	/* else dw_module_open() reported it already */
		report_file(m);
	if (!m->dwfl_module)
		return false;
	m->elf = dwfl_module_getelf(m->dwfl_module, &m->bias);
	return m->elf != NULL;
}

/* ---- the tables ---- */

static int compare_symbols(const void *a, const void *b)
{
	const struct dw_symbol *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->function != y->function)		/* a function before others at its address */
		return x->function ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int compare_ranges(const void *a, const void *b)
{
	const struct dw_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static void add_range(struct dw_range **ranges, int *count, uint64_t start, uint64_t end,
		      const char *why)
{
	if (end <= start)
		return;
	*ranges = xrealloc(*ranges, (*count + 1) * sizeof(**ranges));
	(*ranges)[(*count)++] = (struct dw_range){ start, end, why };
}

static void block(struct dw_module *m, uint64_t start, uint64_t end, const char *why)
{
	add_range(&m->blocked, &m->nblocked, start, end, why);
}

static bool name_listed(const char **sorted, int count, const char *name)
{
	return bsearch(&name, sorted, count, sizeof(*sorted), compare_strings) != NULL;
}

/* A growing array of borrowed names (they point into the ELF's string table). */
struct borrowed_names {
	const char **items;
	int count, cap;
};

static void add_name(struct borrowed_names *l, const char *name)
{
	if (l->count == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 1024;
		l->items = xrealloc(l->items, l->cap * sizeof(*l->items));
	}
	l->items[l->count++] = name;
}

/* The named symbols: functions by address, every name sorted (uniqueness, exports). */
static void read_symbols(struct dw_module *m)
{
	int n = dwfl_module_getsymtab(m->dwfl_module), symbols_cap = 0;
	struct borrowed_names names = { 0 }, exported = { 0 };

	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *name = dwfl_module_getsym_info(m->dwfl_module, i, &sym, &addr, &shndx,
							   NULL, NULL);
		int type = GELF_ST_TYPE(sym.st_info);

		if (!name || !*name || sym.st_shndx == SHN_UNDEF || type == STT_SECTION ||
		    type == STT_FILE)
			continue;
		add_name(&names, name);
		if (starts_with(name, "__ksymtab_"))
			add_name(&exported, name + strlen("__ksymtab_"));
		if (m->nsymbols == symbols_cap) {
			symbols_cap = symbols_cap ? symbols_cap * 2 : 1024;
			m->symbols = xrealloc(m->symbols, symbols_cap * sizeof(*m->symbols));
		}
		m->symbols[m->nsymbols++] = (struct dw_symbol){
			.name = name, .addr = addr, .size = sym.st_size, .function = type == STT_FUNC,
			.order = i,
		};
	}
	if (names.count)
		qsort(names.items, names.count, sizeof(*names.items), compare_strings);
	if (exported.count)
		qsort(exported.items, exported.count, sizeof(*exported.items), compare_strings);
	for (int i = 0; i < m->nsymbols; i++) {
		struct dw_symbol *s = &m->symbols[i];
		const char **at = bsearch(&s->name, names.items, names.count, sizeof(*names.items),
					  compare_strings);

		s->unique = at && (at == names.items || strcmp(at[-1], s->name) != 0) &&
			    (at + 1 == names.items + names.count || strcmp(at[1], s->name) != 0);
		s->exported = name_listed(exported.items, exported.count, s->name);
	}
	if (m->nsymbols)
		qsort(m->symbols, m->nsymbols, sizeof(*m->symbols), compare_symbols);
	m->names = names.items;
	m->nnames = names.count;
	m->exported = exported.items;
	m->nexported = exported.count;
}

const struct dw_symbol *dw_symbol_named(struct dw_module *m, const char *name)
{
	for (int i = 0; i < m->nsymbols; i++)
		if (strcmp(m->symbols[i].name, name) == 0)
			return &m->symbols[i];
	return NULL;
}

/* The kernel's own kprobe blocklist: NOKPROBE_SYMBOL()'s table of function addresses. */
static void block_nokprobe_functions(struct dw_module *m)
{
	const struct dw_symbol *start = dw_symbol_named(m, "__start_kprobe_blacklist");
	const struct dw_symbol *stop = dw_symbol_named(m, "__stop_kprobe_blacklist");
	Elf_Scn *scn = NULL;

	if (!start || !stop || stop->addr <= start->addr)
		return;
	while ((scn = elf_nextscn(m->elf, scn))) {
		GElf_Shdr shdr;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_PROGBITS ||
		    start->addr < shdr.sh_addr || stop->addr > shdr.sh_addr + shdr.sh_size)
			continue;
		data = elf_getdata(scn, NULL);
		for (uint64_t a = start->addr; data && a + 8 <= stop->addr; a += 8) {
			uint64_t function;
			const struct dw_symbol *f;

			memcpy(&function, (char *)data->d_buf + (a - shdr.sh_addr), 8);
			f = dw_symbol_at(m, function);
			if (f && f->addr == function)
				block(m, f->addr, f->addr + (f->size ? f->size : 1), "blocklisted");
		}
		return;
	}
}

/* Text kprobes may not touch: sections by name, and the kernel's marked areas. */
static void read_blocked_text(struct dw_module *m)
{
	static const char *const sections[] = {
		".init.text", ".exit.text", ".noinstr.text", ".entry.text", ".kprobes.text",
		".irqentry.text", ".softirqentry.text", NULL,
	};
	static const char *const areas[] = {
		"__kprobes_text", "__entry_text", "__irqentry_text", "__softirqentry_text",
		"__noinstr_text", NULL,
	};
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(m->elf, &shstrndx) == 0) {
		while ((scn = elf_nextscn(m->elf, scn))) {
			GElf_Shdr shdr;
			const char *name;

			if (!gelf_getshdr(scn, &shdr) || !(shdr.sh_flags & SHF_EXECINSTR) ||
			    !(name = elf_strptr(m->elf, shstrndx, shdr.sh_name)))
				continue;
			if (strcmp(name, ".text") == 0 && !m->text_start)
				m->text_start = shdr.sh_addr;
			add_range(&m->text, &m->ntext, shdr.sh_addr, shdr.sh_addr + shdr.sh_size,
				  name);
			for (int i = 0; sections[i]; i++)
				if (strcmp(name, sections[i]) == 0)
					block(m, shdr.sh_addr, shdr.sh_addr + shdr.sh_size,
					      "blocklisted section");
		}
	}
	for (int i = 0; areas[i]; i++) {
		char *first = xasprintf("%s_start", areas[i]), *last = xasprintf("%s_end", areas[i]);
		const struct dw_symbol *a = dw_symbol_named(m, first), *b = dw_symbol_named(m, last);

		if (a && b)
			block(m, a->addr, b->addr, "blocklisted section");
		free(first);
		free(last);
	}
	if (m->is_kernel) {
		const struct dw_symbol *stext = dw_symbol_named(m, "_stext");

		if (stext)
			m->text_start = stext->addr;
		block_nokprobe_functions(m);
	}
	if (m->nblocked)
		qsort(m->blocked, m->nblocked, sizeof(*m->blocked), compare_ranges);
}

void dw_module_read_tables(struct dw_module *m)
{
	read_symbols(m);
	read_blocked_text(m);
}

void dw_module_drop_tables(struct dw_module *m)
{
	if (m->index) {
		free(m->index->functions);
		free(m->index->types);
		free(m->index->globals);
		free(m->index->declared);
	}
	free(m->index);
	free(m->cache_blob);
	free(m->symbols);
	free(m->names);
	free(m->exported);
	free(m->blocked);
	free(m->text);
	m->index = NULL;
	m->cache_blob = NULL;
	m->symbols = NULL;
	m->nsymbols = m->nnames = m->nexported = m->nblocked = m->ntext = 0;
	m->names = m->exported = NULL;
	m->blocked = m->text = NULL;
	m->text_start = 0;
}

void dw_module_free(struct dw_module *m)
{
	if (m->dwarf)
		ctype_forget(m->dwarf);	/* a later Dwarf at its address must not find them */
	if (m->dwfl)
		dwfl_end(m->dwfl);
	for (int i = 0; i < m->ntracepoints; i++)
		free(m->tracepoints[i].system);
	free(m->tracepoints);
	dw_module_drop_tables(m);
	free(m->name);
	free(m->path);
	free(m);
}

/* ---- the ELF file ---- */

bool dw_file_offset(struct dw_module *m, uint64_t addr, uint64_t *offset)
{
	return m->elf && elf_vaddr_to_offset(m->elf, addr - m->bias, offset);
}

bool dw_relocatable(const struct dw_module *m)
{
	GElf_Ehdr eh;

	return m->elf && gelf_getehdr(m->elf, &eh) && eh.e_type == ET_DYN;
}

/* ---- symbols and the text kprobes may not touch ---- */

/* The index of the last symbol at or before ADDR, or -1. */
static int symbol_index_before(struct dw_module *m, uint64_t addr)
{
	int lo = 0, hi = m->nsymbols - 1, best = -1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;

		if (m->symbols[mid].addr <= addr) {
			best = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return best;
}

const struct dw_symbol *dw_symbol_at(struct dw_module *m, uint64_t addr)
{
	const struct dw_symbol *found = NULL;

	/* a few symbols may share the address or lie inside the function (labels) */
	for (int i = symbol_index_before(m, addr); i >= 0 && !found; i--) {
		const struct dw_symbol *s = &m->symbols[i];

		if (s->function && addr < s->addr + (s->size ? s->size : 1))
			found = s;
		else if (s->function)
			break;
	}
	return found;
}

const struct dw_symbol *dw_object_symbol(struct dw_module *m, uint64_t addr)
{
	for (int i = symbol_index_before(m, addr), seen = 0; i >= 0 && seen < 64; i--, seen++) {
		const struct dw_symbol *s = &m->symbols[i];

		if (!s->function && s->unique && addr < s->addr + (s->size ? s->size : 1))
			return s;
	}
	return NULL;
}

const char *dw_blocked(struct dw_module *m, uint64_t addr)
{
	const char *why = NULL;

	for (int i = 0; i < m->nblocked && m->blocked[i].start <= addr; i++)
		if (addr < m->blocked[i].end && (!why || strcmp(why, "blocklisted") != 0))
			why = m->blocked[i].why;
	return why;
}

/*
 * Whether ADDR starts a part GCC split off a function (foo.part.0): only the function
 * itself calls it, so it is no entry of the function's, and -l lists it by that name.
 */
bool dw_partial_copy(struct dw_module *m, uint64_t addr)
{
	const struct dw_symbol *s = dw_symbol_at(m, addr);

	return s && s->addr == addr && strstr(s->name, ".part.");
}

bool dw_in_text(struct dw_module *m, uint64_t addr)
{
	for (int i = 0; i < m->ntext; i++)
		if (m->text[i].start <= addr && addr < m->text[i].end)
			return true;
	return false;
}

bool dw_usable(struct dw_module *m, uint64_t addr)
{
	return dw_in_text(m, addr) && !dw_blocked(m, addr);
}

bool dw_name_unique(struct dw_module *m, const char *name)
{
	const char **at = bsearch(&name, m->names, m->nnames, sizeof(*m->names), compare_strings);

	return at && (at == m->names || strcmp(at[-1], name) != 0) &&
	       (at + 1 == m->names + m->nnames || strcmp(at[1], name) != 0);
}

bool dw_name_exported(struct dw_module *m, const char *name)
{
	return name_listed(m->exported, m->nexported, name);
}

/*
 * The symbol to place a probe at ADDR from: the function holding it if its name is
 * unique (the kernel finds a name's first symbol), else the nearest unique function
 * before it in the same function-dense text.  The kernel's probes fall back on _stext.
 */
const struct dw_symbol *dw_anchor(struct dw_module *m, uint64_t addr)
{
	const struct dw_symbol *f = dw_symbol_at(m, addr);

	if (f && f->unique)
		return f;
	for (int i = symbol_index_before(m, addr); i >= 0; i--) {
		const struct dw_symbol *s = &m->symbols[i];

		if (addr - s->addr >= (1u << 20))
			break;
		if (s->function && s->unique)
			return s;
	}
	if (m->is_kernel)
		return dw_symbol_named(m, "_stext");
	return NULL;
}
