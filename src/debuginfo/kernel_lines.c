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
#include "line_table.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>

#define KLINES_MAGIC "stapler-klines-1\n"

static void put_varint(struct strbuf *sb, uint64_t v)
{
	while (v >= 0x80) {
		sb_putc(sb, (char)((v & 0x7f) | 0x80));
		v >>= 7;
	}
	sb_putc(sb, (char)v);
}

/* ROWS (by address, within 4 GB) encoded into T's blocks. */
static void encode(const struct line_table *lines, struct kernel_lines *t)
{
	uint64_t prev_addr = 0;
	uint32_t prev_line = 0, prev_file = 0;

	t->base = lines->rows[0].addr;
	for (size_t i = 0; i < lines->nrows; i++) {
		const struct line_row *r = &lines->rows[i];
		uint32_t rel = (uint32_t)(r->addr - t->base);
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
		changed = first || r->file != prev_file;
		delta = (int64_t)r->line - prev_line;
		put_varint(&t->stream, rel - prev_addr);
		put_varint(&t->stream, (uint64_t)(delta < 0 ? ~(delta << 1) : delta << 1) << 1 | changed);
		if (changed)
			put_varint(&t->stream, r->file);
		prev_addr = rel;
		prev_line = r->line;
		prev_file = r->file;
	}
	t->nrows = lines->nrows;
	t->file_offsets = xcalloc(lines->files.count + 1, sizeof(*t->file_offsets));
	for (uint32_t k = 0; k < lines->files.count; k++) {
		t->file_offsets[k] = (uint32_t)t->names.len;
		sb_puts(&t->names, lines->files.names[k]);
		sb_putc(&t->names, '\0');
	}
	t->nfiles = lines->files.count;
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
	struct line_table lines = { 0 };

	memset(t, 0, sizeof(*t));
	if (!dwfl)
		return false;
	m = dwfl_report_offline(dwfl, "kernel", vmlinux, -1);
	dwfl_report_end(dwfl, NULL, NULL);
	for (int i = 0, nsyms = m ? dwfl_module_getsymtab(m) : 0; i < nsyms; i++) {
		GElf_Sym sym;
		const char *name = dwfl_module_getsym(m, i, &sym, NULL);

		if (name && strcmp(name, KLINES_ANCHOR) == 0 && GELF_ST_TYPE(sym.st_info) == STT_FUNC)
			t->anchor = sym.st_value;
	}
	if (t->anchor && line_table_read(m, 0, 0, true, &lines) &&
	    lines.rows[lines.nrows - 1].addr - lines.rows[0].addr < UINT32_MAX)
		encode(&lines, t);
	line_table_free(&lines);
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
