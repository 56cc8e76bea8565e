/*
 * debuginfo.c - where the target kernel's DWARF is, and the objects opened so far.
 *
 * The kernel's: the first of /usr/lib/debug/boot/vmlinux-REL,
 * /usr/lib/debug/lib/modules/REL/vmlinux, BUILD/vmlinux, /boot/vmlinux-REL that has a
 * .debug_info section (Debian's linux-image-REL-dbg installs the first two).  A module's:
 * NAME.ko (or NAME.ko.debug) under /usr/lib/debug/lib/modules/REL, then under
 * /lib/modules/REL, '-' and '_' alike in names.  A program's or library's: the file
 * user_programs.c found.  Each is opened once (dwarf_module.c), its tables read from the
 * cache when they are there (dwarf_cache.c), and kept until debuginfo_close().
 */
#include "dw.h"
#include "ctype.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct debuginfo *definitions_in;	/* the last opened: one a run */

/* The definition of a struct only declared in a unit of DW: among DW's module's types,
 * else the kernel's (a module's unit may declare a type of the kernel). */
static bool find_definition(Dwarf *dw, const char *name, Dwarf_Die *def)
{
	struct debuginfo *di = definitions_in;
	struct dw_module *m = di ? di->modules : NULL;

	while (m && m->dwarf != dw)
		m = m->next;
	if (m && dw_find_type(m, name, def))
		return true;
	if (m && m->is_user)
		return false;	/* a program's types are its own */
	return di && di->kernel && dw_find_type(di->kernel, name, def);
}

struct debuginfo *debuginfo_open(struct session *s)
{
	struct debuginfo *di = xcalloc(1, sizeof(*di));

	di->session = s;
	di->release = xstrdup(s->kernel_release);
	definitions_in = di;
	ctype_find_definitions_with(find_definition);
	return di;
}

/* ---- files ---- */

/* Whether PATH is an ELF file with DWARF. */
static bool has_dwarf(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	bool found = false;

	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_getshdrstrndx(elf, &shstrndx) == 0) {
		while (!found && (scn = elf_nextscn(elf, scn))) {
			GElf_Shdr shdr;
			const char *name;

			if (gelf_getshdr(scn, &shdr) && (name = elf_strptr(elf, shstrndx, shdr.sh_name)))
				found = strcmp(name, ".debug_info") == 0 && shdr.sh_type != SHT_NOBITS;
		}
	}
	elf_end(elf);
	close(fd);
	return found;
}

bool debuginfo_hidden(void)
{
	const char *v = getenv("STAPLER_NO_DEBUGINFO");

	return v && *v;
}

static char *find_kernel(struct debuginfo *di)
{
	const char *rel = di->release;
	char *candidates[] = {
		xasprintf("/usr/lib/debug/boot/vmlinux-%s", rel),
		xasprintf("/usr/lib/debug/lib/modules/%s/vmlinux", rel),
		xasprintf("%s/vmlinux", di->session->kernel_build_dir),
		xasprintf("/boot/vmlinux-%s", rel),
	};
	char *found = NULL;
	bool none = debuginfo_hidden();

	for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++) {
		if (!found && !none && has_dwarf(candidates[i]))
			found = candidates[i];
		else
			free(candidates[i]);
	}
	return found;
}

char *debuginfo_kernel_file(struct session *s)
{
	struct debuginfo di = { .session = s, .release = xstrdup(s->kernel_release) };
	char *found = find_kernel(&di);

	free(di.release);
	return found;
}

char *kernel_module_name(const char *file)
{
	const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
	char *name = xstrndup(base, strcspn(base, "."));

	for (char *p = name; *p; p++)
		if (*p == '-')
			*p = '_';
	return name;
}

/* NAME.ko, compressed as the kernel's CONFIG_MODULE_COMPRESS_* leaves it (6.12's Debian
 * packages: .ko.xz), or the -dbg package's NAME.ko.debug. */
static bool is_module_file(const char *name, size_t len)
{
	static const char *const suffixes[] = { ".ko", ".ko.xz", ".ko.zst", ".ko.gz", ".ko.debug" };

	for (size_t i = 0; i < sizeof(suffixes) / sizeof(*suffixes); i++) {
		size_t n = strlen(suffixes[i]);

		if (len > n && strcmp(name + len - n, suffixes[i]) == 0)
			return true;
	}
	return false;
}

static void scan_modules(struct strlist *paths, const char *dir, int depth)
{
	DIR *d = depth < 16 ? opendir(dir) : NULL;
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char *path;
		size_t len = strlen(e->d_name);

		if (e->d_name[0] == '.')
			continue;
		path = xasprintf("%s/%s", dir, e->d_name);
		if (e->d_type == DT_DIR || (e->d_type == DT_UNKNOWN && is_dir(path)))
			scan_modules(paths, path, depth + 1);
		else if (is_module_file(e->d_name, len))
			strlist_add(paths, path);
		free(path);
	}
	closedir(d);
}

void find_module_files(struct strlist *paths, const char *dir)
{
	scan_modules(paths, dir, 0);
}

/* Every module file of the release: the debuginfo folder's first, then the installed. */
static void scan_all_modules(struct debuginfo *di)
{
	char *dirs[] = {
		xasprintf("/usr/lib/debug/lib/modules/%s", di->release),
		xasprintf("/lib/modules/%s/kernel", di->release),
		xasprintf("/lib/modules/%s/updates", di->release),
		xasprintf("/lib/modules/%s/extra", di->release),
	};

	if (di->modules_scanned)
		return;
	di->modules_scanned = true;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		if (!debuginfo_hidden())
			scan_modules(&di->module_paths, dirs[i], 0);
		free(dirs[i]);
	}
}

struct strlist module_names_matching(const struct strlist *files, const char *pattern)
{
	struct strlist names = { 0 };
	char *wanted = xstrdup(pattern);
	int kept = 0;

	for (char *p = wanted; *p; p++)
		if (*p == '-')
			*p = '_';
	for (int i = 0; i < files->count; i++) {
		char *name = kernel_module_name(files->items[i]);

		if (fnmatch(wanted, name, 0) == 0)
			strlist_add(&names, name);
		free(name);
	}
	if (names.count)
		qsort(names.items, names.count, sizeof(*names.items), compare_strings);
	for (int i = 0; i < names.count; i++) {	/* a module's .ko and .ko.debug: once */
		if (kept && strcmp(names.items[kept - 1], names.items[i]) == 0)
			free(names.items[i]);
		else
			names.items[kept++] = names.items[i];
	}
	names.count = kept;
	free(wanted);
	return names;
}

struct strlist debuginfo_module_names(struct debuginfo *di, const char *pattern)
{
	scan_all_modules(di);
	return module_names_matching(&di->module_paths, pattern);
}

char *debuginfo_missing(struct debuginfo *di)
{
	return xasprintf("missing %s kernel/module debuginfo" MAN_PAGE("warning::debuginfo")
			 " under '%s' (Debian's linux-image-%s-dbg has it)", kernel_arch(),
			 di->session->kernel_build_dir, di->release);
}

/* ---- the objects opened ---- */

/* NAME's object at PATH opened (its DWARF, or with SYMBOLS_OK, a program's or library's
 * ELF file alone: symbols_only), its tables read; NULL if it cannot be. */
static struct dw_module *open_module(struct debuginfo *di, const char *name, const char *path,
				     bool is_kernel, bool is_user, bool symbols_ok)
{
	struct dw_module *m = xcalloc(1, sizeof(*m));
	double start = now_ms();

	m->name = xstrdup(name);
	m->path = xstrdup(path);
	m->is_kernel = is_kernel;
	m->is_user = is_user;
	m->session = di->session;
	/* with the tables in the cache, the DWARF is opened only when a query needs it */
	if (is_user || !dw_cache_load(m)) {
		if (!dw_module_open(m) && !(symbols_ok && dw_module_open_symbols(m))) {
			dw_module_free(m);
			return NULL;
		}
		dw_module_read_tables(m);
	}
	if (verbose_at(di->session, 2, 2))
		fprintf(stderr, "Pass 2: read %s's debuginfo %s (%d symbols%s) in %.0f ms\n", name,
			path, m->nsymbols, m->index ? ", cached index" : "", now_ms() - start);
	return m;
}

struct dw_module *debuginfo_kernel(struct debuginfo *di)
{
	if (di->kernel)
		return di->kernel;
	if (!di->kernel_path)
		di->kernel_path = find_kernel(di);
	if (di->kernel_path)
		di->kernel = open_module(di, "kernel", di->kernel_path, true, false, false);
	return di->kernel;
}

struct dw_module *debuginfo_module(struct debuginfo *di, const char *name)
{
	char *wanted = kernel_module_name(name);
	struct dw_module *m;

	for (m = di->modules; m; m = m->next)
		if (strcmp(m->name, wanted) == 0)
			goto out;
	scan_all_modules(di);
	for (int i = 0; i < di->module_paths.count && !m; i++) {
		char *candidate = kernel_module_name(di->module_paths.items[i]);

		if (strcmp(candidate, wanted) == 0 && has_dwarf(di->module_paths.items[i]))
			m = open_module(di, wanted, di->module_paths.items[i], false, false,
						false);
		free(candidate);
	}
	if (m) {
		m->next = di->modules;
		di->modules = m;
	}
out:
	free(wanted);
	return m;
}

struct dw_module *debuginfo_module_file(struct debuginfo *di, const char *path)
{
	struct dw_module *m;
	char *name;

	for (m = di->modules; m; m = m->next)
		if (!m->is_user && !m->is_kernel && strcmp(m->path, path) == 0)
			return m;
	if (!has_dwarf(path))
		return NULL;
	name = kernel_module_name(path);
	m = open_module(di, name, path, false, false, false);
	free(name);
	if (m) {
		m->next = di->modules;
		di->modules = m;
	}
	return m;
}

struct dw_module *debuginfo_program(struct debuginfo *di, const char *target, const char *file,
				    char **why)
{
	struct dw_module *m;

	*why = NULL;
	for (m = di->modules; m; m = m->next)
		if (m->is_user && strcmp(m->name, target) == 0)
			return m;
	/* without DWARF, its ELF symbols alone, as stap falls back on them */
	m = open_module(di, target, file, false, true, true);
	if (!m || m->symbols_only) {
		int fd = open(file, O_RDONLY);

		*why = xstrdup(fd < 0 ? strerror(errno) : "No DWARF information found");
		if (fd >= 0)
			close(fd);
		if (!m)
			return NULL;
	}
	m->next = di->modules;
	di->modules = m;
	return m;
}

struct dw_module *debuginfo_headers(struct debuginfo *di, const char *spec)
{
	struct dw_module *m;
	char *object;

	for (m = di->modules; m; m = m->next)
		if (m->is_user && strcmp(m->name, spec) == 0)
			return m->dwarf ? m : NULL;
	object = dw_compile_headers(di->session, spec);
	m = object ? open_module(di, spec, object, false, true, false) : NULL;
	if (object)
		unlink(object);		/* open, it stays readable */
	free(object);
	if (!m) {	/* remembered, so that the compiler's messages come once */
		m = xcalloc(1, sizeof(*m));
		m->name = xstrdup(spec);
		m->path = xstrdup(spec);
		m->is_user = m->open_failed = true;
	}
	m->next = di->modules;
	di->modules = m;
	return m->dwarf ? m : NULL;
}

struct dw_module *debuginfo_kernel_headers(struct debuginfo *di, const char *spec)
{
	char *name = xasprintf("kernel%s", spec), *object;
	struct dw_module *m;

	/* opened as a user-space file is (its DWARF read now, no tables kept), but its types
	 * describe kernel memory: the caller knows */
	for (m = di->modules; m; m = m->next)
		if (m->is_user && strcmp(m->name, name) == 0) {
			free(name);
			return m->dwarf ? m : NULL;
		}
	object = dw_compile_kernel_headers(di->session, spec);
	m = object ? open_module(di, name, object, false, true, false) : NULL;
	free(object);
	if (!m) {	/* remembered, so that kbuild's messages come once */
		m = xcalloc(1, sizeof(*m));
		m->name = xstrdup(name);
		m->path = xstrdup(name);
		m->is_user = m->open_failed = true;
	}
	free(name);
	m->next = di->modules;
	di->modules = m;
	return m->dwarf ? m : NULL;
}

void debuginfo_close(struct debuginfo *di, struct dw_module *m)
{
	struct dw_module **link = &di->modules;

	if (m == di->kernel || m->in_use)
		return;		/* the kernel's stays for the run, and so do the probes' */
	while (*link && *link != m)
		link = &(*link)->next;
	if (*link)
		*link = m->next;
	dw_module_free(m);
}
