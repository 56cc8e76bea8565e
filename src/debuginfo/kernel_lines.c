/*
 * kernel_lines.c - the kernel's source lines, for symfileline(), symline(), symfile() and
 * print_backtrace_fileline() (tapset/backtrace.stp, runtime/klines.c): the line table of
 * vmlinux's DWARF, compacted once per kernel and kept in the cache.
 *
 * The rows (address, file, line) of every compile unit's line program, by address; at
 * one address the row read last; a row that only repeats the file and line before it is
 * left out; a sequence's end is a row with line 0 (no line).  Addresses are offsets from
 * the lowest row's.  The rows are in blocks of KLINES_BLOCK, each decodable alone: the
 * index gives a block's first address and where its bytes start; in a block each row is
 *   varint(address - the row before's, or - the block's first address)
 *   varint(zigzag(line - the row before's line, or 0) << 1 | file changed)
 *   [varint(file number)]	when it changed (always in a block's first row)
 * The file numbers index the names, NUL-terminated one after another.  The link-time
 * address of KLINES_ANCHOR, a function the module can take the address of, gives the
 * runtime the kernel's relocation (KASLR).
 *
 * Debian 12's 6.1 kernel: 4.2 million rows, 1.13 million kept, 3181 files: about 4 MB,
 * read and written in about 1.5 s, once per kernel.
 */
#include "kernel_lines.h"
#include "cache.h"
#include "dw.h"
#include "hash.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>

#define KLINES_MAGIC "stapler-klines-1\n"

struct krow {
	uint64_t addr;
	uint32_t file, line, order;
};

static int compare_krows(const void *a, const void *b)
{
	const struct krow *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static void put_varint(struct strbuf *sb, uint64_t v)
{
	while (v >= 0x80) {
		sb_putc(sb, (char)((v & 0x7f) | 0x80));
		v >>= 7;
	}
	sb_putc(sb, (char)v);
}

/* The file number of NAME (added to NAMES and FILES if new): a linear probe table. */
struct file_table {
	const char **names;	/* by number */
	uint32_t count;
	uint32_t *slots;	/* number + 1, 0: empty */
	size_t cap;
};

static uint64_t hash_name(const char *s)
{
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static uint32_t file_number(struct file_table *ft, const char *name)
{
	size_t i;

	if (2 * (ft->count + 1) > ft->cap) {
		size_t cap = ft->cap ? 2 * ft->cap : 1024;
		uint32_t *slots = xcalloc(cap, sizeof(*slots));

		for (uint32_t k = 0; k < ft->count; k++) {
			for (i = hash_name(ft->names[k]) & (cap - 1); slots[i]; i = (i + 1) & (cap - 1))
				;
			slots[i] = k + 1;
		}
		free(ft->slots);
		ft->slots = slots;
		ft->cap = cap;
	}
	for (i = hash_name(name) & (ft->cap - 1); ft->slots[i]; i = (i + 1) & (ft->cap - 1))
		if (strcmp(ft->names[ft->slots[i] - 1], name) == 0)
			return ft->slots[i] - 1;
	ft->names = xrealloc(ft->names, (ft->count + 1) * sizeof(*ft->names));
	ft->names[ft->count] = name;
	ft->slots[i] = ++ft->count;
	return ft->count - 1;
}

/* The table of VMLINUX into T, or false (T empty). */
static bool read_table(const char *vmlinux, struct kernel_lines *t)
{
	static const Dwfl_Callbacks callbacks = {
		.find_debuginfo = dwfl_standard_find_debuginfo,
		.section_address = dwfl_offline_section_address,
	};
	Dwfl *dwfl = dwfl_begin(&callbacks);
	Dwfl_Module *m;
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias;
	struct file_table files = { 0 };
	struct krow *rows = NULL;
	size_t n = 0, cap = 0, kept = 0;
	struct strbuf names = { 0 };

	if (!dwfl)
		return false;
	m = dwfl_report_offline(dwfl, "kernel", vmlinux, -1);
	dwfl_report_end(dwfl, NULL, NULL);
	memset(t, 0, sizeof(*t));
	for (int i = 0, nsyms = m ? dwfl_module_getsymtab(m) : 0; i < nsyms; i++) {
		GElf_Sym sym;
		const char *name = dwfl_module_getsym(m, i, &sym, NULL);

		if (name && strcmp(name, KLINES_ANCHOR) == 0 && GELF_ST_TYPE(sym.st_info) == STT_FUNC)
			t->anchor = sym.st_value;
	}
	while (m && (cu = dwfl_module_nextcu(m, cu, &bias))) {
		Dwarf_Lines *lines;
		size_t count;

		if (dwarf_getsrclines(cu, &lines, &count) != 0)
			continue;
		for (size_t i = 0; i < count; i++) {
			Dwarf_Line *line = dwarf_onesrcline(lines, i);
			Dwarf_Addr addr;
			bool end = false;
			int lineno = 0;
			const char *name = NULL;

			if (!line || dwarf_lineaddr(line, &addr) != 0)
				continue;
			dwarf_lineendsequence(line, &end);
			dwarf_lineno(line, &lineno);
			if (!end && (!(name = dwarf_linesrc(line, NULL, NULL)) || lineno <= 0))
				continue;
			if (n == cap) {
				cap = cap ? 2 * cap : 1 << 16;
				rows = xrealloc(rows, cap * sizeof(*rows));
			}
			rows[n] = (struct krow){
				.addr = addr + bias, .file = end ? 0 : file_number(&files, name),
				.line = end ? 0 : (uint32_t)lineno, .order = (uint32_t)n,
			};
			n++;
		}
	}
	if (n) {
		qsort(rows, n, sizeof(*rows), compare_krows);
		for (size_t i = 0; i < n; i++) {
			if (kept && rows[kept - 1].addr == rows[i].addr)
				kept--;	/* the row read last */
			if (kept && rows[kept - 1].line == rows[i].line &&
			    (!rows[i].line || rows[kept - 1].file == rows[i].file))
				continue;	/* says nothing new */
			rows[kept++] = rows[i];
		}
	}
	if (t->anchor && kept && rows[kept - 1].addr - rows[0].addr < UINT32_MAX) {
		uint64_t prev_addr = 0;
		uint32_t prev_line = 0, prev_file = 0;

		t->base = rows[0].addr;
		for (size_t i = 0; i < kept; i++) {
			uint32_t rel = (uint32_t)(rows[i].addr - t->base);
			bool first = i % KLINES_BLOCK == 0, changed;
			int64_t delta;

			if (first) {
				t->index = xrealloc(t->index, (t->nblocks + 1) * sizeof(*t->index));
				t->index[t->nblocks].addr = rel;
				t->index[t->nblocks].offset = (uint32_t)t->stream.len;
				t->nblocks++;
				prev_addr = rel;
				prev_line = 0;
			}
			changed = first || rows[i].file != prev_file;
			delta = (int64_t)rows[i].line - prev_line;
			put_varint(&t->stream, rel - prev_addr);
			put_varint(&t->stream, ((uint64_t)(delta < 0 ? ~(delta << 1) : delta << 1)) << 1 |
					       changed);
			if (changed)
				put_varint(&t->stream, rows[i].file);
			prev_addr = rel;
			prev_line = rows[i].line;
			prev_file = rows[i].file;
		}
		t->nrows = kept;
		t->file_offsets = xcalloc(files.count + 1, sizeof(*t->file_offsets));
		for (uint32_t k = 0; k < files.count; k++) {
			t->file_offsets[k] = (uint32_t)names.len;
			sb_puts(&names, files.names[k]);
			sb_putc(&names, '\0');
		}
		t->nfiles = files.count;
		t->names = names;
	}
	free(rows);
	free(files.names);
	free(files.slots);
	dwfl_end(dwfl);
	return t->nrows > 0;
}

/*
 * The cache file: the magic, then "base anchor nrows nblocks nfiles streamlen nameslen\n" and
 * the index, the file offsets, the stream and the names, as they are in memory.
 */
static void save(const char *path, const struct kernel_lines *t)
{
	struct strbuf sb = { 0 };

	sb_printf(&sb, "%s%llu %llu %zu %zu %u %zu %zu\n", KLINES_MAGIC,
		  (unsigned long long)t->base, (unsigned long long)t->anchor, t->nrows, t->nblocks,
		  t->nfiles, t->stream.len, t->names.len);
	sb_putn(&sb, (const char *)t->index, t->nblocks * sizeof(*t->index));
	sb_putn(&sb, (const char *)t->file_offsets, t->nfiles * sizeof(*t->file_offsets));
	sb_putn(&sb, t->stream.data, t->stream.len);
	sb_putn(&sb, t->names.data, t->names.len);
	install_file(path, sb.data, sb.len);
	sb_free(&sb);
}

static bool load(const char *path, struct kernel_lines *t)
{
	size_t size = 0, nstream, nnames;
	char *data = read_file(path, &size), *p, *nl;
	unsigned long long base, anchor;
	unsigned nfiles;
	bool ok = false;

	memset(t, 0, sizeof(*t));
	if (!data || size < strlen(KLINES_MAGIC) ||
	    memcmp(data, KLINES_MAGIC, strlen(KLINES_MAGIC)) != 0)
		goto out;
	p = data + strlen(KLINES_MAGIC);
	nl = memchr(p, '\n', size - (p - data));
	if (!nl || sscanf(p, "%llu %llu %zu %zu %u %zu %zu", &base, &anchor, &t->nrows,
			  &t->nblocks, &nfiles, &nstream, &nnames) != 7)
		goto out;
	p = nl + 1;
	if ((size_t)(data + size - p) != t->nblocks * sizeof(*t->index) +
					   nfiles * sizeof(*t->file_offsets) + nstream + nnames)
		goto out;
	t->base = base;
	t->anchor = anchor;
	t->nfiles = nfiles;
	t->index = xmalloc(t->nblocks * sizeof(*t->index) + 1);
	memcpy(t->index, p, t->nblocks * sizeof(*t->index));
	p += t->nblocks * sizeof(*t->index);
	t->file_offsets = xmalloc(nfiles * sizeof(*t->file_offsets) + 1);
	memcpy(t->file_offsets, p, nfiles * sizeof(*t->file_offsets));
	p += nfiles * sizeof(*t->file_offsets);
	sb_putn(&t->stream, p, nstream);
	sb_putn(&t->names, p + nstream, nnames);
	ok = t->nrows > 0;
out:
	free(data);
	return ok;
}

bool kernel_lines_read(struct session *s, struct kernel_lines *t, const char **why)
{
	char *vmlinux = debuginfo_kernel_file(s), *cached;
	bool ok;

	memset(t, 0, sizeof(*t));
	*why = "no debuginfo for the kernel";
	if (!vmlinux)
		return false;
	cached = cache_path_for_file("klines", "vmlinux-", KLINES_MAGIC, vmlinux);
	ok = cache_mode == CACHE_USE && load(cached, t);
	if (!ok) {
		kernel_lines_free(t);
		*why = "no line table in the kernel's debuginfo";
		ok = read_table(vmlinux, t);
		if (ok && cache_mode != CACHE_DISABLED)
			save(cached, t);
	}
	free(cached);
	free(vmlinux);
	return ok;
}

void kernel_lines_free(struct kernel_lines *t)
{
	free(t->index);
	free(t->file_offsets);
	sb_free(&t->stream);
	sb_free(&t->names);
	memset(t, 0, sizeof(*t));
}

char *kernel_lines_cache_key(struct session *s, struct program *prog, char *key)
{
	struct hasher h;
	char *vmlinux, *extended;

	if (!program_uses_pragma(prog, "pragma:klines"))
		return key;
	vmlinux = debuginfo_kernel_file(s);
	hasher_init(&h);
	hash_string(&h, key);
	hash_string(&h, vmlinux ? vmlinux : "(no kernel debuginfo)");
	if (vmlinux)
		hash_file_stat(&h, vmlinux);
	free(vmlinux);
	free(key);
	extended = hasher_hex(&h);
	return extended;
}
