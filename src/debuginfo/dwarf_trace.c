/*
 * dwarf_trace.c - the tracepoints of a module, and their arguments, from its DWARF.
 *
 * Each tracepoint NAME of a kernel (5.10 and later) has a function __traceiter_NAME
 * (void *__data, ARGS...) whose parameters after the first are the tracepoint's
 * arguments with their names and C types: the function index finds them, so only
 * tracepoints the kernel (or module) has are listed, and their types need no compiling
 * of the trace headers (Debian's stap compiles the headers; its lists hold tracepoints
 * of other architectures).  A tracepoint's system ("sched" in sched:sched_switch) is the
 * TRACE_SYSTEM of the header that declares it: read from that header in the kernel's
 * build tree when it is there, else from the str__SYSTEM__trace_system_name string
 * that CREATE_TRACE_POINTS leaves in the unit (when the unit has only one), else the
 * header's name.
 */
#include "dw.h"
#include "cache.h"
#include "ctype.h"

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>

#define TRACEITER "__traceiter_"

/* "include/trace/../../include/ras/ras_event.h" as "include/ras/ras_event.h" */
static char *normalize_path(const char *path)
{
	char *copy = xstrdup(path), *save = NULL;
	const char *parts[128];
	int n = 0;
	struct strbuf sb = { 0 };

	for (char *p = strtok_r(copy, "/", &save); p; p = strtok_r(NULL, "/", &save)) {
		if (strcmp(p, ".") == 0 || !*p)
			continue;
		if (strcmp(p, "..") == 0 && n > 0 && strcmp(parts[n - 1], "..") != 0)
			n--;
		else if (n < (int)(sizeof(parts) / sizeof(parts[0])))
			parts[n++] = p;
	}
	for (int i = 0; i < n; i++)
		sb_printf(&sb, "%s%s", i ? "/" : "", parts[i]);
	free(copy);
	return sb.data ? sb_steal(&sb) : xstrdup("");
}

/* The folders the kernel's sources may be under: the build tree, and the source tree
 * its Makefile includes (Debian: linux-headers-REL-common). */
struct strlist kernel_source_folders(struct session *s)
{
	struct strlist dirs = { 0 };
	const char *build = s ? s->kernel_build_dir : NULL;
	char *path, *text;

	if (!build)
		return dirs;
	strlist_add(&dirs, build);
	path = xasprintf("%s/Makefile", build);
	text = read_file(path, NULL);
	free(path);
	for (char *line = text; line && *line;) {
		char *end = strchr(line, '\n'), *slash;

		if (end)
			*end = '\0';
		if (starts_with(line, "include ") && (slash = strrchr(line, '/')) &&
		    strcmp(slash, "/Makefile") == 0) {
			*slash = '\0';
			strlist_add(&dirs, line + strlen("include "));
		}
		line = end ? end + 1 : NULL;
	}
	free(text);
	return dirs;
}

char *trace_system_defined(const char *text)
{
	for (const char *p = text; (p = strstr(p, "#define TRACE_SYSTEM")); p++) {
		const char *v = p + strlen("#define TRACE_SYSTEM");
		size_t len;

		if (*v != ' ' && *v != '\t')
			continue;	/* TRACE_SYSTEM_VAR and the like */
		v += strspn(v, " \t");
		len = strcspn(v, " \t\r\n");
		if (len)
			return xstrndup(v, len);
	}
	return NULL;
}

/* The TRACE_SYSTEM a header defines (its first), or NULL. */
static char *header_trace_system(struct session *s, const char *file)
{
	struct strlist dirs = kernel_source_folders(s);
	char *rel = normalize_path(file), *system = NULL;

	for (int i = 0; i < dirs.count && !system; i++) {
		char *path = xasprintf("%s/%s", dirs.items[i], rel);
		char *text = read_file(path, NULL);

		system = text ? trace_system_defined(text) : NULL;
		free(text);
		free(path);
	}
	free(rel);
	strlist_free(&dirs);
	return system;
}

/* The string of the array variable VAR (a global of M): its bytes in M's ELF file. */
static char *string_of(struct dw_module *m, Dwarf_Die *var)
{
	Dwarf_Attribute attr;
	Dwarf_Op *ops;
	size_t nops;
	Dwarf_Addr addr, bias;
	Elf_Scn *scn;
	Elf_Data *data;

	if (!dwarf_attr(var, DW_AT_location, &attr) || dwarf_getlocation(&attr, &ops, &nops) ||
	    nops != 1 || ops[0].atom != DW_OP_addr)
		return NULL;
	addr = ops[0].number + m->bias;
	scn = dwfl_module_address_section(m->dwfl_module, &addr, &bias);
	if (!scn || !(data = elf_getdata(scn, NULL)) || !data->d_buf || addr >= data->d_size)
		return NULL;
	return xstrndup((const char *)data->d_buf + addr, data->d_size - addr);
}

/* The one str__SYSTEM__trace_system_name string of the unit CU, or NULL. */
static char *unit_trace_system(struct dw_module *m, Dwarf_Off cu_offset)
{
	Dwarf_Die cu, child;
	char *system = NULL;
	int found = 0;

	if (!dw_module_open(m) || !dwarf_offdie(m->dwarf, cu_offset, &cu) ||
	    dwarf_child(&cu, &child) != 0)
		return NULL;
	do {
		const char *name = dwarf_diename(&child);

		if (dwarf_tag(&child) != DW_TAG_variable || !name ||
		    !starts_with(name, "str__") || !strstr(name, "__trace_system_name"))
			continue;
		if (found++) {
			free(system);
			return NULL;	/* several systems in the unit: which is it? */
		}
		system = string_of(m, &child);
	} while (dwarf_siblingof(&child, &child) == 0);
	return system;
}

/* "include/trace/events/sched.h" -> "sched" */
static char *file_trace_system(const char *file)
{
	const char *base = strrchr(file, '/');
	size_t len;

	base = base ? base + 1 : file;
	len = strcspn(base, ".");
	return len ? xstrndup(base, len) : xstrdup("unknown");
}

static int compare_tracepoints(const void *a, const void *b)
{
	const struct dw_tracepoint *x = a, *y = b;
	int c = strcmp(x->system, y->system);

	return c ? c : strcmp(x->name, y->name);
}

/* Headers' TRACE_SYSTEMs, each header read once. */
struct header_systems {
	struct { char *file, *system; } *items;
	int count;
};

static const char *header_system(struct header_systems *hs, struct session *s,
				 const char *file)
{
	for (int i = 0; i < hs->count; i++)
		if (strcmp(hs->items[i].file, file) == 0)
			return hs->items[i].system;
	hs->items = xrealloc(hs->items, (hs->count + 1) * sizeof(*hs->items));
	hs->items[hs->count].file = xstrdup(file);
	hs->items[hs->count].system = header_trace_system(s, file);
	return hs->items[hs->count++].system;
}

/*
 * Where the tracepoints' systems of M are kept: CACHE/tracepoints/KEY, KEY a hash of the
 * debuginfo file and the stap program (finding a module's systems opens its DWARF; a
 * kernel.trace("sched:*") over a thousand modules should not).  One "NAME SYSTEM" line
 * a tracepoint.
 */
static char *systems_cache_path(struct dw_module *m)
{
	return cache_path_for_file("tracepoints", "", "tracepoint-systems-1", m->path);
}

/*
 * The system of the tracepoint whose __traceiter_ function is F, from the cache's TEXT
 * ("NAME SYSTEM" lines), or NULL.  The lines are in the order the index gives the
 * functions: *NEXT, the line after the last one found, is tried first.
 */
static char *cached_system(const char *text, const char **next, const struct dw_function *f)
{
	const char *name = f->name + strlen(TRACEITER);
	size_t len = strlen(name);

	for (int pass = 0; pass < 2; pass++)
		for (const char *line = pass ? text : *next; line && *line;
		     line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
			size_t n;

			if (strncmp(line, name, len) != 0 || line[len] != ' ') {
				if (!pass)
					break;	/* not in order: search the whole text */
				continue;
			}
			n = strcspn(line + len + 1, "\n");
			*next = line + len + 1 + n + (line[len + 1 + n] == '\n');
			return xstrndup(line + len + 1, n);
		}
	return NULL;
}

int dw_tracepoints(struct dw_module *m, const struct dw_tracepoint **out)
{
	struct dw_index *index;
	struct dw_tracepoint *list = NULL;
	struct header_systems headers = { 0 };
	int count = 0;
	char *cache_path, *cached;
	const char *next;
	struct strbuf lines = { 0 };

	if (m->tracepoints_read) {
		*out = m->tracepoints;
		return m->ntracepoints;
	}
	m->tracepoints_read = true;
	index = dw_module_index(m);
	cache_path = systems_cache_path(m);
	cached = cache_mode == CACHE_USE ? read_file(cache_path, NULL) : NULL;
	next = cached;
	for (int i = 0; index && i < index->nfunctions; i++) {
		const struct dw_function *f = &index->functions[i];
		const char *from_header;
		char *system;

		/* a __traceiter_ function only carries the types: one a kprobe may not
		 * go in (__traceiter_softirq_entry, blocklist.c) still names a tracepoint */
		if (!starts_with(f->name, TRACEITER) || !f->name[strlen(TRACEITER)] ||
		    !(f->flags & (DWF_OUT_OF_LINE | DWF_BLOCKED)))
			continue;
		system = cached ? cached_system(cached, &next, f) : NULL;
		if (!system) {
			from_header = f->file ? header_system(&headers, m->session, f->file) :
					      NULL;
			system = from_header ? xstrdup(from_header) : unit_trace_system(m, f->cu);
		}
		if (!system)
			system = file_trace_system(f->file ? f->file : "unknown");
		sb_printf(&lines, "%s %s\n", f->name + strlen(TRACEITER), system);
		list = xrealloc(list, (count + 1) * sizeof(*list));
		list[count++] = (struct dw_tracepoint){
			.name = f->name + strlen(TRACEITER), .system = system, .function = f,
		};
	}
	for (int h = 0; h < headers.count; h++) {
		free(headers.items[h].file);
		free(headers.items[h].system);
	}
	free(headers.items);
	if (!cached && cache_mode != CACHE_DISABLED && lines.data) {
		char *dir = xstrndup(cache_path, strrchr(cache_path, '/') - cache_path);

		if (make_dirs(dir) == 0)
			install_file(cache_path, lines.data, lines.len);
		free(dir);
	}
	sb_free(&lines);
	free(cached);
	free(cache_path);
	if (count)
		qsort(list, count, sizeof(*list), compare_tracepoints);
	m->tracepoints = list;
	m->ntracepoints = count;
	*out = list;
	return count;
}

int dw_tracepoint_args(struct dw_module *m, const struct dw_tracepoint *tp,
		       struct dw_trace_arg **out)
{
	Dwarf_Die function, child;
	struct dw_trace_arg *args = NULL;
	int count = 0;
	bool first = true;

	*out = NULL;
	if (!dw_module_open(m) || !dwarf_offdie(m->dwarf, tp->function->die, &function) ||
	    dwarf_child(&function, &child) != 0)
		return 0;
	do {
		const char *name;

		if (dwarf_tag(&child) != DW_TAG_formal_parameter)
			continue;
		if (first) {	/* void *__data: the probe's own */
			first = false;
			continue;
		}
		name = dwarf_diename(&child);
		args = xrealloc(args, (count + 1) * sizeof(*args));
		args[count++] = (struct dw_trace_arg){
			.name = name ? name : "?", .type = ctype_of_variable(&child),
		};
	} while (dwarf_siblingof(&child, &child) == 0);
	*out = args;
	return count;
}
