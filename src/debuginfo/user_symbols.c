/*
 * user_symbols.c - the symbols and unwind tables of user-space programs and libraries
 * that the module carries for usymname(), ubacktrace() and the other functions of
 * tapset/ubacktrace.stp (user_symbols.h; translate/user_symbols_c.c writes them).
 *
 * Which files: those the script's probes are in (the probe families record them with
 * user_file_add() as they place a probe), those named with -d PATH, and with --ldd the
 * shared libraries all of these need, found as the dynamic loader finds them (each
 * DT_NEEDED name in the run path of the object needing it, then in the usual folders),
 * under --sysroot when one is given.  A file named with -d that cannot be read is a
 * warning, as in stap ("missing unwind/symbol data for module 'PATH'").
 *
 * Per file, only when the program uses those functions (their embedded C says
 * "pragma:usymbols"):
 *   - its path where the module runs, its GNU build-id (umodbuildid()) and its PT_LOAD
 *     segments (file offset to link-time address, for an address of a mapping of the
 *     file);
 *   - its function and object symbols: from .symtab, else .dynsym (libdwfl's choice,
 *     which also looks for a separate debuginfo file by build-id under the sysroot's
 *     /usr/lib/debug, as stap does); several names at one address: the last in the
 *     table; each reaches to the next one's start, and the last one to the end of the
 *     file's range with a size of 0, as stap 4.8 sizes them;
 *   - an unwind table from its call frame information (.eh_frame, else .debug_frame):
 *     for each address range, the CFA as a DWARF register plus an offset and the slot
 *     below the CFA where the caller's rbp was saved, when the return address is at
 *     CFA - 8 (x86-64), or the linker's rule for a PLT's entries; ranges whose rule is
 *     anything else have no rule (the unwinding stops there), and consecutive ranges
 *     with the same rule are one.
 */
#include "user_symbols.h"
#include "line_table.h"
#include "cache.h"
#include "hash.h"
#include "dw.h"

#include <dwarf.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- which files ---- */

/* The session's record of TARGET (added if new). */
static struct user_file *add_file(struct session *s, const char *target, const char *file)
{
	for (int i = 0; i < s->nuser_files; i++)
		if (strcmp(s->user_files[i].target, target) == 0)
			return &s->user_files[i];
	s->user_files = xrealloc(s->user_files, (s->nuser_files + 1) * sizeof(*s->user_files));
	s->user_files[s->nuser_files] = (struct user_file){
		.target = xstrdup(target), .file = xstrdup(file),
	};
	return &s->user_files[s->nuser_files++];
}

void user_file_add(struct session *s, const char *target, const char *file)
{
	add_file(s, target, file);
}

/* The warnings about the files that -W made errors, counted (once a run). */
static int resolve_errors;

int user_files_resolve(struct session *s)
{
	static struct session *done;

	if (done == s)
		return resolve_errors;
	done = s;
	for (int i = 0; i < s->symbol_programs.count; i++) {
		const char *path = s->symbol_programs.items[i];
		char *target, *file, *why;

		if (program_path(s, path, &target, &file, &why)) {
			add_file(s, target, file)->named = true;
			free(target);
			free(file);
		} else {
			resolve_errors += diag_warning("missing unwind/symbol data for module '%s'",
						       path);
			free(why);
		}
	}
	/* the list grows as it is walked: the libraries' own libraries come too */
	for (int i = 0; s->ldd && i < s->nuser_files; i++) {
		struct strlist targets = { 0 }, files = { 0 };
		char *why = NULL;

		/* what is not found is left out, as ldd's "not found" */
		program_libraries(s, s->user_files[i].file, "*", &targets, &files, &why);
		for (int k = 0; k < targets.count; k++)
			user_file_add(s, targets.items[k], files.items[k]);
		strlist_free(&targets);
		strlist_free(&files);
		free(why);
	}
	return resolve_errors;
}

bool program_uses_pragma(struct program *prog, const char *pragma)
{
	for (struct function *f = prog->functions; f; f = f->next_used)
		if (f->embedded && strstr(f->embedded->text, pragma))
			return true;
	return false;
}

/* ---- one file's tables ---- */

struct symbol_entry {
	uint64_t addr;
	int index;		/* in the symbol table: the last one at an address wins */
	const char *name;
};

/* The rule fields, as runtime/usymbols.c reads them. */
#define RULE_NONE 0x1f
#define RULE_PLT 17		/* a PLT entry's CFA (plt_cfa) */
#define RULE_BP_LOST 0xf
#define RULE_MAX_OFFSET ((1u << 23) - 1)

static char *debuginfo_path;
static const Dwfl_Callbacks symbol_callbacks = {
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

/* A location expression [DW_OP_call_frame_cfa, DW_OP_plus_uconst N]: N, as libdw gives
 * an "offset(N)" rule. */
static bool cfa_offset_rule(const Dwarf_Op *ops, size_t n, int64_t *offset)
{
	if (n != 2 || ops[0].atom != DW_OP_call_frame_cfa || ops[1].atom != DW_OP_plus_uconst)
		return false;
	*offset = (int64_t)ops[1].number;
	return true;
}

/*
 * The CFA of a procedure linkage table's entries, as the linker describes it:
 * rsp + 8 + ((rip & 15) >= K ? 8 : 0) (the push of an entry moved rsp); K, or -1.
 */
static int plt_cfa(const Dwarf_Op *ops, size_t n)
{
	static const uint8_t pattern[] = {
		DW_OP_breg7, DW_OP_breg16, DW_OP_lit15, DW_OP_and, 0, DW_OP_ge, DW_OP_lit3,
		DW_OP_shl, DW_OP_plus,
	};

	if (n != sizeof(pattern) || ops[0].number != 8 || ops[1].number != 0 ||
	    ops[4].atom < DW_OP_lit0 || ops[4].atom > DW_OP_lit15)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (pattern[i] && ops[i].atom != pattern[i])
			return -1;
	return ops[4].atom - DW_OP_lit0;
}

/* The rule of FRAME (see runtime/usymbols.c), or RULE_NONE. */
static uint32_t frame_rule(Dwarf_Frame *frame)
{
	Dwarf_Op *ops, mem[3];
	size_t n;
	int reg, plt;
	int64_t offset, ra, bp;
	uint32_t slot;

	if (dwarf_frame_cfa(frame, &ops, &n) != 0)
		return RULE_NONE;
	plt = plt_cfa(ops, n);
	if (plt >= 0) {		/* the PLT rule: register 17, K as the offset */
		reg = RULE_PLT;
		offset = plt;
	} else if (n != 1) {
		return RULE_NONE;
	} else if (ops[0].atom == DW_OP_bregx) {
		reg = (int)ops[0].number;
		offset = (int64_t)ops[0].number2;
	} else if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		reg = ops[0].atom - DW_OP_breg0;
		offset = (int64_t)ops[0].number;
	} else {
		return RULE_NONE;
	}
	if (reg < 0 || (reg > 16 && reg != RULE_PLT) || (offset <= 0 && reg != RULE_PLT) ||
	    offset > RULE_MAX_OFFSET)
		return RULE_NONE;
	/* the return address (column 16) where a call leaves it */
	if (dwarf_frame_register(frame, 16, mem, &ops, &n) != 0 || !ops ||
	    !cfa_offset_rule(ops, n, &ra) || ra != -8)
		return RULE_NONE;
	if (dwarf_frame_register(frame, 6, mem, &ops, &n) != 0)
		slot = RULE_BP_LOST;
	else if (!ops)
		slot = 0;			/* same value: the caller's rbp is rbp */
	else if (cfa_offset_rule(ops, n, &bp) && bp < 0 && bp % 8 == 0 && -bp / 8 < RULE_BP_LOST)
		slot = (uint32_t)(-bp / 8);
	else
		slot = RULE_BP_LOST;
	return (uint32_t)reg | slot << 5 | (uint32_t)offset << 9;
}

/* A row at ADDR (from LOW): a later one at the same address replaces it, and one with
 * the rule already in force adds nothing. */
static void add_row(struct user_table *t, uint64_t addr, uint32_t rule)
{
	uint32_t rel = (uint32_t)(addr - t->low);

	if (t->nrows && t->rows[t->nrows - 1].addr == rel) {
		t->nrows--;
		if (t->nrows && t->rows[t->nrows - 1].rule == rule)
			return;
	} else if (t->nrows && t->rows[t->nrows - 1].rule == rule) {
		return;
	}
	if (t->nrows == t->rows_cap) {
		t->rows_cap = t->rows_cap ? 2 * t->rows_cap : 1024;
		t->rows = xrealloc(t->rows, t->rows_cap * sizeof(*t->rows));
	}
	t->rows[t->nrows++] = (struct unwind_row){ rel, rule };
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The initial locations of .eh_frame_hdr's search table (the usual encodings only). */
static void eh_frame_hdr_starts(Elf *elf, uint64_t **starts, int *count)
{
	size_t phnum;

	if (elf_getphdrnum(elf, &phnum) != 0)
		return;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		size_t size;
		const unsigned char *image = (const unsigned char *)elf_rawfile(elf, &size), *hdr;
		uint32_t n;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_GNU_EH_FRAME || !image ||
		    ph.p_offset + ph.p_filesz > size || ph.p_filesz < 12)
			continue;
		hdr = image + ph.p_offset;
		/* version 1; eh_frame_ptr sdata4; fde_count udata4; table datarel sdata4 */
		if (hdr[0] != 1 || (hdr[1] & 0x0f) != 0x0b || hdr[2] != 0x03 || hdr[3] != 0x3b)
			return;
		memcpy(&n, hdr + 8, 4);
		if (12 + (uint64_t)n * 8 > ph.p_filesz)
			return;
		*starts = xrealloc(*starts, (*count + n) * sizeof(**starts));
		for (uint32_t k = 0; k < n; k++) {
			int32_t location;

			memcpy(&location, hdr + 12 + 8 * k, 4);
			(*starts)[(*count)++] = ph.p_vaddr + (int64_t)location;
		}
		return;
	}
}

/*
 * The unwind rows of CFI: from each place an FDE may start (.eh_frame_hdr's table, the
 * function symbols, the executable segments), the ranges libdw gives one after another
 * until an address no FDE covers, which gets a row without a rule.
 */
static void read_unwind(struct user_table *t, Dwarf_CFI *cfi, Dwarf_Addr bias, uint64_t *starts,
			int nstarts)
{
	uint64_t covered = 0;

	qsort(starts, nstarts, sizeof(*starts), compare_u64);
	for (int i = 0; i < nstarts; i++) {
		uint64_t at = starts[i];

		if (at < covered || at < t->low || at >= t->low + t->size)
			continue;
		for (;;) {
			Dwarf_Frame *frame;
			Dwarf_Addr start, end;

			if (dwarf_cfi_addrframe(cfi, at - bias, &frame) != 0)
				break;
			dwarf_frame_info(frame, &start, &end, NULL);
			add_row(t, at, frame_rule(frame));
			free(frame);
			if (end + bias <= at || end + bias > t->low + t->size)
				break;
			at = end + bias;
		}
		if (at > starts[i]) {
			add_row(t, at, RULE_NONE);
			covered = at;
		}
	}
}

static int compare_symbols(const void *a, const void *b)
{
	const struct symbol_entry *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->index - y->index;
}

uint32_t user_string_add(struct strbuf *strings, const char *name)
{
	uint32_t at = (uint32_t)strings->len;

	sb_puts(strings, name);
	sb_putc(strings, '\0');
	return at;
}

/* The symbols of M into T (and their names into STRINGS); the functions' starts too. */
static void read_symbols(struct user_table *t, Dwfl_Module *m, struct strbuf *strings,
			 uint64_t **starts, int *nstarts)
{
	int n = dwfl_module_getsymtab(m), count = 0, kept = 0;
	struct symbol_entry *syms = xcalloc(n > 0 ? n : 1, sizeof(*syms));

	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *name = dwfl_module_getsym_info(m, i, &sym, &addr, &shndx, NULL, NULL);
		int type = GELF_ST_TYPE(sym.st_info);

		if (!name || !*name || (type != STT_FUNC && type != STT_GNU_IFUNC &&
					type != STT_OBJECT) ||
		    sym.st_shndx == SHN_UNDEF || addr < t->low || addr >= t->low + t->size)
			continue;
		syms[count++] = (struct symbol_entry){ addr, i, name };
		if (type != STT_OBJECT) {
			*starts = xrealloc(*starts, (*nstarts + 1) * sizeof(**starts));
			(*starts)[(*nstarts)++] = addr;
		}
	}
	qsort(syms, count, sizeof(*syms), compare_symbols);
	for (int i = 0; i < count; i++) {	/* the last of the names at an address */
		if (kept && syms[kept - 1].addr == syms[i].addr)
			kept--;
		syms[kept++] = syms[i];
	}
	/* a symbol reaches to the next one; the last, to the end of the file's range */
	t->sym_addrs = xcalloc(kept + 1, sizeof(*t->sym_addrs));
	t->sym_names = xcalloc(kept + 1, sizeof(*t->sym_names));
	for (int i = 0; i < kept; i++) {
		t->sym_addrs[i] = (uint32_t)(syms[i].addr - t->low);
		t->sym_names[i] = user_string_add(strings, syms[i].name);
	}
	t->sym_addrs[kept] = (uint32_t)t->size;
	t->nsyms = kept;
	free(syms);
}

/* T's segments from ELF, and the range they span; false if it has none. */
static bool read_segments(struct user_table *t, Elf *elf)
{
	size_t phnum;
	uint64_t low = UINT64_MAX, high = 0;

	if (elf_getphdrnum(elf, &phnum) != 0)
		return false;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		t->segments = xrealloc(t->segments, (t->nsegments + 1) * sizeof(*t->segments));
		t->segments[t->nsegments++] = (struct user_segment){
			ph.p_offset, ph.p_vaddr, ph.p_memsz, (ph.p_flags & PF_X) != 0,
		};
		if (ph.p_vaddr < low)
			low = ph.p_vaddr;
		if (ph.p_vaddr + ph.p_memsz > high)
			high = ph.p_vaddr + ph.p_memsz;
	}
	if (!t->nsegments)
		return false;
	t->low = low & ~(uint64_t)0xfff;
	t->size = ((high + 0xfff) & ~(uint64_t)0xfff) - t->low;
	return t->size <= UINT32_MAX;
}

/* The line table of M's DWARF (line_table.c) into T, its file names into STRINGS. */
static void read_lines(struct user_table *t, Dwfl_Module *m, struct strbuf *strings)
{
	struct line_table lines;
	uint32_t *offsets;

	if (!line_table_read(m, t->low, t->size, true, &lines))
		return;
	offsets = xcalloc(lines.files.count + 1, sizeof(*offsets));
	for (uint32_t k = 0; k < lines.files.count; k++)
		offsets[k] = user_string_add(strings, lines.files.names[k]);
	t->lines = xcalloc(lines.nrows, sizeof(*t->lines));
	for (size_t i = 0; i < lines.nrows; i++)
		t->lines[i] = (struct user_line){
			.addr = (uint32_t)(lines.rows[i].addr - t->low),
			.file = lines.rows[i].line ? offsets[lines.rows[i].file] : 0,
			.line = lines.rows[i].line,
		};
	t->nlines = (int)lines.nrows;
	free(offsets);
	line_table_free(&lines);
}

/* The GNU build-id of M in lowercase hex, NULL when it has none. */
static char *build_id_hex(Dwfl_Module *m)
{
	const unsigned char *bits;
	GElf_Addr where;
	int n = dwfl_module_build_id(m, &bits, &where);
	char *hex;

	if (n <= 0)
		return NULL;
	hex = xmalloc(2 * n + 1);
	for (int i = 0; i < n; i++)
		sprintf(hex + 2 * i, "%02x", bits[i]);
	return hex;
}

bool user_table_read(struct session *s, const struct user_file *uf, struct user_table *t,
			   struct strbuf *strings, bool want_lines, const char **why)
{
	int fd = open(uf->file, O_RDONLY | O_CLOEXEC);
	Elf *elf = NULL;
	Dwfl *dwfl = NULL;
	Dwfl_Module *m;
	Dwarf_CFI *cfi;
	Dwarf_Addr bias;
	GElf_Ehdr eh = { 0 };
	uint64_t *starts = NULL;
	int nstarts = 0;
	bool ok = false;

	memset(t, 0, sizeof(*t));
	t->uf = uf;
	*why = fd < 0 ? strerror(errno) : "not an ELF file with program headers";
	elf_version(EV_CURRENT);
	if (fd < 0 || !(elf = elf_begin(fd, ELF_C_READ_MMAP, NULL)) || !read_segments(t, elf))
		goto out;
	free(debuginfo_path);
	debuginfo_path = s->sysroot ? xasprintf(":.debug:%s/usr/lib/debug", s->sysroot) : NULL;
	dwfl = dwfl_begin(&symbol_callbacks);
	if (!dwfl)
		goto out;
	dwfl_report_begin(dwfl);
	/* at its link-time addresses, as pass 2 places the probes */
	m = dwfl_report_elf(dwfl, uf->target, uf->file, -1, 0, false);
	dwfl_report_end(dwfl, NULL, NULL);
	if (!m)
		goto out;
	read_symbols(t, m, strings, &starts, &nstarts);
	t->build_id = build_id_hex(m);
	if (want_lines)
		read_lines(t, m, strings);
	for (int i = 0; i < t->nsegments; i++) {
		if (!t->segments[i].exec)
			continue;
		starts = xrealloc(starts, (nstarts + 1) * sizeof(*starts));
		starts[nstarts++] = t->segments[i].vaddr;
	}
	/* the rules are x86-64's (rsp, rbp, the return address at CFA - 8) */
	cfi = gelf_getehdr(elf, &eh) && eh.e_machine == EM_X86_64 &&
	      eh.e_ident[EI_CLASS] == ELFCLASS64 ? dwarf_getcfi_elf(elf) : NULL;
	bias = 0;
	if (cfi)
		eh_frame_hdr_starts(elf, &starts, &nstarts);
	else if (eh.e_machine == EM_X86_64 && eh.e_ident[EI_CLASS] == ELFCLASS64)
		cfi = dwfl_module_dwarf_cfi(m, &bias);	/* .debug_frame */
	if (cfi)
		read_unwind(t, cfi, bias, starts, nstarts);
	*why = "no symbols and no call frame information";
	ok = t->nsyms > 0 || t->nrows > 0;
out:
	free(starts);
	if (dwfl)
		dwfl_end(dwfl);
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return ok;
}

void user_table_free(struct user_table *t)
{
	free(t->segments);
	free(t->sym_addrs);
	free(t->sym_names);
	free(t->rows);
	free(t->build_id);
	free(t->lines);
}

/* ---- the module cache ---- */

/* What the tables are made of: each file's identity, and that of its debuginfo. */
char *user_symbols_cache_key(struct session *s, struct program *prog, char *key)
{
	struct hasher h;

	if (!program_uses_pragma(prog, "pragma:usymbols") && !s->symbol_programs.count)
		return key;
	user_files_resolve(s);
	hasher_init(&h);
	hash_string(&h, key);
	hash_string(&h, s->sysroot);
	for (int i = 0; i < s->nuser_files; i++) {
		const struct user_file *uf = &s->user_files[i];
		int fd = open(uf->file, O_RDONLY | O_CLOEXEC);
		Elf *elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ_MMAP, NULL);
		const void *id;
		ssize_t len = elf ? dwelf_elf_gnu_build_id(elf, &id) : -1;

		hash_string(&h, uf->target);
		hash_file_stat(&h, uf->file);
		if (len > 0) {	/* where libdwfl would find its debuginfo by build-id */
			const unsigned char *b = id;
			struct strbuf path = { 0 };

			sb_printf(&path, "%s/usr/lib/debug/.build-id/%02x/", s->sysroot ? s->sysroot : "",
				  b[0]);
			for (ssize_t k = 1; k < len; k++)
				sb_printf(&path, "%02x", b[k]);
			sb_puts(&path, ".debug");
			hash_file_stat(&h, path.data);
			sb_free(&path);
		}
		if (elf)
			elf_end(elf);
		if (fd >= 0)
			close(fd);
	}
	free(key);
	return hasher_hex(&h);
}

