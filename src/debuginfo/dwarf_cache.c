/*
 * dwarf_cache.c - a module's symbols and function index, kept in the cache.
 *
 * Reading the kernel's symbol table and walking its DWARF take about a second; the
 * result depends only on the debuginfo file and on this program, so it is kept under
 * CACHE/dwarf/NAME-KEY, KEY a hash of the file's path, size, time and inode and of the
 * stap executable (so that it is found without opening the file).  A later run reads it
 * back in a few milliseconds.  The file is one block: a header, the counts, the tables,
 * then the strings they point into, which stay in memory for the run (the tables'
 * pointers point into them).
 */
#include "dw.h"
#include "cache.h"

#include <stdlib.h>
#include <string.h>

#define MAGIC "STPDWIX5"
#define NO_STRING UINT32_MAX

struct header {
	char magic[8];
	uint32_t nsymbols, nnames, nexported, nblocked, ntext, nfunctions, ntypes, nglobals;
	uint32_t ndeclared, pad;
	uint64_t text_start;
	uint64_t strings_size;
};

struct symbol_record {
	uint64_t addr, size;
	uint32_t name;
	uint8_t function, unique, exported, pad;
};

struct range_record {
	uint64_t start, end;
	uint32_t why, pad;
};

struct named_record {
	uint64_t cu, die;
	uint32_t name, file;
};

struct function_record {
	uint64_t cu, die, entry;
	uint32_t name, file, why, flags;
	int32_t line, pad;
};

/* ---- the key ---- */

static char *cache_path(struct dw_module *m)
{
	char *prefix = xasprintf("%s-", m->name);
	char *path = cache_path_for_file("dwarf", prefix, MAGIC, m->path);

	free(prefix);
	return path;
}

/* ---- writing ---- */

struct strings {
	struct strbuf blob;
	const char **keys;	/* open addressing: the string, and its offset */
	uint32_t *offsets;
	size_t capacity, used;
};

static uint32_t string_offset(struct strings *t, const char *s)
{
	size_t i;

	if (!s)
		return NO_STRING;
	if ((t->used + 1) * 2 > t->capacity) {
		struct strings bigger = { .blob = t->blob, .capacity = t->capacity ? t->capacity * 2 :
									  4096 };

		bigger.keys = xcalloc(bigger.capacity, sizeof(*bigger.keys));
		bigger.offsets = xcalloc(bigger.capacity, sizeof(*bigger.offsets));
		for (size_t k = 0; k < t->capacity; k++)
			if (t->keys[k]) {
				for (i = hash64(t->keys[k], strlen(t->keys[k]), 0) % bigger.capacity;
				     bigger.keys[i]; i = (i + 1) % bigger.capacity)
					;
				bigger.keys[i] = t->keys[k];
				bigger.offsets[i] = t->offsets[k];
				bigger.used++;
			}
		free(t->keys);
		free(t->offsets);
		*t = bigger;
	}
	for (i = hash64(s, strlen(s), 0) % t->capacity; t->keys[i]; i = (i + 1) % t->capacity)
		if (strcmp(t->keys[i], s) == 0)
			return t->offsets[i];
	t->keys[i] = s;
	t->offsets[i] = (uint32_t)t->blob.len;
	t->used++;
	sb_putn(&t->blob, s, strlen(s) + 1);
	return t->offsets[i];
}

static void put(struct strbuf *sb, const void *data, size_t len)
{
	sb_putn(sb, data, len);
}

static void put_ranges(struct strbuf *sb, struct strings *t, const struct dw_range *r, int n)
{
	for (int i = 0; i < n; i++) {
		struct range_record rec = { r[i].start, r[i].end, string_offset(t, r[i].why), 0 };

		put(sb, &rec, sizeof(rec));
	}
}

static void put_named(struct strbuf *sb, struct strings *t, const struct dw_named *list, int n)
{
	for (int i = 0; i < n; i++) {
		struct named_record rec = { list[i].cu, list[i].die, string_offset(t, list[i].name),
					    string_offset(t, list[i].file) };

		put(sb, &rec, sizeof(rec));
	}
}

void dw_cache_store(struct dw_module *m)
{
	struct strbuf sb = { 0 };
	struct strings t = { 0 };
	struct dw_index *ix = m->index;
	struct header h = {
		.nsymbols = m->nsymbols, .nnames = m->nnames, .nexported = m->nexported,
		.nblocked = m->nblocked, .ntext = m->ntext, .nfunctions = ix->nfunctions,
		.ntypes = ix->ntypes, .nglobals = ix->nglobals, .ndeclared = ix->ndeclared,
		.text_start = m->text_start,
	};
	char *path;

	if (cache_mode == CACHE_DISABLED)
		return;
	memcpy(h.magic, MAGIC, 8);
	put(&sb, &h, sizeof(h));
	for (int i = 0; i < m->nsymbols; i++) {
		const struct dw_symbol *s = &m->symbols[i];
		struct symbol_record rec = { s->addr, s->size, string_offset(&t, s->name),
					     s->function, s->unique, s->exported, 0 };

		put(&sb, &rec, sizeof(rec));
	}
	for (int i = 0; i < m->nnames; i++) {
		uint32_t off = string_offset(&t, m->names[i]);

		put(&sb, &off, sizeof(off));
	}
	for (int i = 0; i < m->nexported; i++) {
		uint32_t off = string_offset(&t, m->exported[i]);

		put(&sb, &off, sizeof(off));
	}
	put_ranges(&sb, &t, m->blocked, m->nblocked);
	put_ranges(&sb, &t, m->text, m->ntext);
	for (int i = 0; i < ix->nfunctions; i++) {
		const struct dw_function *f = &ix->functions[i];
		struct function_record rec = {
			f->cu, f->die, f->entry, string_offset(&t, f->name),
			string_offset(&t, f->file), string_offset(&t, f->why_blocked), f->flags,
			f->line, 0,
		};

		put(&sb, &rec, sizeof(rec));
	}
	put_named(&sb, &t, ix->types, ix->ntypes);
	put_named(&sb, &t, ix->globals, ix->nglobals);
	put_named(&sb, &t, ix->declared, ix->ndeclared);
	((struct header *)sb.data)->strings_size = t.blob.len;
	put(&sb, t.blob.data, t.blob.len);
	path = cache_path(m);
	install_file(path, sb.data, sb.len);	/* a failure only costs the next run time */
	free(path);
	sb_free(&sb);
	sb_free(&t.blob);
	free(t.keys);
	free(t.offsets);
}

/* ---- reading ---- */

struct reader {
	const char *data;
	size_t len, at;
	const char *strings;
	size_t strings_size;
	bool bad;
};

static const void *take(struct reader *r, size_t len)
{
	const void *p = r->data + r->at;

	if (r->bad || len > r->len - r->at) {
		r->bad = true;
		return NULL;
	}
	r->at += len;
	return p;
}

static const char *string_at(struct reader *r, uint32_t off)
{
	if (off == NO_STRING)
		return NULL;
	if (off >= r->strings_size) {
		r->bad = true;
		return "";
	}
	return r->strings + off;
}

/*
 * A table of N records of RECORD_SIZE bytes, each made an item of ITEM_SIZE bytes by
 * CONVERT, with room for one more item (never NULL); a file too short for N marks R bad
 * (and the table is empty).
 */
static void *read_table(struct reader *r, uint32_t n, size_t record_size, size_t item_size,
			void (*convert)(struct reader *r, const void *record, void *item))
{
	char *items;

	if (r->bad || n > (r->len - r->at) / record_size) {
		r->bad = true;
		n = 0;
	}
	items = xcalloc((size_t)n + 1, item_size);
	for (uint32_t i = 0; i < n; i++, r->at += record_size)
		convert(r, r->data + r->at, items + i * item_size);
	return items;
}

static void read_symbol(struct reader *r, const void *record, void *item)
{
	const struct symbol_record *rec = record;

	*(struct dw_symbol *)item = (struct dw_symbol){
		.name = string_at(r, rec->name), .addr = rec->addr, .size = rec->size,
		.function = rec->function, .unique = rec->unique, .exported = rec->exported,
	};
}

static void read_name(struct reader *r, const void *record, void *item)
{
	*(const char **)item = string_at(r, *(const uint32_t *)record);
}

static void read_range(struct reader *r, const void *record, void *item)
{
	const struct range_record *rec = record;

	*(struct dw_range *)item = (struct dw_range){ rec->start, rec->end,
						      string_at(r, rec->why) };
}

static void read_function(struct reader *r, const void *record, void *item)
{
	const struct function_record *rec = record;

	*(struct dw_function *)item = (struct dw_function){
		.name = string_at(r, rec->name), .file = string_at(r, rec->file),
		.line = rec->line, .cu = rec->cu, .die = rec->die, .entry = rec->entry,
		.flags = rec->flags, .why_blocked = string_at(r, rec->why),
	};
}

static void read_named(struct reader *r, const void *record, void *item)
{
	const struct named_record *rec = record;

	*(struct dw_named *)item = (struct dw_named){ string_at(r, rec->name),
						      string_at(r, rec->file), rec->cu, rec->die };
}

/* LIST and its COUNT (N) from the next N records of type RECORD, by CONVERT. */
#define READ_TABLE(r, list, count, n, record, convert) \
	((list) = read_table(r, (count) = (n), sizeof(record), sizeof(*(list)), convert))

bool dw_cache_load(struct dw_module *m)
{
	char *path = cache_path(m);
	struct reader r = { 0 };
	const struct header *h;
	struct dw_index *ix;
	size_t tables;

	if (cache_mode != CACHE_USE) {
		free(path);
		return false;
	}
	r.data = read_file(path, &r.len);
	free(path);
	m->cache_blob = (char *)r.data;	/* the tables point into its strings */
	h = r.data ? take(&r, sizeof(*h)) : NULL;
	if (!h || memcmp(h->magic, MAGIC, 8) != 0 || h->strings_size > r.len)
		goto bad;
	tables = r.len - h->strings_size;
	r.strings = r.data + tables;
	r.strings_size = h->strings_size;
	if (h->strings_size == 0 || r.strings[h->strings_size - 1] != '\0')
		goto bad;
	r.len = tables;
	READ_TABLE(&r, m->symbols, m->nsymbols, h->nsymbols, struct symbol_record, read_symbol);
	READ_TABLE(&r, m->names, m->nnames, h->nnames, uint32_t, read_name);
	READ_TABLE(&r, m->exported, m->nexported, h->nexported, uint32_t, read_name);
	READ_TABLE(&r, m->blocked, m->nblocked, h->nblocked, struct range_record, read_range);
	READ_TABLE(&r, m->text, m->ntext, h->ntext, struct range_record, read_range);
	m->text_start = h->text_start;
	m->index = ix = xcalloc(1, sizeof(*ix));
	READ_TABLE(&r, ix->functions, ix->nfunctions, h->nfunctions, struct function_record,
		   read_function);
	READ_TABLE(&r, ix->types, ix->ntypes, h->ntypes, struct named_record, read_named);
	READ_TABLE(&r, ix->globals, ix->nglobals, h->nglobals, struct named_record, read_named);
	READ_TABLE(&r, ix->declared, ix->ndeclared, h->ndeclared, struct named_record,
		   read_named);
	if (r.bad || r.at != r.len)
		goto bad;
	return true;
bad:
	/* a damaged or foreign file: start again from the debuginfo */
	dw_module_drop_tables(m);
	return false;
}
