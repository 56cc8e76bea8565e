/*
 * tapset.c - the tapset library: where its files are, and which file defines what.
 *
 * The index is built by tokenizing each library file (cheap) and noting the functions it
 * defines; a file is parsed only when pass 2 needs one of its definitions.
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
	char *name;
	int file;
};

struct tapset_index {
	struct tapset_file *files;
	int nfiles;
	struct tapset_definition *functions;
	int nfunctions;
};

static int stp_file_filter(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > 4 && strcmp(d->d_name + n - 4, ".stp") == 0;
}

static void add_function(struct tapset_index *ix, const char *name, int file)
{
	ix->functions = xrealloc(ix->functions, (ix->nfunctions + 1) * sizeof(*ix->functions));
	ix->functions[ix->nfunctions].name = xstrdup(name);
	ix->functions[ix->nfunctions].file = file;
	ix->nfunctions++;
}

static void index_file(struct tapset_index *ix, const char *path)
{
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
	for (; tok && tok->kind != TOK_EOF; tok = tok->next)
		if (token_is(tok, "function") && tok->next->kind == TOK_IDENT)
			add_function(ix, tok->next->text, file);
	free(src.text);
}

static void index_dir(struct tapset_index *ix, const char *dir)
{
	struct dirent **names;
	int n = scandir(dir, &names, stp_file_filter, alphasort);

	for (int i = 0; i < n; i++) {
		char *path = xasprintf("%s/%s", dir, names[i]->d_name);

		index_file(ix, path);
		free(path);
		free(names[i]);
	}
	if (n >= 0)
		free(names);
}

/* The library folder first, then each -I folder in order. */
struct tapset_index *tapset_index_open(struct session *s)
{
	struct tapset_index *ix = xcalloc(1, sizeof(*ix));

	if (s->tapset_dir)
		index_dir(ix, s->tapset_dir);
	for (int i = 0; i < s->include_dirs.count; i++)
		index_dir(ix, s->include_dirs.items[i]);
	return ix;
}

static struct stapfile *parse_tapset_file(struct tapset_file *tf, int *errors)
{
	struct source_file *src;

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
	int before = *errors;

	tf->parsed = parse_file(src, true, NULL, errors);
	if (*errors != before) {
		tf->parsed = NULL;
		tf->parse_failed = true;
	}
	return tf->parsed;
}

struct stapfile *tapset_find_function(struct tapset_index *ix, const char *name, int *errors)
{
	for (int i = 0; i < ix->nfunctions; i++)
		if (strcmp(ix->functions[i].name, name) == 0)
			return parse_tapset_file(&ix->files[ix->functions[i].file], errors);
	return NULL;
}

/* Names the index knows, for "did you mean" suggestions. */
int tapset_function_names(struct tapset_index *ix, const char ***names)
{
	*names = xcalloc(ix->nfunctions + 1, sizeof(**names));
	for (int i = 0; i < ix->nfunctions; i++)
		(*names)[i] = ix->functions[i].name;
	return ix->nfunctions;
}
