/*
 * tapset.c - the tapset library: where its files are, and which file defines what.
 *
 * The search path: the library folder, then each -I folder.  Within each, the most
 * specific folders come first: linux/ARCH, linux, ARCH, and the folder itself, each
 * preceded by its kernel-version subfolders (6.1.0-56-cloud-amd64, 6.1.0, 6.1).
 *
 * Macro libraries (*.stpm) are read by every run.  Script files (*.stp) are only indexed:
 * tokenized (cheap) to note which functions, probe aliases and globals they define;
 * a file is parsed only when pass 2 needs one of its definitions.
 */
#include "stap.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

struct tapset_file {
	char *path;
	struct stapfile *parsed;
	bool parse_failed;
};

struct tapset_definition {
	enum tapset_definition_kind kind;
	char *name;
	int file;
};

struct tapset_index {
	struct preprocessor *pp;
	struct tapset_file *files;
	int nfiles;
	struct tapset_definition *definitions;
	int ndefinitions;
};

/* The kernel-version subfolders of DIR that exist, most specific first, then DIR. */
static void add_versioned(struct strlist *path, const char *dir, const char *release)
{
	char *version = xstrndup(release, strcspn(release, "-"));
	char *sub;

	if (strcmp(version, release) != 0) {
		sub = xasprintf("%s/%s", dir, release);
		if (is_dir(sub))
			strlist_add(path, sub);
		free(sub);
	}
	/* 6.1.0, then 6.1: drop components while two remain */
	for (char *dot; strchr(version, '.'); *dot = '\0') {
		sub = xasprintf("%s/%s", dir, version);
		if (is_dir(sub))
			strlist_add(path, sub);
		free(sub);
		dot = strrchr(version, '.');
		if (dot == strchr(version, '.'))
			break;
	}
	free(version);
	if (is_dir(dir))
		strlist_add(path, dir);
}

struct strlist tapset_search_path(struct session *s)
{
	struct strlist path = { 0 };
	struct strlist bases = { 0 };
	const char *arch = kernel_arch();

	if (s->tapset_dir)
		strlist_add(&bases, s->tapset_dir);
	for (int i = 0; i < s->include_dirs.count; i++)
		strlist_add(&bases, s->include_dirs.items[i]);
	for (int i = 0; i < bases.count; i++) {
		const char *base = bases.items[i];
		/* the kernel runtime's folder, then the architecture's, most specific first */
		char *dirs[] = {
			xasprintf("%s/linux/%s", base, arch),
			xasprintf("%s/linux", base),
			xasprintf("%s/%s", base, arch),
			xstrdup(base),
		};

		for (int d = 0; d < 4; d++) {
			add_versioned(&path, dirs[d], s->kernel_release ? s->kernel_release : "");
			free(dirs[d]);
		}
	}
	strlist_free(&bases);
	return path;
}

static int stp_file_filter(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > 4 && strcmp(d->d_name + n - 4, ".stp") == 0;
}

static int stpm_file_filter(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > 5 && strcmp(d->d_name + n - 5, ".stpm") == 0;
}

/* Calls VISIT for each file of DIR that FILTER accepts, in name order. */
static void for_each_file(const char *dir, int (*filter)(const struct dirent *),
			  void (*visit)(void *arg, const char *path), void *arg)
{
	struct dirent **names;
	int n = scandir(dir, &names, filter, alphasort);

	for (int i = 0; i < n; i++) {
		char *path = xasprintf("%s/%s", dir, names[i]->d_name);

		visit(arg, path);
		free(path);
		free(names[i]);
	}
	if (n >= 0)
		free(names);
}

/* ---- macro libraries ---- */

struct macro_loading {
	struct preprocessor *pp;
	int *errors;
	int files;
};

static void load_stpm(void *arg, const char *path)
{
	struct macro_loading *ml = arg;
	struct source_file *src = xcalloc(1, sizeof(*src));

	src->name = xstrdup(path);
	src->is_tapset = true;
	src->text = read_file(path, NULL);
	if (src->text) {
		load_macro_library(ml->pp, src, ml->errors);
		ml->files++;
	}
}

int tapset_load_macros(struct session *s, struct preprocessor *pp, int *errors)
{
	struct strlist path = tapset_search_path(s);
	struct macro_loading ml = { .pp = pp, .errors = errors };

	for (int i = 0; i < path.count; i++)
		for_each_file(path.items[i], stpm_file_filter, load_stpm, &ml);
	strlist_free(&path);
	return ml.files;
}

/* ---- the index of script files ---- */

static void add_definition(struct tapset_index *ix, enum tapset_definition_kind kind,
			   const char *name, int file)
{
	ix->definitions = xrealloc(ix->definitions,
				   (ix->ndefinitions + 1) * sizeof(*ix->definitions));
	ix->definitions[ix->ndefinitions++] =
		(struct tapset_definition){ .kind = kind, .name = xstrdup(name), .file = file };
}

/* "probe a.b.c =" or "+=": the alias name, or NULL when it is a plain probe. */
static char *alias_name(struct token *tok)
{
	struct strbuf name = { 0 };

	for (; tok->kind != TOK_EOF; tok = tok->next) {
		if (token_is(tok, "=") || token_is(tok, "+="))
			return sb_steal(&name);
		if (token_is(tok, "{") || token_is(tok, ",") || token_is(tok, "(") ||
		    token_is(tok, "?") || token_is(tok, "!"))
			break;
		sb_puts(&name, tok->text);
	}
	sb_free(&name);
	return NULL;
}

/* global a[10], b = 5, c% ... */
static void index_globals(struct tapset_index *ix, struct token *tok, int file)
{
	while (tok->kind == TOK_IDENT) {
		add_definition(ix, TAPSET_GLOBAL, tok->text, file);
		/* its size, wrap mark and initial value, up to a "," */
		for (tok = tok->next; token_is(tok, "[") || token_is(tok, "]") || token_is(tok, "%") ||
				      token_is(tok, "=") || token_is(tok, "-") ||
				      tok->kind == TOK_NUMBER || tok->kind == TOK_STRING;
		     tok = tok->next)
			;
		if (!token_is(tok, ","))
			return;
		tok = tok->next;
	}
}

static void index_file(void *arg, const char *path)
{
	struct tapset_index *ix = arg;
	struct source_file src = { .name = (char *)path, .is_tapset = true };
	struct token *tok;
	int errors = 0;
	int file = ix->nfiles;

	src.text = read_file(path, NULL);
	if (!src.text)
		return;
	ix->files = xrealloc(ix->files, (ix->nfiles + 1) * sizeof(*ix->files));
	ix->files[file] = (struct tapset_file){ .path = xstrdup(path) };
	ix->nfiles++;

	diag_quiet++;		/* a broken file is reported if and when it is parsed */
	tok = tokenize(&src, &errors);
	diag_quiet--;
	for (; tok && tok->kind != TOK_EOF; tok = tok->next) {
		struct token *name = tok->next;

		if (token_is(tok, "function") && name->kind == TOK_IDENT) {
			add_definition(ix, TAPSET_FUNCTION, name->text, file);
		} else if (token_is(tok, "probe")) {
			char *alias = alias_name(name);

			if (alias)
				add_definition(ix, TAPSET_ALIAS, alias, file);
			free(alias);
		} else if (token_is(tok, "global")) {
			index_globals(ix, name, file);
		}
	}
	free(src.text);
}

struct tapset_index *tapset_index_open(struct session *s, struct preprocessor *pp)
{
	struct tapset_index *ix = xcalloc(1, sizeof(*ix));
	struct strlist path = tapset_search_path(s);

	ix->pp = pp;
	for (int i = 0; i < path.count; i++)
		for_each_file(path.items[i], stp_file_filter, index_file, ix);
	strlist_free(&path);
	return ix;
}

static struct stapfile *parse_tapset_file(struct tapset_index *ix, struct tapset_file *tf,
					  int *errors)
{
	struct source_file *src;
	int before = *errors;

	if (tf->parsed || tf->parse_failed)
		return tf->parsed;
	src = xcalloc(1, sizeof(*src));
	src->name = tf->path;
	src->is_tapset = true;
	src->text = read_file(tf->path, NULL);
	if (!src->text) {
		tf->parse_failed = true;
		return NULL;
	}
	tf->parsed = parse_file(ix->pp, src, true, false, errors);
	if (*errors != before) {
		tf->parsed = NULL;
		tf->parse_failed = true;
	}
	return tf->parsed;
}

struct stapfile *tapset_find(struct tapset_index *ix, enum tapset_definition_kind kind,
			     const char *name, int *errors)
{
	for (int i = 0; i < ix->ndefinitions; i++)
		if (ix->definitions[i].kind == kind && strcmp(ix->definitions[i].name, name) == 0)
			return parse_tapset_file(ix, &ix->files[ix->definitions[i].file], errors);
	return NULL;
}

void tapset_find_all(struct tapset_index *ix, enum tapset_definition_kind kind, const char *name,
		     struct stapfile *(*load)(struct elaborator *, struct stapfile *),
		     struct elaborator *el)
{
	for (int i = 0; i < ix->ndefinitions; i++) {
		struct stapfile *file;

		if (ix->definitions[i].kind != kind || strcmp(ix->definitions[i].name, name) != 0)
			continue;
		file = parse_tapset_file(ix, &ix->files[ix->definitions[i].file], &el->errors);
		if (file)
			load(el, file);
	}
}

int tapset_names(struct tapset_index *ix, enum tapset_definition_kind kind,
		 const char ***names)
{
	int n = 0;

	*names = xcalloc(ix->ndefinitions + 1, sizeof(**names));
	for (int i = 0; i < ix->ndefinitions; i++)
		if (ix->definitions[i].kind == kind)
			(*names)[n++] = ix->definitions[i].name;
	return n;
}
