/*
 * library_dump.c - --dump-probe-types, --dump-probe-aliases and --dump-functions: what the
 * translator and its tapset library offer, one line each, sorted, as stap prints them:
 *
 *   kernel.function(string).return.maxactive(number)     a form of a family's points
 *   vfs.read = kernel.function("vfs_read")                 an alias, as its file defines it
 *   task_pid:long (task:long) / * unprivileged * /          a function, with its types
 *
 * Names with a component starting with "_" are the library's internals and left out.  The
 * functions' types are those pass 2 infers with every function of the library in the
 * program (stap's "unknown" where nothing says: a function that returns nothing, or a
 * parameter no call or use types).
 */
#include "elaborate.h"
#include "families/family.h"

#include <stdlib.h>
#include <string.h>

/* LINES sorted, each once. */
static void sort_unique(struct strlist *lines)
{
	int kept = 0;

	if (lines->count)
		qsort(lines->items, lines->count, sizeof(*lines->items), compare_strings);
	for (int i = 0; i < lines->count; i++) {
		if (kept && strcmp(lines->items[kept - 1], lines->items[i]) == 0) {
			free(lines->items[i]);
			continue;
		}
		lines->items[kept++] = lines->items[i];
	}
	lines->count = kept;
	if (lines->items)
		lines->items[kept] = NULL;
}

struct strlist dump_probe_types(void)
{
	struct strlist lines = { 0 };

	for (int f = 0; probe_families[f]; f++)
		for (const char *const *t = probe_families[f]->templates; *t; t++)
			strlist_add(&lines, *t);
	sort_unique(&lines);
	return lines;
}

/* An elaboration whose program is the whole library, the syscall tapset of the target
 * kernel too; its errors are not shown (a file that does not parse is left out). */
static void open_library(struct elaborator *el, struct session *s, struct preprocessor *pp)
{
	struct stapfile *none = xcalloc(1, sizeof(*none));

	el->session = s;
	if (!s->generated_tapsets.count) {
		char *dir = syscall_tapset_dir(el);

		if (dir)
			strlist_add(&s->generated_tapsets, dir);
		free(dir);
	}
	elaborate_setup(el, s, pp, none);
	el->listing = true;	/* the files' own probes are not derived */
	diag_quiet++;
	tapset_load_every_file(el);
	diag_quiet--;
}

static bool internal_name(const struct probe_point *name)
{
	for (const struct component *c = name->components; c; c = c->next)
		if (c->name[0] == '_')
			return true;
	return false;
}

struct strlist dump_probe_aliases(struct session *s, struct preprocessor *pp)
{
	struct elaborator el = { 0 };
	struct strlist lines = { 0 };

	open_library(&el, s, pp);
	for (struct stapfile *file = el.prog->files; file; file = file->next)
		for (struct probe *p = file->probes; p; p = p->next)
			if (p->alias && !internal_name(p->alias_name)) {
				char *line = alias_definition(p);

				strlist_add(&lines, line);
				free(line);
			}
	sort_unique(&lines);
	return lines;
}

/* "name:type (a:type, b:type)", and " / * unprivileged * /" when stapusr may call it. */
static char *function_line(const struct function *f)
{
	struct strbuf sb = { 0 };

	sb_printf(&sb, "%s:%s (", f->name, type_name(f->return_type));
	for (const struct symbol *p = f->params; p; p = p->next)
		sb_printf(&sb, "%s:%s%s", p->name, type_name(p->type), p->next ? ", " : "");
	sb_puts(&sb, ")");
	if (function_unprivileged(f))
		sb_puts(&sb, " /* unprivileged */");
	return sb_steal(&sb);
}

struct strlist dump_functions(struct session *s, struct preprocessor *pp)
{
	struct elaborator el = { 0 };
	struct strlist lines = { 0 };

	open_library(&el, s, pp);
	diag_quiet++;
	resolve_every_function(&el);
	infer_types(&el);
	diag_quiet--;
	for (struct stapfile *file = el.prog->files; file; file = file->next)
		for (struct function *f = file->functions; f; f = f->next)
			if (f->name[0] != '_' && !f->private_) {
				char *line = function_line(f);

				strlist_add(&lines, line);
				free(line);
			}
	sort_unique(&lines);
	return lines;
}
