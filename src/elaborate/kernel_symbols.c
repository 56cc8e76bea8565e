/*
 * kernel_symbols.c - the target kernel's functions, for kprobes and -l.
 *
 * When translating for the running kernel, /proc/kallsyms.  For another release (-r), its
 * System.map: Debian ships the real one in the -dbg package
 * (/usr/lib/debug/boot/System.map-REL; the image package's is a placeholder).  Text
 * symbols (t, T) are functions.  Modules' functions are not looked up here: as in stap,
 * kprobe.module(M).function(F) is resolved when the module is there, at run time.
 */
#include "elaborate.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

struct kernel_symbols {
	struct strlist functions;	/* sorted, unique */
};

static void sort_unique(struct strlist *l)
{
	int kept = 0;

	if (l->count)
		qsort(l->items, l->count, sizeof(*l->items), compare_strings);
	for (int i = 0; i < l->count; i++) {
		if (kept == 0 || strcmp(l->items[kept - 1], l->items[i]) != 0)
			l->items[kept++] = l->items[i];
		else
			free(l->items[i]);
	}
	l->count = kept;
	if (l->items)
		l->items[kept] = NULL;
}

/* "ADDRESS TYPE NAME [MODULE]" lines: System.map, or kallsyms (whose modules' are left). */
static bool read_symbol_table(struct kernel_symbols *ks, const char *path)
{
	size_t len;
	char *text = read_file(path, &len);
	int found = 0;

	if (!text)
		return false;
	for (char *line = text, *end; *line; line = end) {
		char *type, *name, *name_end;

		end = strchr(line, '\n');
		end = end ? (*end = '\0', end + 1) : line + strlen(line);
		type = strchr(line, ' ');	/* past the address */
		if (!type || (type[1] != 't' && type[1] != 'T') || type[2] != ' ')
			continue;
		name = type + 3;
		name_end = name + strcspn(name, " \t");
		if (*name_end)	/* "\t[module]" follows: kallsyms's modules are left out */
			continue;
		strlist_add(&ks->functions, name);
		found++;
	}
	free(text);
	return found > 0;	/* else a placeholder, or unreadable */
}

static struct kernel_symbols *kernel_symbols_open(struct elaborator *el, bool quiet)
{
	struct session *s = el->session;
	struct kernel_symbols *ks;
	struct utsname u;

	if (el->kernel)
		return el->kernel;
	ks = el->kernel = xcalloc(1, sizeof(*ks));
	uname(&u);
	if (strcmp(u.release, s->kernel_release) == 0 && read_symbol_table(ks, "/proc/kallsyms"))
		goto done;
	char *candidates[] = {
		xasprintf("/usr/lib/debug/boot/System.map-%s", s->kernel_release),
		xasprintf("/boot/System.map-%s", s->kernel_release),
		xasprintf("%s/System.map", s->kernel_build_dir),
		xasprintf("/lib/modules/%s/build/System.map", s->kernel_release),
	};
	bool found = false;

	for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++) {
		found = found || read_symbol_table(ks, candidates[i]);
		free(candidates[i]);
	}
	if (!found && !quiet) {
		int was_quiet = diag_quiet;

		if (el->listing)	/* -l says nothing of points that do not resolve; this, yes */
			diag_quiet = 0;
		semantic_error(el, NULL, "no symbol table for kernel %s: install linux-image-%s-dbg "
			       "(it has /usr/lib/debug/boot/System.map-%s)", s->kernel_release,
			       s->kernel_release, s->kernel_release);
		diag_quiet = was_quiet;
	}
	if (!found && quiet) {	/* said when a probe needs the table */
		free(ks);
		el->kernel = NULL;
		return NULL;
	}
done:
	sort_unique(&ks->functions);
	return ks;
}

/* The kernel's functions matching PATTERN (a glob), in name order.  Only the names that
 * begin with the pattern's literal part are tried (the list is sorted): a syscall.* script
 * asks for 800 names, each of which was tried against all 60000. */
struct strlist kernel_functions(struct elaborator *el, const char *pattern)
{
	struct strlist *all = &kernel_symbols_open(el, false)->functions;
	struct strlist found = { 0 };
	size_t literal = strcspn(pattern, "*?[\\");
	int lo = 0, hi = all->count;

	while (lo < hi) {	/* the first name not below the literal part */
		int mid = lo + (hi - lo) / 2;

		if (strncmp(all->items[mid], pattern, literal) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (int i = lo; i < all->count && strncmp(all->items[i], pattern, literal) == 0; i++)
		if (fnmatch(pattern, all->items[i], 0) == 0)
			strlist_add(&found, all->items[i]);
	return found;
}

/* All of the kernel's function names, for "did you mean". */
int kernel_function_names(struct elaborator *el, const char ***names)
{
	struct strlist *all = &kernel_symbols_open(el, false)->functions;

	*names = (const char **)all->items;
	return all->count;
}

/* Whether the kernel has the function NAME: true, false, or -1 without a symbol table
 * (nothing said: a probe that needs the table says it). */
int kernel_has_function(struct elaborator *el, const char *name)
{
	struct kernel_symbols *ks = kernel_symbols_open(el, true);

	if (!ks)
		return -1;
	return ks->functions.count && bsearch(&name, ks->functions.items, ks->functions.count,
					       sizeof(char *), compare_strings) != NULL;
}
