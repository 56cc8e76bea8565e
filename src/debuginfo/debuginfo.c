/*
 * debuginfo.c - where the target kernel's DWARF is, opened with libdwfl.
 *
 * The kernel's: the first of /usr/lib/debug/boot/vmlinux-REL,
 * /usr/lib/debug/lib/modules/REL/vmlinux, BUILD/vmlinux, /boot/vmlinux-REL that has a
 * .debug_info section (Debian's linux-image-REL-dbg installs the first two).  A module's:
 * NAME.ko (or NAME.ko.debug) under /usr/lib/debug/lib/modules/REL, then under
 * /lib/modules/REL, '-' and '_' alike in names.  Each file is reported to its own
 * libdwfl session "offline", which lays out a module's sections and relocates its DWARF.
 *
 * From each file's ELF symbol table, read once: the function symbols (for -l's functions
 * without DWARF, and "symbol+offset" anchors), which names are exported, and the text
 * kprobes may not touch: the .init/.exit sections, the kernel's entry, irqentry,
 * softirqentry, noinstr and kprobes text, and the functions of its own kprobe blocklist
 * (NOKPROBE_SYMBOL, the _kprobe_blacklist table).
 */
#include "dw.h"
#include "ctype.h"
#include "sdt.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <glob.h>
#include <signal.h>
#include <inttypes.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

char *kernel_module_name(const char *file)
{
	const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
	char *name = xstrndup(base, strcspn(base, "."));

	for (char *p = name; *p; p++)
		if (*p == '-')
			*p = '_';
	return name;
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
		else if ((len > 3 && strcmp(e->d_name + len - 3, ".ko") == 0) ||
			 (len > 9 && strcmp(e->d_name + len - 9, ".ko.debug") == 0))
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

/* ---- opening a file with libdwfl ---- */

/* The file reported is the one with DWARF: no separate debuginfo to look for. */
static int no_separate_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
				 Dwarf_Addr base, const char *file_name,
				 const char *debuglink_file, GElf_Word debuglink_crc,
				 char **debuginfo_file_name)
{
	(void)mod, (void)userdata, (void)modname, (void)base, (void)file_name;
	(void)debuglink_file, (void)debuglink_crc, (void)debuginfo_file_name;
	return -1;
}

static const Dwfl_Callbacks offline_callbacks = {
	.find_debuginfo = no_separate_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/* A program's DWARF may be in a separate file: .gnu_debuglink, or by build-id under
 * /usr/lib/debug/.build-id (Debian's -dbg packages), as libdwfl looks for it. */
static char *user_debuginfo_path;
static const Dwfl_Callbacks user_callbacks = {
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &user_debuginfo_path,
};

static int compare_symbols(const void *a, const void *b)
{
	const struct dw_symbol *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->function != y->function)		/* a function before others at its address */
		return x->function ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int compare_ranges(const void *a, const void *b)
{
	const struct dw_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static void add_range(struct dw_range **ranges, int *count, uint64_t start, uint64_t end,
		      const char *why)
{
	if (end <= start)
		return;
	*ranges = xrealloc(*ranges, (*count + 1) * sizeof(**ranges));
	(*ranges)[(*count)++] = (struct dw_range){ start, end, why };
}

static void block(struct dw_module *m, uint64_t start, uint64_t end, const char *why)
{
	add_range(&m->blocked, &m->nblocked, start, end, why);
}

static bool name_listed(const char **sorted, int count, const char *name)
{
	return bsearch(&name, sorted, count, sizeof(*sorted), compare_strings) != NULL;
}

/* A growing array of borrowed names (they point into the ELF's string table). */
struct names {
	const char **items;
	int count, cap;
};

static void add_name(struct names *l, const char *name)
{
	if (l->count == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 1024;
		l->items = xrealloc(l->items, l->cap * sizeof(*l->items));
	}
	l->items[l->count++] = name;
}

/* The named symbols: functions by address, every name sorted (uniqueness, exports). */
static void read_symbols(struct dw_module *m)
{
	int n = dwfl_module_getsymtab(m->dwfl_module), symbols_cap = 0;
	struct names names = { 0 }, exported = { 0 };

	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *name = dwfl_module_getsym_info(m->dwfl_module, i, &sym, &addr, &shndx,
							   NULL, NULL);
		int type = GELF_ST_TYPE(sym.st_info);

		if (!name || !*name || sym.st_shndx == SHN_UNDEF || type == STT_SECTION ||
		    type == STT_FILE)
			continue;
		add_name(&names, name);
		if (starts_with(name, "__ksymtab_"))
			add_name(&exported, name + strlen("__ksymtab_"));
		if (m->nsymbols == symbols_cap) {
			symbols_cap = symbols_cap ? symbols_cap * 2 : 1024;
			m->symbols = xrealloc(m->symbols, symbols_cap * sizeof(*m->symbols));
		}
		m->symbols[m->nsymbols++] = (struct dw_symbol){
			.name = name, .addr = addr, .size = sym.st_size, .function = type == STT_FUNC,
		};
	}
	if (names.count)
		qsort(names.items, names.count, sizeof(*names.items), compare_strings);
	if (exported.count)
		qsort(exported.items, exported.count, sizeof(*exported.items), compare_strings);
	for (int i = 0; i < m->nsymbols; i++) {
		struct dw_symbol *s = &m->symbols[i];
		const char **at = bsearch(&s->name, names.items, names.count, sizeof(*names.items),
					  compare_strings);

		s->unique = at && (at == names.items || strcmp(at[-1], s->name) != 0) &&
			    (at + 1 == names.items + names.count || strcmp(at[1], s->name) != 0);
		s->exported = name_listed(exported.items, exported.count, s->name);
	}
	if (m->nsymbols)
		qsort(m->symbols, m->nsymbols, sizeof(*m->symbols), compare_symbols);
	m->names = names.items;
	m->nnames = names.count;
	m->exported = exported.items;
	m->nexported = exported.count;
}

const struct dw_symbol *dw_symbol_named(struct dw_module *m, const char *name)
{
	for (int i = 0; i < m->nsymbols; i++)
		if (strcmp(m->symbols[i].name, name) == 0)
			return &m->symbols[i];
	return NULL;
}

/* The kernel's own kprobe blocklist: NOKPROBE_SYMBOL()'s table of function addresses. */
static void block_nokprobe_functions(struct dw_module *m)
{
	const struct dw_symbol *start = dw_symbol_named(m, "__start_kprobe_blacklist");
	const struct dw_symbol *stop = dw_symbol_named(m, "__stop_kprobe_blacklist");
	Elf_Scn *scn = NULL;

	if (!start || !stop || stop->addr <= start->addr)
		return;
	while ((scn = elf_nextscn(m->elf, scn))) {
		GElf_Shdr shdr;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_PROGBITS ||
		    start->addr < shdr.sh_addr || stop->addr > shdr.sh_addr + shdr.sh_size)
			continue;
		data = elf_getdata(scn, NULL);
		for (uint64_t a = start->addr; data && a + 8 <= stop->addr; a += 8) {
			uint64_t function;
			const struct dw_symbol *f;

			memcpy(&function, (char *)data->d_buf + (a - shdr.sh_addr), 8);
			f = dw_symbol_at(m, function);
			if (f && f->addr == function)
				block(m, f->addr, f->addr + (f->size ? f->size : 1), "blocklisted");
		}
		return;
	}
}

/* Text kprobes may not touch: sections by name, and the kernel's marked areas. */
static void read_blocked_text(struct dw_module *m)
{
	static const char *const sections[] = {
		".init.text", ".exit.text", ".noinstr.text", ".entry.text", ".kprobes.text",
		".irqentry.text", ".softirqentry.text", NULL,
	};
	static const char *const areas[] = {
		"__kprobes_text", "__entry_text", "__irqentry_text", "__softirqentry_text",
		"__noinstr_text", NULL,
	};
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(m->elf, &shstrndx) == 0) {
		while ((scn = elf_nextscn(m->elf, scn))) {
			GElf_Shdr shdr;
			const char *name;

			if (!gelf_getshdr(scn, &shdr) || !(shdr.sh_flags & SHF_EXECINSTR) ||
			    !(name = elf_strptr(m->elf, shstrndx, shdr.sh_name)))
				continue;
			if (strcmp(name, ".text") == 0 && !m->text_start)
				m->text_start = shdr.sh_addr;
			add_range(&m->text, &m->ntext, shdr.sh_addr, shdr.sh_addr + shdr.sh_size,
				  name);
			for (int i = 0; sections[i]; i++)
				if (strcmp(name, sections[i]) == 0)
					block(m, shdr.sh_addr, shdr.sh_addr + shdr.sh_size,
					      "blocklisted section");
		}
	}
	for (int i = 0; areas[i]; i++) {
		char *first = xasprintf("%s_start", areas[i]), *last = xasprintf("%s_end", areas[i]);
		const struct dw_symbol *a = dw_symbol_named(m, first), *b = dw_symbol_named(m, last);

		if (a && b)
			block(m, a->addr, b->addr, "blocklisted section");
		free(first);
		free(last);
	}
	if (m->is_kernel) {
		const struct dw_symbol *stext = dw_symbol_named(m, "_stext");

		if (stext)
			m->text_start = stext->addr;
		block_nokprobe_functions(m);
	}
	if (m->nblocked)
		qsort(m->blocked, m->nblocked, sizeof(*m->blocked), compare_ranges);
}

bool dw_module_open(struct dw_module *m)
{
	if (m->dwarf || m->open_failed)
		return m->dwarf != NULL;
	m->open_failed = true;
	m->dwfl = dwfl_begin(m->is_user ? &user_callbacks : &offline_callbacks);
	if (!m->dwfl)
		return false;
	dwfl_report_begin(m->dwfl);
	/* a program at its link-time addresses (offline, libdwfl would move a PIE one) */
	m->dwfl_module = m->is_user ? dwfl_report_elf(m->dwfl, m->name, m->path, -1, 0, false) :
				      dwfl_report_offline(m->dwfl, m->name, m->path, -1);
	dwfl_report_end(m->dwfl, NULL, NULL);
	if (!m->dwfl_module)
		return false;
	m->dwarf = dwfl_module_getdwarf(m->dwfl_module, &m->bias);
	m->elf = dwfl_module_getelf(m->dwfl_module, &m->bias);
	if (!m->dwarf || !m->elf) {
		m->dwarf = NULL;
		return false;
	}
	m->open_failed = false;
	return true;
}

static struct dw_module *open_module(struct debuginfo *di, const char *name, const char *path,
				     bool is_kernel, bool is_user)
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
		if (!dw_module_open(m))
			goto fail;
		read_symbols(m);
		read_blocked_text(m);
	}
	if (verbose_at(di->session, 2, 2))
		fprintf(stderr, "Pass 2: read %s's debuginfo %s (%d symbols%s) in %.0f ms\n", name,
			path, m->nsymbols, m->index ? ", cached index" : "", now_ms() - start);
	return m;
fail:
	if (m->dwarf)
		ctype_forget(m->dwarf);	/* its types point into the DWARF going now */
	if (m->dwfl)
		dwfl_end(m->dwfl);
	free(m->name);
	free(m->path);
	free(m);
	return NULL;
}

struct dw_module *debuginfo_kernel(struct debuginfo *di)
{
	if (di->kernel)
		return di->kernel;
	if (!di->kernel_path)
		di->kernel_path = find_kernel(di);
	if (di->kernel_path)
		di->kernel = open_module(di, "kernel", di->kernel_path, true, false);
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
			m = open_module(di, wanted, di->module_paths.items[i], false, false);
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

/* ---- user-space programs ---- */

/* FILE less the sysroot S has (already absolute and resolved), as a malloc'd path. */
static char *target_of(struct session *s, const char *file)
{
	size_t n = s->sysroot ? strlen(s->sysroot) : 0;

	while (n > 1 && s->sysroot[n - 1] == '/')
		n--;
	if (n > 1 && strncmp(file, s->sysroot, n) == 0 && file[n] == '/')
		return xstrdup(file + n);
	return xstrdup(file);
}

static char *sysroot_path(struct session *s, const char *path)
{
	return s->sysroot ? xasprintf("%s%s", s->sysroot, path) : xstrdup(path);
}

static bool executable_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* The interpreter a script FILE names on its "#!" line, or NULL (not a script). */
static char *script_interpreter(const char *file)
{
	char line[256];
	FILE *f = fopen(file, "r");
	size_t n = f ? fread(line, 1, sizeof(line) - 1, f) : 0;
	char *start;

	if (f)
		fclose(f);
	line[n] = '\0';
	if (n < 3 || line[0] != '#' || line[1] != '!')
		return NULL;
	start = line + 2 + strspn(line + 2, " \t");
	start[strcspn(start, " \t\n")] = '\0';
	return *start ? xstrdup(start) : NULL;
}

static bool find_program(struct session *s, const char *path, char **target, char **file,
			 char **why, int depth)
{
	char *candidate = NULL, *resolved, *interpreter;

	*target = *file = *why = NULL;
	if (!*path) {
		*why = xstrdup("an empty path");
		return false;
	}
	if (path[0] == '/') {
		candidate = sysroot_path(s, path);
	} else if (strchr(path, '/')) {
		char cwd[4096];

		if (!getcwd(cwd, sizeof(cwd))) {
			*why = xasprintf("cannot resolve '%s': %s", path, strerror(errno));
			return false;
		}
		candidate = xasprintf("%s/%s", cwd, path);
	} else {	/* as a shell finds a command */
		const char *dirs = getenv("PATH");
		char *copy = xstrdup(dirs && *dirs ? dirs : "/usr/bin:/bin"), *save = NULL;

		for (char *d = strtok_r(copy, ":", &save); d && !candidate;
		     d = strtok_r(NULL, ":", &save)) {
			char *p = xasprintf("%s/%s", *d ? d : ".", path), *f = sysroot_path(s, p);

			if (executable_file(f))
				candidate = f;
			else
				free(f);
			free(p);
		}
		free(copy);
		if (!candidate) {
			*why = xasprintf("cannot find executable '%s' in PATH", path);
			return false;
		}
	}
	resolved = realpath(candidate, NULL);
	if (!resolved) {
		*why = xasprintf("cannot find '%s': %s", path, strerror(errno));
		free(candidate);
		return false;
	}
	free(candidate);
	interpreter = script_interpreter(resolved);
	if (interpreter && depth < 4) {	/* a script: its interpreter runs, as stap probes */
		bool ok;

		free(resolved);
		ok = find_program(s, interpreter, target, file, why, depth + 1);
		free(interpreter);
		return ok;
	}
	free(interpreter);
	*file = resolved;
	*target = target_of(s, resolved);
	return true;
}

bool program_path(struct session *s, const char *path, char **target, char **file, char **why)
{
	return find_program(s, path, target, file, why, 0);
}

int program_paths(struct session *s, const char *pattern, struct strlist *targets,
		  struct strlist *files, char **why)
{
	glob_t matches;
	char *wanted;
	int found = 0;

	*why = NULL;
	if (!strpbrk(pattern, "*?[")) {
		char *target, *file;

		if (!program_path(s, pattern, &target, &file, why))
			return 0;
		strlist_add(targets, target);
		strlist_add(files, file);
		free(target);
		free(file);
		return 1;
	}
	/* as stap: the files the glob matches, $PATH not searched */
	wanted = pattern[0] == '/' ? sysroot_path(s, pattern) : xstrdup(pattern);
	if (glob(wanted, 0, NULL, &matches) == 0) {
		for (size_t i = 0; i < matches.gl_pathc; i++) {
			char *file = realpath(matches.gl_pathv[i], NULL), *target;
			struct stat st;
			bool seen = false;

			if (!file || stat(file, &st) != 0 || !S_ISREG(st.st_mode)) {
				free(file);
				continue;
			}
			target = target_of(s, file);
			for (int k = 0; k < targets->count && !seen; k++)
				seen = strcmp(targets->items[k], target) == 0;
			if (!seen) {
				strlist_add(targets, target);
				strlist_add(files, file);
				found++;
			}
			free(target);
			free(file);
		}
		globfree(&matches);
	}
	if (!found)
		*why = xasprintf("no file matches '%s'", pattern);
	free(wanted);
	return found;
}

char *process_point_program(struct session *s, const char *path, int64_t pid, char **why)
{
	*why = NULL;
	if (path)
		return xstrdup(path);
	if (pid) {
		char *link = xasprintf("/proc/%" PRId64 "/exe", pid), *exe = realpath(link, NULL);

		free(link);
		if (!exe)
			*why = xasprintf("cannot probe pid %" PRId64 ": %s", pid,
					 pid > 0 && kill((pid_t)pid, 0) == 0 ? "No executable" :
									      "No such process");
		return exe;
	}
	if (s->target_cmd) {	/* as stap: a plain command, its words as they are */
		size_t n;

		if (strpbrk(s->target_cmd, "|&;<>(){}`$\"'\\")) {
			*why = xstrdup("the -c command is not a plain command and its arguments");
			return NULL;
		}
		n = strspn(s->target_cmd, " \t");
		return xstrndup(s->target_cmd + n, strcspn(s->target_cmd + n, " \t"));
	}
	if (s->target_pid > 0)
		return process_point_program(s, NULL, s->target_pid, why);
	*why = xstrdup("unspecified process probe is invalid without a -c COMMAND or -x PID"
		       MAN_PAGE("stapprobes"));
	return NULL;
}

struct dw_module *debuginfo_program(struct debuginfo *di, const char *target, const char *file,
				    char **why)
{
	struct dw_module *m;

	*why = NULL;
	for (m = di->modules; m; m = m->next)
		if (m->is_user && strcmp(m->name, target) == 0)
			return m;
	m = open_module(di, target, file, false, true);
	if (!m) {
		int fd = open(file, O_RDONLY);

		*why = xstrdup(fd < 0 ? strerror(errno) : "No DWARF information found");
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	m->next = di->modules;
	di->modules = m;
	return m;
}

bool dw_file_offset(struct dw_module *m, uint64_t addr, uint64_t *offset)
{
	return m->elf && elf_vaddr_to_offset(m->elf, addr - m->bias, offset);
}

bool dw_relocatable(const struct dw_module *m)
{
	GElf_Ehdr eh;

	return m->elf && gelf_getehdr(m->elf, &eh) && eh.e_type == ET_DYN;
}

/* The DT_NEEDED names and the run path (DT_RUNPATH, else DT_RPATH) of ELF. */
static void dynamic_needs(Elf *elf, struct strlist *needed, char **runpath)
{
	Elf_Scn *scn = NULL;

	*runpath = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Dyn dyn;
			const char *text;

			if (!gelf_getdyn(data, (int)i, &dyn) ||
			    !(dyn.d_tag == DT_NEEDED || dyn.d_tag == DT_RUNPATH ||
			      dyn.d_tag == DT_RPATH) ||
			    !(text = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val)))
				continue;
			if (dyn.d_tag == DT_NEEDED)
				strlist_add(needed, text);
			else if (!*runpath || dyn.d_tag == DT_RUNPATH) {
				free(*runpath);
				*runpath = xstrdup(text);
			}
		}
	}
}

int program_libraries(struct session *s, const char *file, const char *pattern,
		      struct strlist *targets, struct strlist *files, char **why)
{
	static const char *const usual[] = {
		"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64",
		"/lib", "/usr/lib", NULL,
	};
	struct strlist needed = { 0 }, dirs = { 0 };
	char *runpath = NULL, *target, *lib_file;
	int fd, found = 0;
	Elf *elf;

	if (strchr(pattern, '/'))	/* a path, or a glob of paths */
		return program_paths(s, pattern, targets, files, why);
	*why = NULL;
	elf_version(EV_CURRENT);
	fd = open(file, O_RDONLY);
	elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ, NULL);
	if (elf)
		dynamic_needs(elf, &needed, &runpath);
	if (runpath) {
		char *save = NULL;

		for (char *d = strtok_r(runpath, ":", &save); d; d = strtok_r(NULL, ":", &save))
			strlist_add(&dirs, d);
	}
	for (int i = 0; usual[i]; i++)
		strlist_add(&dirs, usual[i]);
	for (int i = 0; i < needed.count; i++) {
		bool here = false;

		if (fnmatch(pattern, needed.items[i], 0) != 0)
			continue;
		for (int d = 0; d < dirs.count && !here; d++) {
			char *p = xasprintf("%s/%s", dirs.items[d], needed.items[i]);
			char *f = sysroot_path(s, p), *no = NULL;

			if (access(f, R_OK) == 0 && program_path(s, p, &target, &lib_file, &no)) {
				here = true;
				strlist_add(targets, target);
				strlist_add(files, lib_file);
				free(target);
				free(lib_file);
				found++;
			}
			free(no);
			free(f);
			free(p);
		}
	}
	if (!found)
		*why = xasprintf("no library of %s is '%s'", file, pattern);
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	free(runpath);
	strlist_free(&needed);
	strlist_free(&dirs);
	return found;
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
	if (m->dwarf)
		ctype_forget(m->dwarf);	/* a later Dwarf at its address must not find them */
	if (m->dwfl)
		dwfl_end(m->dwfl);
	for (int i = 0; i < m->ntracepoints; i++)
		free(m->tracepoints[i].system);
	free(m->tracepoints);
	if (m->index) {
		free(m->index->functions);
		free(m->index->types);
		free(m->index->globals);
		free(m->index->declared);
	}
	free(m->index);
	free(m->cache_blob);
	free(m->symbols);
	free(m->names);
	free(m->exported);
	free(m->blocked);
	free(m->text);
	free(m->name);
	free(m->path);
	free(m);
}

/* ---- symbols and the text kprobes may not touch ---- */

/* The index of the last symbol at or before ADDR, or -1. */
static int symbol_index_before(struct dw_module *m, uint64_t addr)
{
	int lo = 0, hi = m->nsymbols - 1, best = -1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;

		if (m->symbols[mid].addr <= addr) {
			best = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return best;
}

const struct dw_symbol *dw_symbol_at(struct dw_module *m, uint64_t addr)
{
	const struct dw_symbol *found = NULL;

	/* a few symbols may share the address or lie inside the function (labels) */
	for (int i = symbol_index_before(m, addr); i >= 0 && !found; i--) {
		const struct dw_symbol *s = &m->symbols[i];

		if (s->function && addr < s->addr + (s->size ? s->size : 1))
			found = s;
		else if (s->function)
			break;
	}
	return found;
}

const struct dw_symbol *dw_object_symbol(struct dw_module *m, uint64_t addr)
{
	for (int i = symbol_index_before(m, addr), seen = 0; i >= 0 && seen < 64; i--, seen++) {
		const struct dw_symbol *s = &m->symbols[i];

		if (!s->function && s->unique && addr < s->addr + (s->size ? s->size : 1))
			return s;
	}
	return NULL;
}

const char *dw_blocked(struct dw_module *m, uint64_t addr)
{
	const char *why = NULL;

	for (int i = 0; i < m->nblocked && m->blocked[i].start <= addr; i++)
		if (addr < m->blocked[i].end && (!why || strcmp(why, "blocklisted") != 0))
			why = m->blocked[i].why;
	return why;
}

/*
 * Whether ADDR starts a part GCC split off a function (foo.part.0): only the function
 * itself calls it, so it is no entry of the function's, and -l lists it by that name.
 */
bool dw_partial_copy(struct dw_module *m, uint64_t addr)
{
	const struct dw_symbol *s = dw_symbol_at(m, addr);

	return s && s->addr == addr && strstr(s->name, ".part.");
}

bool dw_in_text(struct dw_module *m, uint64_t addr)
{
	for (int i = 0; i < m->ntext; i++)
		if (m->text[i].start <= addr && addr < m->text[i].end)
			return true;
	return false;
}

bool dw_name_unique(struct dw_module *m, const char *name)
{
	const char **at = bsearch(&name, m->names, m->nnames, sizeof(*m->names), compare_strings);

	return at && (at == m->names || strcmp(at[-1], name) != 0) &&
	       (at + 1 == m->names + m->nnames || strcmp(at[1], name) != 0);
}

bool dw_name_exported(struct dw_module *m, const char *name)
{
	return name_listed(m->exported, m->nexported, name);
}

/*
 * The symbol to place a probe at ADDR from: the function holding it if its name is
 * unique (the kernel finds a name's first symbol), else the nearest unique function
 * before it in the same function-dense text.  The kernel's probes fall back on _stext.
 */
const struct dw_symbol *dw_anchor(struct dw_module *m, uint64_t addr)
{
	const struct dw_symbol *f = dw_symbol_at(m, addr);

	if (f && f->unique)
		return f;
	for (int i = symbol_index_before(m, addr); i >= 0; i--) {
		const struct dw_symbol *s = &m->symbols[i];

		if (addr - s->addr >= (1u << 20))
			break;
		if (s->function && s->unique)
			return s;
	}
	if (m->is_kernel)
		return dw_symbol_named(m, "_stext");
	return NULL;
}
