/*
 * emit.c - the module's C as it is written: the output, and C literals.
 */
#include "emit.h"
#include "families/family.h"

#include <stdlib.h>
#include <string.h>

void emit(struct emitter *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sb_vprintf(&e->out, fmt, ap);
	va_end(ap);
}

void emit_table_registration(struct emitter *e, const char *family, const char *table,
			     const char *reg, const char *unreg)
{
	emit(e, "static int stp_register_%s(void)\n{\n\treturn %s(%s, ARRAY_SIZE(%s));\n}\n\n",
	     family, reg, table, table);
	emit(e, "static void stp_unregister_%s(bool run_end_probes)\n{\n\t(void)run_end_probes;\n"
		"\t%s(%s, ARRAY_SIZE(%s));\n}\n\n", family, unreg, table, table);
}

void emit_probe_table(struct emitter *e, struct program *prog,
		      const struct probe_family *family, const struct probe_table *table)
{
	emit(e, "static %s %s[] = {\n", table->type, table->name);
	for (struct derived_probe *dp = prog->probes; dp; dp = dp->next)
		if (dp->family == family)
			table->entry(e, dp);
	emit(e, "};\n\n");
	emit_table_registration(e, family->name, table->name, table->reg, table->unreg);
}

void emit_probe_tables(struct emitter *e, struct program *prog,
		       const struct probe_family *family, const struct probe_table tables[2],
		       int (*which)(const struct derived_probe *dp))
{
	int counts[2] = { 0, 0 };

	for (struct derived_probe *dp = prog->probes; dp; dp = dp->next)
		if (dp->family == family)
			counts[which(dp)]++;
	for (int t = 0; t < 2; t++) {
		if (!counts[t])
			continue;
		emit(e, "static %s %s[] = {\n", tables[t].type, tables[t].name);
		for (struct derived_probe *dp = prog->probes; dp; dp = dp->next)
			if (dp->family == family && which(dp) == t)
				tables[t].entry(e, dp);
		emit(e, "};\n\n");
	}
	emit(e, "static int stp_register_%s(void)\n{\n\tint rc = 0;\n\n", family->name);
	for (int t = 0; t < 2; t++) {
		if (!counts[t])
			continue;
		if (t == 1 && counts[0])
			emit(e, "\tif (rc)\n\t\treturn rc;\n");
		emit(e, "\trc = %s(%s, ARRAY_SIZE(%s));\n", tables[t].reg, tables[t].name,
		     tables[t].name);
	}
	if (counts[0] && counts[1])
		emit(e, "\tif (rc)\n\t\t%s(%s, ARRAY_SIZE(%s));\n", tables[0].unreg,
		     tables[0].name, tables[0].name);
	emit(e, "\treturn rc;\n}\n\n");
	emit(e, "static void stp_unregister_%s(bool run_end_probes)\n{\n"
		"\t(void)run_end_probes;\n", family->name);
	for (int t = 1; t >= 0; t--)
		if (counts[t])
			emit(e, "\t%s(%s, ARRAY_SIZE(%s));\n", tables[t].unreg, tables[t].name,
			     tables[t].name);
	emit(e, "}\n\n");
}

/* Where the next emitted line will be, for #line after embedded C. */
static int output_line(struct emitter *e)
{
	int line = 1;

	for (size_t i = 0; i < e->out.len; i++)
		line += e->out.data[i] == '\n';
	return line;
}

/* Embedded C keeps its script location, so compiler errors point into the script. */
void emit_embedded_code(struct emitter *e, struct token *code)
{
	emit(e, "#line %d \"%s\"\n%s\n", code->line, code->file->name, code->text);
	emit(e, "#line %d \"%s.c\"\n", output_line(e) + 1, e->session->module_name);
}

char *c_string(const char *s)
{
	struct strbuf sb = { 0 };

	sb_put_c_string(&sb, s);
	return sb_steal(&sb);
}

/* "static const char NAME[] = ..." of LEN bytes of DATA (NULs too) as string literals:
 * printable characters as they are, the others as three-digit octal escapes (a digit
 * after one cannot join it: digits 0-7 are escaped too), 64 bytes a line. */
void emit_bytes(struct emitter *e, const char *name, const char *data, size_t len)
{
	emit(e, "static const char %s[] =", name);
	for (size_t at = 0; at < len; at += 64) {
		struct strbuf line = { 0 };

		for (size_t k = at; k < len && k < at + 64; k++) {
			unsigned char c = (unsigned char)data[k];

			if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\' && c != '?' &&
			    !(c >= '0' && c <= '7'))
				sb_putc(&line, (char)c);
			else
				sb_printf(&line, "\\%03o", c);
		}
		emit(e, "\n\t\"%s\"", line.data);
		sb_free(&line);
	}
	emit(e, "%s;\n", len ? "" : " \"\"");
}

/* "identifier 'x' at <input>:1:5", "keyword at ...", as a C literal. */
char *c_location(struct token *tok)
{
	char *what = token_description(tok);
	char *text = xasprintf("%s at %s:%d:%d", what, tok->file->name, tok->line, tok->column);
	char *lit = c_string(text);

	free(what);
	free(text);
	return lit;
}

/* ---- a return probe's @entry values ---- */

/*
 * Where @entry number I of H is kept in the return's data (kretprobe instance data): the
 * numbers (8 bytes each) and strings (MAXSTRINGLEN each) before it, as C.
 */
char *entry_offset(struct probe_body *h, int i)
{
	int longs = 0, strings = 0;

	for (int k = 0; k < i && k < h->nentries; k++) {
		if (h->entries[k]->type == TYPE_STRING)
			strings++;
		else
			longs++;
	}
	return xasprintf("(%d * 8 + %d * MAXSTRINGLEN)", longs, strings);
}
