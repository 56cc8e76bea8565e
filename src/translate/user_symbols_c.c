/*
 * user_symbols_c.c - the user-space files' symbols and unwind tables (read by
 * debuginfo/user_symbols.c) as the module's C, for runtime/usymbols.c.
 *
 * Per file: its segments (stp_usym_segments_I), its symbols' addresses and names
 * (stp_usym_addrs_I, stp_usym_names_I), its unwind rows (stp_usym_unwind_addrs_I,
 * stp_usym_unwind_rules_I) and its line rows (stp_usym_line_addrs_I, _files_I,
 * _numbers_I: none unless a function of the script says pragma:ulines); then the one
 * string table (stp_usym_string_table), the files' table (stp_usym_file_table), and the
 * script's stp_script_start/stop, which start the tables before the probes and stop them
 * after.  -vv says the size of each file's tables.
 */
#include "emit.h"
#include "debuginfo/user_symbols.h"

#include <inttypes.h>
#include <string.h>

/* "static const u32 NAME_I[] = { ... };" of COUNT numbers (STRIDE apart in VALUES) */
static void emit_numbers(struct emitter *e, const char *name, int i, const uint32_t *values,
			 int count, int stride)
{
	emit(e, "static const u32 %s_%d[] = {", name, i);
	for (int k = 0; k < count; k++)
		emit(e, "%s%u,", k % 12 ? " " : "\n\t", values[k * stride]);
	emit(e, "%s};\n", count ? "\n" : " 0 ");
}

int user_symbols_emit(struct emitter *e, struct session *s, bool used, bool lines)
{
	struct user_table *tables;
	struct strbuf strings = { 0 };
	int ntables = 0, errors;
	uint32_t *paths, *build_ids;

	errors = user_files_resolve(s);
	if (!used)
		return errors;
	tables = xcalloc(s->nuser_files + 1, sizeof(*tables));
	paths = xcalloc(s->nuser_files + 1, sizeof(*paths));
	build_ids = xcalloc(s->nuser_files + 1, sizeof(*build_ids));
	emit(e, "/* user-space symbols and unwind tables (runtime/usymbols.c) */\n");
	for (int i = 0; i < s->nuser_files; i++) {
		const struct user_file *uf = &s->user_files[i];
		struct user_table *t = &tables[ntables];
		const char *why;
		size_t before = strings.len, bytes;

		if (!user_table_read(s, uf, t, &strings, lines, &why)) {
			if (uf->named)
				errors += diag_warning("missing unwind/symbol data for module '%s'",
						       uf->target);
			user_table_free(t);
			strings.len = before;
			continue;
		}
		paths[ntables] = user_string_add(&strings, uf->target);
		build_ids[ntables] = user_string_add(&strings, t->build_id ? t->build_id : "");
		bytes = strings.len - before + 8 * (t->nsyms + 1) + 8 * t->nrows +
			12 * t->nlines + t->nsegments * 32 + 128;
		emit(e, "/* %s: %d symbols, %d unwind rows, %d line rows, %zu bytes */\n",
		     uf->target, t->nsyms, t->nrows, t->nlines, bytes);
		if (verbose_at(s, 3, 2))
			fprintf(stderr, "Pass 3: symbols of %s: %d symbols, %d unwind rows, %d line "
				"rows, %zu bytes\n", uf->target, t->nsyms, t->nrows, t->nlines,
				bytes);
		emit(e, "static const struct stp_usym_segment stp_usym_segments_%d[] = {\n",
		     ntables);
		for (int k = 0; k < t->nsegments; k++)
			emit(e, "\t{ %#" PRIx64 "UL, %#" PRIx64 "UL, %#" PRIx64 "UL, %s },\n",
			     t->segments[k].offset, t->segments[k].vaddr, t->segments[k].memsz,
			     t->segments[k].exec ? "true" : "false");
		emit(e, "};\n");
		emit_numbers(e, "stp_usym_addrs", ntables, t->sym_addrs, t->nsyms ? t->nsyms + 1 : 0, 1);
		emit_numbers(e, "stp_usym_names", ntables, t->sym_names, t->nsyms, 1);
		emit_numbers(e, "stp_usym_unwind_addrs", ntables, &t->rows[0].addr, t->nrows, 2);
		emit_numbers(e, "stp_usym_unwind_rules", ntables, &t->rows[0].rule, t->nrows, 2);
		emit_numbers(e, "stp_usym_line_addrs", ntables, &t->lines[0].addr, t->nlines, 3);
		emit_numbers(e, "stp_usym_line_files", ntables, &t->lines[0].file, t->nlines, 3);
		emit_numbers(e, "stp_usym_line_numbers", ntables, &t->lines[0].line, t->nlines, 3);
		emit(e, "\n");
		ntables++;
	}
	emit_bytes(e, "stp_usym_string_table", strings.data, strings.len);
	emit(e, "\n");
	emit(e, "static struct stp_usym_file stp_usym_file_table[] = {\n");
	for (int i = 0; i < ntables; i++) {
		const struct user_table *t = &tables[i];
		const char *target = t->uf->target, *base = strrchr(target, '/');
		uint32_t name = paths[i] + (uint32_t)(base ? base + 1 - target : 0);

		emit(e, "\t{ .path = stp_usym_string_table + %u, .name = stp_usym_string_table + %u,"
		     "\n\t  .low = %#" PRIx64 "UL, .size = %#" PRIx64 "UL, .segments = "
		     "stp_usym_segments_%d, .nsegments = %d,\n\t  .sym_addrs = stp_usym_addrs_%d, "
		     ".sym_names = stp_usym_names_%d, .nsyms = %d,\n\t  .unwind_addrs = "
		     "stp_usym_unwind_addrs_%d, .unwind_rules = stp_usym_unwind_rules_%d, "
		     ".nunwind = %d,\n\t  .line_addrs = stp_usym_line_addrs_%d, .line_files = "
		     "stp_usym_line_files_%d, .line_numbers = stp_usym_line_numbers_%d, "
		     ".nlines = %d,\n\t  .build_id = stp_usym_string_table + %u },\n", paths[i],
		     name, t->low, t->size, i, t->nsegments, i, i, t->nsyms, i, i, t->nrows, i, i,
		     i, t->nlines, build_ids[i]);
	}
	emit(e, "\t{ .path = NULL }\n};\n\n");
	/* the script's start and stop (translate.c) run the probes' between these */
	emit(e, "static int stp_script_start_probes(void);\n"
		"static void stp_script_stop_probes(bool run_end_probes);\n\n"
		"static int stp_script_start(void)\n{\n\tint rc;\n\n"
		"\tstp_usym_start(stp_usym_file_table, %d, stp_usym_string_table);\n"
		"\trc = stp_script_start_probes();\n\tif (rc)\n\t\tstp_usym_stop();\n"
		"\treturn rc;\n}\n\n"
		"static void stp_script_stop(bool run_end_probes)\n{\n"
		"\tstp_script_stop_probes(run_end_probes);\n\tstp_usym_stop();\n}\n\n", ntables);
	for (int i = 0; i < ntables; i++)
		user_table_free(&tables[i]);
	free(tables);
	free(paths);
	free(build_ids);
	sb_free(&strings);
	return errors;
}
