/*
 * tapset.c - the tapset library: where its files are, and which file defines what.
 *
 * The search path: the library folder, then each -I folder.  Within each, the most
 * specific folders come first: linux/ARCH, linux, ARCH, and the folder itself, each
 * preceded by its kernel-version subfolders (6.1.0-56-cloud-amd64, 6.1.0, 6.1).
 *
 * Macro libraries (*.stpm) are read by every run.  Script files (*.stp) are only indexed:
 * scanned (cheaply) to note which functions, probe aliases and globals they define;
 * a file is parsed only when pass 2 needs one of its definitions, and then joins the
 * program (add_program_file(), as the script itself did first).
 */
#include "elaborate.h"
#include "cache.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

struct tapset_file {
	char *path;
	struct stapfile *parsed;
	bool parse_failed;
	bool from_include_dir;	/* not the library's, nor generated for the kernel */
	struct file_identity id;	/* when indexed */
	int first_definition, ndefinitions;	/* what the index noted, before sorting */
};

struct tapset_definition {
	enum tapset_definition_kind kind;
	char *name;
	int file;
	int order;		/* as noted: search path order */
};

/* The notes of one file as the index's cache keeps them (index_cache_load()). */
struct cached_notes {
	char *path;
	struct file_identity id;
	char *notes;		/* "KIND NAME\n" lines, in the cache's text */
};

struct tapset_index {
	struct preprocessor *pp;
	struct cached_notes *cached;	/* the cache's files, in its order */
	int ncached, next_cached;
	int *cached_sort, ncached_sort;	/* the cache's sorted order of its notes */
	char *cache_text;		/* the cache as read: the names of its notes */
	bool cache_stale;		/* a file was scanned, or one is gone: write it */
	bool indexing_include_dir;	/* index_file()'s folder is an -I one */
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
	for (int i = 0; i < s->include_dirs.count; i++) {
		/* "-I dir/" names its files dir/f.stp, as stap does */
		char *dir = xstrdup(s->include_dirs.items[i]);
		size_t n = strlen(dir);

		while (n > 1 && dir[n - 1] == '/')
			dir[--n] = '\0';
		strlist_add(&bases, dir);
		free(dir);
	}
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
	for (int i = 0; i < s->generated_tapsets.count; i++)
		strlist_add(&path, s->generated_tapsets.items[i]);
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

/*
 * Every script sees the library's macros, but a hello world uses none: tokenizing the
 * library's files was 40% of its passes 1-2.  So a file that was clean when last read,
 * and is unchanged (size, time, inode), is only noted with the names it defines, and read
 * when a script uses one (preprocess.c); a new, changed or broken file is read at once,
 * its errors told as before.  The cache (tapset-macros/, one file per search path and
 * what conditions test: kernel release, architecture, privilege, --compatible, guru
 * mode; a file whose conditions read the kernel's CONFIG_ is always read) holds:
 *	stapler macro library 1
 *	F SIZE SECONDS NANOSECONDS INODE PATH
 *	NAME			(the names it defines)
 */
#define MACRO_CACHE_MAGIC "stapler macro library 1\n"

struct macro_file {
	char *path;
	struct file_identity id;
	struct strlist names;
};

struct macro_loading {
	struct preprocessor *pp;
	int *errors;
	int files;
	struct macro_file *cached, *clean;	/* the cache's files; this run's clean ones */
	int ncached, nclean;
	bool stale;			/* a file was read: the cache is written again */
};

static bool read_identity(const char **p, struct file_identity *id);

/* The text of the cache file PATH if it begins with MAGIC (*BODY: after it), else NULL. */
static char *read_cache_text(const char *path, const char *magic, char **body)
{
	char *text = read_file(path, NULL);

	if (!text || !starts_with(text, magic)) {
		free(text);
		return NULL;
	}
	*body = text + strlen(magic);
	return text;
}

static void macro_cache_load(struct macro_loading *ml, const char *path)
{
	char *body, *text = read_cache_text(path, MACRO_CACHE_MAGIC, &body), *line, *next;
	struct macro_file *cur = NULL;

	if (!text)
		return;
	for (line = body; *line; line = next) {
		const char *p = line + 2;
		struct file_identity id;

		next = strchr(line, '\n');
		if (!next) {	/* a cut line: the last file's names may not all be there */
			if (cur)
				cur->path[0] = '\0';
			break;
		}
		*next++ = '\0';
		if (line[0] == 'F' && line[1] == ' ') {
			if (!read_identity(&p, &id))
				break;
			ml->cached = xrealloc(ml->cached, (ml->ncached + 1) * sizeof(*ml->cached));
			cur = &ml->cached[ml->ncached++];
			*cur = (struct macro_file){ .path = xstrdup(p), .id = id };
		} else if (cur) {
			strlist_add(&cur->names, line);
		}
	}
	free(text);
}

static void macro_cache_write(struct macro_loading *ml, const char *path)
{
	struct strbuf sb = { 0 };

	sb_puts(&sb, MACRO_CACHE_MAGIC);
	for (int i = 0; i < ml->nclean; i++) {
		const struct macro_file *f = &ml->clean[i];

		if (strchr(f->path, '\n'))
			goto out;	/* not a path this format can hold */
		sb_printf(&sb, "F %lld %lld %lld %llu %s\n", f->id.size, f->id.sec, f->id.nsec,
			  f->id.ino, f->path);
		for (int k = 0; k < f->names.count; k++)
			sb_printf(&sb, "%s\n", f->names.items[k]);
	}
	install_file(path, sb.data ? sb.data : "", sb.len);
out:
	sb_free(&sb);
}

static void add_clean(struct macro_loading *ml, const char *path,
		      const struct file_identity *id, const struct strlist *names)
{
	struct macro_file *f;

	ml->clean = xrealloc(ml->clean, (ml->nclean + 1) * sizeof(*ml->clean));
	f = &ml->clean[ml->nclean++];
	*f = (struct macro_file){ .path = xstrdup(path), .id = *id };
	for (int i = 0; i < names->count; i++)
		strlist_add(&f->names, names->items[i]);
}

static void load_stpm(void *arg, const char *path)
{
	struct macro_loading *ml = arg;
	struct source_file *src;
	struct file_identity id;
	struct strlist names = { 0 };

	if (!file_identity(path, &id))
		return;
	for (int i = 0; i < ml->ncached; i++)
		if (strcmp(ml->cached[i].path, path) == 0 &&
		    memcmp(&ml->cached[i].id, &id, sizeof(id)) == 0) {
			defer_macro_library(ml->pp, path, &ml->cached[i].names, ml->errors);
			add_clean(ml, path, &id, &ml->cached[i].names);
			ml->files++;
			return;
		}
	ml->stale = true;
	src = xcalloc(1, sizeof(*src));
	src->name = xstrdup(path);
	src->is_tapset = true;
	src->text = read_file(path, NULL);
	if (src->text) {
		if (load_macro_library(ml->pp, src, ml->errors, &names))
			add_clean(ml, path, &id, &names);
		ml->files++;
	}
	strlist_free(&names);
}

int tapset_load_macros(struct session *s, struct preprocessor *pp, int *errors)
{
	struct strlist path = tapset_search_path(s);
	struct macro_loading ml = { .pp = pp, .errors = errors };
	char *cache = NULL;

	if (cache_mode != CACHE_DISABLED && s->tapset_dir) {
		struct strbuf tag = { 0 };

		for (int i = 0; i < path.count; i++)
			sb_printf(&tag, "%s\n", path.items[i]);
		sb_printf(&tag, "%s\n%s\n%s\n%s\n%s\n%d\n", pp->kernel_vr, pp->arch, pp->runtime,
			  pp->privilege, pp->compat_version, s->guru ? 1 : 0);
		cache = cache_path_for_file("tapset-macros", "", tag.data, s->tapset_dir);
		sb_free(&tag);
		if (cache_mode == CACHE_USE)
			macro_cache_load(&ml, cache);
	}
	for (int i = 0; i < path.count; i++)
		for_each_file(path.items[i], stpm_file_filter, load_stpm, &ml);
	strlist_free(&path);
	if (cache && (ml.stale || ml.nclean != ml.ncached))
		macro_cache_write(&ml, cache);
	free(cache);
	for (int i = 0; i < ml.ncached; i++) {
		free(ml.cached[i].path);
		strlist_free(&ml.cached[i].names);
	}
	for (int i = 0; i < ml.nclean; i++) {
		free(ml.clean[i].path);
		strlist_free(&ml.clean[i].names);
	}
	free(ml.cached);
	free(ml.clean);
	return ml.files;
}

/* ---- the index of script files ---- */

/* Notes a definition whose NAME the index keeps (it lives as long as the index). */
static void note_definition(struct tapset_index *ix, enum tapset_definition_kind kind,
			    char *name, int file)
{
	int n = ix->ndefinitions;

	if ((n & (n - 1)) == 0)	/* full at 0, 1, 2, 4...: twice the room */
		ix->definitions = xrealloc(ix->definitions, (n ? 2 * n : 1) * sizeof(*ix->definitions));
	ix->definitions[ix->ndefinitions] = (struct tapset_definition){
		.kind = kind, .name = name, .file = file, .order = ix->ndefinitions };
	ix->ndefinitions++;
}

static void add_definition(struct tapset_index *ix, enum tapset_definition_kind kind,
			   const char *name, int file)
{
	note_definition(ix, kind, xstrdup(name), file);
}

/*
 * The index reads a file's text without tokenizing it (600 files every run): comments,
 * strings and embedded C are skipped, and after the words "function", "probe" and
 * "global" the names they define are noted.  It may note more than the file defines
 * (a definition in a preprocessor branch not taken); parsing the file settles that.
 */
static bool is_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/* Past whitespace and comments. */
static const char *skip_space(const char *p)
{
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\f')
			p++;
		if (*p == '#' || (p[0] == '/' && p[1] == '/')) {
			p += strcspn(p, "\n");
		} else if (p[0] == '/' && p[1] == '*') {
			const char *end = strstr(p + 2, "*/");

			p = end ? end + 2 : p + strlen(p);
		} else {
			return p;
		}
	}
}

/* Past a string literal, an embedded-C block or one character. */
static const char *skip_other(const char *p)
{
	if (*p == '"') {
		for (p++; *p && *p != '"'; p++)
			if (*p == '\\' && p[1])
				p++;
		return *p ? p + 1 : p;
	}
	if (p[0] == '%' && p[1] == '{') {
		const char *end = strstr(p + 2, "%}");

		return end ? end + 2 : p + strlen(p);
	}
	return p + 1;
}

/* The name at P (letters, digits, _ and, in alias names, the wildcard *); *END after it. */
static char *name_at(const char *p, bool wildcards, const char **end)
{
	const char *q = p;

	while (is_name_char(*q) || (wildcards && *q == '*'))
		q++;
	*end = q;
	return q > p ? xstrndup(p, (size_t)(q - p)) : NULL;
}

/* After "probe": "a.b.c =" or "+=" names an alias. */
static const char *index_alias(struct tapset_index *ix, const char *p, int file)
{
	struct strbuf name = { 0 };

	for (;;) {
		char *part = name_at(skip_space(p), true, &p);

		if (!part)
			break;
		sb_puts(&name, part);
		free(part);
		p = skip_space(p);
		if (*p == '.') {
			sb_putc(&name, '.');
			p++;
			continue;
		}
		if (*p == '=' || (p[0] == '+' && p[1] == '='))
			add_definition(ix, TAPSET_ALIAS, name.data, file);
		break;
	}
	sb_free(&name);
	return p;
}

/* After "global": a[10], b = 5, c%, d = "x", e = -1 ... */
static const char *index_globals(struct tapset_index *ix, const char *p, int file)
{
	for (;;) {
		char *name = name_at(skip_space(p), false, &p);

		if (!name)
			return p;
		add_definition(ix, TAPSET_GLOBAL, name, file);
		free(name);
		p = skip_space(p);
		if (*p == '[') {	/* its size */
			p += strcspn(p, "]\n");
			p = skip_space(*p == ']' ? p + 1 : p);
		}
		if (*p == '%')		/* wraps around */
			p = skip_space(p + 1);
		if (*p == '=') {	/* its initial value: a string or a (signed) number */
			p = skip_space(p + 1);
			if (*p == '-' || *p == '+')
				p = skip_space(p + 1);
			if (*p == '"')
				p = skip_other(p);
			else
				while (is_name_char(*p))
					p++;
			p = skip_space(p);
		}
		if (*p != ',')
			return p;
		p++;
	}
}

/* Whether the word of N characters at P is WORD. */
static bool word_is(const char *p, size_t n, const char *word)
{
	return strlen(word) == n && memcmp(p, word, n) == 0;
}

static void index_text(struct tapset_index *ix, const char *text, int file)
{
	for (const char *p = skip_space(text); *p; p = skip_space(p)) {
		const char *end = p;
		size_t n;

		if (!is_name_char(*p) || (p > text && (is_name_char(p[-1]) || p[-1] == '$' ||
						       p[-1] == '@'))) {
			p = skip_other(p);
			continue;
		}
		while (is_name_char(*end))
			end++;
		n = (size_t)(end - p);
		if (word_is(p, n, "function")) {
			char *name = name_at(skip_space(end), false, &end);

			if (name)
				add_definition(ix, TAPSET_FUNCTION, name, file);
			free(name);
			p = end;
		} else if (word_is(p, n, "probe")) {
			p = index_alias(ix, end, file);
		} else if (word_is(p, n, "global")) {
			p = index_globals(ix, end, file);
		} else {
			p = end;
		}
	}
}

/*
 * ---- the index's cache ----
 * What index_text() notes in a file depends on its text alone, so the notes of every file
 * are kept in the cache (tapset-index/, one file per search path and program), each with
 * its file's identity (size, time, inode): a run finds a file unchanged by one stat()
 * instead of reading and scanning it (the scan of about a hundred files was half of a hello
 * world's passes 1-2).  The cache's lines:
 *	stapler tapset index 2
 *	F SIZE SECONDS NANOSECONDS INODE PATH
 *	KIND NAME		(its notes, in order)
 *	S I I I ...		(last: the notes' sorted order, each the note's number)
 * When no file changed, the index takes the sorted order from the last line (checked:
 * each definition after the one before) instead of sorting the notes again.
 */
#define INDEX_CACHE_MAGIC "stapler tapset index 2\n"

static bool read_identity(const char **p, struct file_identity *id)
{
	char *end;

	id->size = strtoll(*p, &end, 10);
	id->sec = strtoll(end, &end, 10);
	id->nsec = strtoll(end, &end, 10);
	id->ino = strtoull(end, &end, 10);
	if (*end != ' ')
		return false;
	*p = end + 1;
	return true;
}

/* The cache's files and their notes, which stay in the cache's text (the index keeps
 * the names there: nothing is copied) */
static void index_cache_load(struct tapset_index *ix, const char *path)
{
	char *body, *text = read_cache_text(path, INDEX_CACHE_MAGIC, &body), *line, *next;
	struct cached_notes *cur = NULL;

	if (!text)
		return;
	for (line = body; *line; line = next) {
		const char *p = line + 2;

		next = strchr(line, '\n');
		if (!next)
			break;	/* a cut line: what came before stands */
		next++;
		if (line[0] == 'S' && line[1] == ' ') {
			line[0] = '\0';	/* the end of the last file's notes */
			while (*p >= '0' && *p <= '9') {
				int i = 0;

				while (*p >= '0' && *p <= '9' && i < 100000000)
					i = i * 10 + (*p++ - '0');
				if (*p == ' ')
					p++;
				if ((ix->ncached_sort & (ix->ncached_sort - 1)) == 0)
					ix->cached_sort = xrealloc(ix->cached_sort,
						(ix->ncached_sort ? 2 * ix->ncached_sort : 1) *
						sizeof(*ix->cached_sort));
				ix->cached_sort[ix->ncached_sort++] = i;
			}
			break;
		}
		if (line[0] == 'F' && line[1] == ' ') {
			struct file_identity id;

			if (!read_identity(&p, &id))
				break;
			line[0] = '\0';	/* the end of the notes before */
			if ((ix->ncached & (ix->ncached - 1)) == 0)
				ix->cached = xrealloc(ix->cached, (ix->ncached ? 2 * ix->ncached : 1) *
						      sizeof(*ix->cached));
			cur = &ix->cached[ix->ncached++];
			*cur = (struct cached_notes){ .id = id, .notes = next,
						     .path = xstrndup(p, (size_t)(next - 1 - p)) };
		}
	}
	if (cur)
		ix->cache_text = text;
	else
		free(text);
}

/* The cache's notes of PATH if it is unchanged since, else NULL. */
static char *cached_notes(struct tapset_index *ix, const char *path,
			  const struct file_identity *id)
{
	for (int n = 0; n < ix->ncached; n++) {
		/* files come in the cache's order: look from the one after the last found */
		struct cached_notes *c = &ix->cached[(ix->next_cached + n) % ix->ncached];
		if (strcmp(c->path, path) == 0) {
			ix->next_cached = (int)(c - ix->cached) + 1;
			return memcmp(&c->id, id, sizeof(*id)) == 0 ? c->notes : NULL;
		}
	}
	return NULL;
}

/* By kind and name; among equals, the first noted (the more specific folder) first. */
static int compare_definitions(const void *a, const void *b)
{
	const struct tapset_definition *x = a, *y = b;
	int c = x->kind != y->kind ? (x->kind < y->kind ? -1 : 1) : strcmp(x->name, y->name);

	return c ? c : (x->order < y->order ? -1 : x->order > y->order);
}

/* The cache's text of the notes (before they are sorted); false if a path cannot be
 * written so. */
static bool index_cache_text(struct tapset_index *ix, struct strbuf *sb)
{
	sb_puts(sb, INDEX_CACHE_MAGIC);
	for (int i = 0; i < ix->nfiles; i++) {
		const struct tapset_file *f = &ix->files[i];

		if (strchr(f->path, '\n'))
			return false;
		sb_printf(sb, "F %lld %lld %lld %llu %s\n", f->id.size, f->id.sec, f->id.nsec,
			  f->id.ino, f->path);
		for (int d = f->first_definition; d < f->first_definition + f->ndefinitions; d++)
			sb_printf(sb, "%d %s\n", (int)ix->definitions[d].kind,
				  ix->definitions[d].name);
	}
	return true;
}

/* Sorts the notes as the cache's last line says, when it says so for exactly these
 * notes (every file unchanged): false if it does not. */
static bool sort_as_cached(struct tapset_index *ix)
{
	int n = ix->ndefinitions;
	struct tapset_definition *sorted;
	unsigned char *seen;
	bool ok = ix->ncached_sort == n;

	if (!ok)
		return false;
	sorted = xmalloc(n * sizeof(*sorted));
	seen = xcalloc(n, 1);
	for (int k = 0; k < n && ok; k++) {
		int i = ix->cached_sort[k];

		ok = i >= 0 && i < n && !seen[i];
		if (ok) {
			seen[i] = 1;
			sorted[k] = ix->definitions[i];
			ok = k == 0 || compare_definitions(&sorted[k - 1], &sorted[k]) < 0;
		}
	}
	free(seen);
	if (ok) {
		free(ix->definitions);
		ix->definitions = sorted;
	} else {
		free(sorted);
	}
	return ok;
}

/* The notes "KIND NAME\n"... of the cache, as index_text() would have made them. */
static void index_notes(struct tapset_index *ix, char *notes, int file)
{
	for (char *p = notes; *p;) {
		char *name = p + 2, *eol = strchr(name, '\n');

		if (p[0] < '0' || p[0] > '9' || p[1] != ' ' || !eol)
			break;	/* kinds are one digit */
		*eol = '\0';
		note_definition(ix, (enum tapset_definition_kind)(p[0] - '0'), name, file);
		p = eol + 1;
	}
}

static bool strlist_contains(const struct strlist *l, const char *s);

static void index_file(void *arg, const char *path)
{
	struct tapset_index *ix = arg;
	int file = ix->nfiles;
	struct file_identity id;
	char *notes, *text = NULL;

	if (strlist_contains(&ix->pp->session->skipped_tapsets, path) ||
	    !file_identity(path, &id))
		return;
	notes = cached_notes(ix, path, &id);
	if (!notes) {
		text = read_file(path, NULL);
		if (!text)
			return;
		ix->cache_stale = true;
	}
	ix->files = xrealloc(ix->files, (ix->nfiles + 1) * sizeof(*ix->files));
	ix->files[file] = (struct tapset_file){
		.path = xstrdup(path),
		.from_include_dir = ix->indexing_include_dir,
		.id = id,
		.first_definition = ix->ndefinitions,
	};
	ix->nfiles++;
	if (notes)
		index_notes(ix, notes, file);
	else
		index_text(ix, text, file);
	ix->files[file].ndefinitions = ix->ndefinitions - ix->files[file].first_definition;
	free(text);
}

/* The first definition of KIND and NAME, or NULL; the others follow it. */
static struct tapset_definition *first_definition(struct tapset_index *ix,
						  enum tapset_definition_kind kind,
						  const char *name)
{
	int lo = 0, hi = ix->ndefinitions;

	while (lo < hi) {	/* the first not below (KIND, NAME) */
		int mid = lo + (hi - lo) / 2;
		struct tapset_definition *d = &ix->definitions[mid];
		int c = d->kind != kind ? (d->kind < kind ? -1 : 1) : strcmp(d->name, name);

		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < ix->ndefinitions && ix->definitions[lo].kind == kind &&
	    strcmp(ix->definitions[lo].name, name) == 0)
		return &ix->definitions[lo];
	return NULL;
}

/* DIR is FOLDER or inside it */
static bool in_folder(const char *dir, const char *folder)
{
	size_t n = folder ? strlen(folder) : 0;

	return n && strncmp(dir, folder, n) == 0 && (dir[n] == '\0' || dir[n] == '/');
}

static bool strlist_contains(const struct strlist *l, const char *s)
{
	for (int i = 0; i < l->count; i++)
		if (strcmp(l->items[i], s) == 0)
			return true;
	return false;
}

struct tapset_index *tapset_index_open(struct session *s, struct preprocessor *pp)
{
	struct tapset_index *ix = xcalloc(1, sizeof(*ix));
	struct strlist path = tapset_search_path(s);
	char *cache = NULL;
	bool sorted = false;

	ix->pp = pp;
	if (cache_mode != CACHE_DISABLED && s->tapset_dir) {
		struct strbuf tag = { 0 };

		for (int i = 0; i < path.count; i++) {
			sb_puts(&tag, path.items[i]);
			sb_putc(&tag, '\n');
		}
		cache = cache_path_for_file("tapset-index", "", tag.data ? tag.data : "",
					    s->tapset_dir);
		sb_free(&tag);
		if (cache_mode == CACHE_USE)
			index_cache_load(ix, cache);
	}
	for (int i = 0; i < path.count; i++) {
		ix->indexing_include_dir = !in_folder(path.items[i], s->tapset_dir) &&
					   !strlist_contains(&s->generated_tapsets, path.items[i]);
		for_each_file(path.items[i], stp_file_filter, index_file, ix);
	}
	strlist_free(&path);
	if (!ix->cache_stale && ix->nfiles == ix->ncached && sort_as_cached(ix)) {
		sorted = true;	/* as the cache has it */
	} else if (cache) {
		struct strbuf sb = { 0 };

		if (index_cache_text(ix, &sb)) {
			qsort(ix->definitions, ix->ndefinitions, sizeof(*ix->definitions),
			      compare_definitions);
			sorted = true;
			sb_puts(&sb, "S");
			for (int k = 0; k < ix->ndefinitions; k++)
				sb_printf(&sb, " %d", ix->definitions[k].order);
			sb_puts(&sb, "\n");
			install_file(cache, sb.data, sb.len);
		}
		sb_free(&sb);
	}
	free(cache);
	for (int i = 0; i < ix->ncached; i++)
		free(ix->cached[i].path);
	free(ix->cached);
	free(ix->cached_sort);
	ix->cached = NULL;
	ix->cached_sort = NULL;
	ix->ncached = ix->ncached_sort = 0;
	if (!sorted && ix->ndefinitions)
		qsort(ix->definitions, ix->ndefinitions, sizeof(*ix->definitions), compare_definitions);
	return ix;
}

struct include_check {
	struct session *session;
	struct preprocessor *pp;
	bool failed;			/* -W: a warning is an error */
};

static void check_include_file(void *arg, const char *path)
{
	struct include_check *ic = arg;
	char *text = read_file(path, NULL);
	struct source_file *src;
	int errors = 0;

	if (!text)
		return;
	src = xcalloc(1, sizeof(*src));
	src->name = xstrdup(path);
	src->is_tapset = true;
	src->from_include_dir = true;
	src->text = text;
	parse_file(ic->pp, src, true, true, &errors);
	if (!errors)
		return;
	fprintf(stderr, "%d parse error%s.\n", errors, errors == 1 ? "" : "s");
	strlist_add(&ic->session->skipped_tapsets, path);
	/* stap's words, a WARNING even when -W fails the pass for it */
	if (!ic->session->suppress_warnings || ic->session->warnings_as_errors)
		fprintf(stderr, "WARNING: tapset \"%s\" has errors, and will be skipped\n", path);
	ic->failed |= ic->session->warnings_as_errors;
}

/*
 * stap parses every tapset file in pass 1; we parse the library's when pass 2 needs one
 * (they are ours, and parse), but the files of -I folders in pass 1 as stap: one that
 * does not parse is reported with its errors and skipped (-W makes that an error: true).
 */
bool tapset_check_include_dirs(struct session *s, struct preprocessor *pp)
{
	struct strlist path = tapset_search_path(s);
	struct include_check ic = { .session = s, .pp = pp };

	for (int i = 0; s->include_dirs.count && i < path.count; i++)
		if (!in_folder(path.items[i], s->tapset_dir) &&
		    !strlist_contains(&s->generated_tapsets, path.items[i]))
			for_each_file(path.items[i], stp_file_filter, check_include_file, &ic);
	strlist_free(&path);
	return ic.failed;
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
	src->from_include_dir = tf->from_include_dir;
	src->text = read_file(tf->path, NULL);
	if (!src->text) {
		tf->parse_failed = true;
		return NULL;
	}
	tf->parsed = parse_file(ix->pp, src, true, true, errors);	/* $1, @1, $# too (argv.stp) */
	if (*errors != before) {
		tf->parsed = NULL;
		tf->parse_failed = true;
	}
	return tf->parsed;
}

/* ---- files joining the program ---- */

/* A file's alias names may not have wildcards (what would "probe a.* {}" expand?). */
static void check_alias_names(struct elaborator *el, struct stapfile *file)
{
	for (struct probe *a = file->probes; a; a = a->next) {
		bool wild = false;

		if (!a->alias)
			continue;
		for (struct component *c = a->alias_name->components; c; c = c->next)
			wild |= strchr(c->name, '*') != NULL;
		if (wild) {
			semantic_error(el, a->tok, "while registering probe alias");
			semantic_error(el, NULL, "invalid use of wildcard probe point component");
		}
	}
}

void add_program_file(struct elaborator *el, struct stapfile *file)
{
	if (file->in_program == el->prog)
		return;
	if (!el->files_tail)
		el->files_tail = &el->prog->files;
	while (*el->files_tail)
		el->files_tail = &(*el->files_tail)->next;
	*el->files_tail = file;
	file->in_program = el->prog;
	if (file->globals) {
		el->global_files = xrealloc(el->global_files,
					    (el->nglobal_files + 1) * sizeof(*el->global_files));
		el->global_files[el->nglobal_files++] = file;
	}
	if (file->functions) {
		el->function_files = xrealloc(el->function_files, (el->nfunction_files + 1) *
					      sizeof(*el->function_files));
		el->function_files[el->nfunction_files++] = file;
	}
	check_alias_names(el, file);
	for (struct symbol *g = file->globals; g; g = g->next)
		g->file = file;
	for (struct embed *e = file->embeds; e; e = e->next)
		el->prog->nembeds++;
}

struct stapfile *tapset_load(struct elaborator *el, enum tapset_definition_kind kind,
			     const char *name)
{
	struct tapset_index *ix = el->tapsets;
	struct tapset_definition *d = first_definition(ix, kind, name);
	struct stapfile *file = d ? parse_tapset_file(ix, &ix->files[d->file], &el->errors) : NULL;

	if (file)
		add_program_file(el, file);
	return file;
}

void tapset_load_all(struct elaborator *el, enum tapset_definition_kind kind, const char *name)
{
	struct tapset_index *ix = el->tapsets;
	struct tapset_definition *first = first_definition(ix, kind, name);

	for (int i = first ? (int)(first - ix->definitions) : ix->ndefinitions;
	     i < ix->ndefinitions && ix->definitions[i].kind == kind &&
	     strcmp(ix->definitions[i].name, name) == 0; i++) {
		struct tapset_definition *d = &ix->definitions[i];
		struct stapfile *file = parse_tapset_file(ix, &ix->files[d->file], &el->errors);

		if (file)
			add_program_file(el, file);
	}
}

void tapset_load_every_file(struct elaborator *el)
{
	struct tapset_index *ix = el->tapsets;

	for (int i = 0; i < ix->nfiles; i++) {
		struct stapfile *file = parse_tapset_file(ix, &ix->files[i], &el->errors);

		if (file)
			add_program_file(el, file);
	}
}

/* ---- the names the index has ---- */

/* The I-th definition of KIND (tapset_names()'s order). */
static struct tapset_definition *nth_definition(struct tapset_index *ix,
						enum tapset_definition_kind kind, int i)
{
	int first = 0, end = ix->ndefinitions;

	while (first < end) {	/* the first definition of KIND: they are sorted by kind */
		int mid = first + (end - first) / 2;

		if (ix->definitions[mid].kind < kind)
			first = mid + 1;
		else
			end = mid;
	}
	return &ix->definitions[first + i];
}

bool tapset_name_parsed(struct tapset_index *ix, enum tapset_definition_kind kind, int i)
{
	struct tapset_definition *d = nth_definition(ix, kind, i);

	return ix->files[d->file].parsed || ix->files[d->file].parse_failed;
}

void tapset_load_nth(struct elaborator *el, enum tapset_definition_kind kind, int i)
{
	struct tapset_index *ix = el->tapsets;
	struct tapset_definition *d = nth_definition(ix, kind, i);
	struct stapfile *file = parse_tapset_file(ix, &ix->files[d->file], &el->errors);

	if (file)
		add_program_file(el, file);
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
