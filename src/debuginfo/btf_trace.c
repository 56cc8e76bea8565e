/*
 * btf_trace.c - a module's tracepoints and their arguments from its BTF (btf.h).
 *
 * As from the DWARF (dwarf_trace.c): each tracepoint NAME has a function
 * __traceiter_NAME(void *__data, ARGS...) whose BTF prototype names and types its
 * arguments.  BTF has no files, so a tracepoint's system comes from the kernel's trace
 * headers (its build tree and the source tree that includes): each header that defines
 * a TRACE_SYSTEM gives it to the names its macros define events by (TRACE_EVENT(name,
 * ...), DEFINE_EVENT(class, name, ...), and wrappers such as DEFINE_DAX_PTE_EVENT(name)),
 * include/trace/events first.  A tracepoint no header there defines (a driver's own
 * header) is in the system named as its module (xfs's are in "xfs"), or "unknown" in the
 * kernel.
 */
#include "btf.h"
#include "dw.h"

#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#define TRACEITER "__traceiter_"

struct event_system {
	char *event, *system;
	int order;		/* the earlier header wins */
};

static struct {
	bool read;
	struct event_system *items;
	int count, capacity;
} systems;

static const char *identifier(const char *p, size_t *len)
{
	p += strspn(p, " \t\r\n\\");
	*len = 0;
	while (isalnum((unsigned char)p[*len]) || p[*len] == '_')
		(*len)++;
	return p;
}

static void add_event(const char *name, size_t len, const char *system)
{
	if (!len || isdigit((unsigned char)*name))
		return;
	if (systems.count == systems.capacity) {
		systems.capacity = systems.capacity ? systems.capacity * 2 : 1024;
		systems.items = xrealloc(systems.items, systems.capacity * sizeof(*systems.items));
	}
	systems.items[systems.count] = (struct event_system){ xstrndup(name, len),
							      (char *)system, systems.count };
	systems.count++;
}

/* The names in the first two argument places of the macro calls of a header: the
 * events (and classes) it defines, with its system. */
static void read_header(const char *path)
{
	char *text = read_file(path, NULL), *system;

	if (!text || !(system = trace_system_defined(text))) {
		free(text);
		return;
	}
	for (const char *p = text; (p = strchr(p, '(')); p++) {
		size_t len;
		const char *name = identifier(p + 1, &len), *after = name + len;

		add_event(name, len, system);
		after += strspn(after, " \t\r\n\\");
		if (*after == ',') {
			name = identifier(after + 1, &len);
			add_event(name, len, system);
		}
	}
	free(text);
}

static bool trace_header(const char *folder, const char *name)
{
	size_t n = strlen(name);

	return n > 2 && strcmp(name + n - 2, ".h") == 0 &&
	       (strstr(name, "trace") || strstr(name, "event") || strstr(folder, "/trace"));
}

/* The trace headers of DIR, and of its subfolders down to DEPTH. */
static void read_folder(const char *dir, int depth)
{
	DIR *d = depth >= 0 ? opendir(dir) : NULL;
	struct dirent *e;
	struct strlist subfolders = { 0 };

	if (!d)
		return;
	while ((e = readdir(d))) {
		char *path;

		if (e->d_name[0] == '.')
			continue;
		path = xasprintf("%s/%s", dir, e->d_name);
		if (e->d_type == DT_DIR)
			strlist_add(&subfolders, path);
		else if (trace_header(dir, e->d_name))
			read_header(path);
		free(path);
	}
	closedir(d);
	for (int i = 0; i < subfolders.count; i++)
		read_folder(subfolders.items[i], depth - 1);
	strlist_free(&subfolders);
}

static int compare_events(const void *a, const void *b)
{
	const struct event_system *x = a, *y = b;
	int c = strcmp(x->event, y->event);

	return c ? c : x->order - y->order;
}

/* Every header's events: include/trace/events first, so that its systems win. */
static void read_systems(struct session *s)
{
	static const struct { const char *folder; int depth; } places[] = {
		{ "include/trace/events", 0 }, { "include/trace", 0 }, { "include", 8 },
		{ "arch/x86/include", 8 },
	};
	struct strlist dirs = kernel_source_folders(s);

	systems.read = true;
	for (size_t f = 0; f < sizeof(places) / sizeof(*places); f++) {
		for (int i = 0; i < dirs.count; i++) {
			char *dir = xasprintf("%s/%s", dirs.items[i], places[f].folder);

			read_folder(dir, places[f].depth);
			free(dir);
		}
	}
	strlist_free(&dirs);
	qsort(systems.items, systems.count, sizeof(*systems.items), compare_events);
}

/* The system of event NAME (the first header's), or NULL. */
static const char *event_system(const char *name)
{
	int lo = 0, hi = systems.count;

	while (lo < hi) {	/* the first item >= NAME */
		int mid = (lo + hi) / 2;

		if (strcmp(systems.items[mid].event, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < systems.count && strcmp(systems.items[lo].event, name) == 0 ?
	       systems.items[lo].system : NULL;
}

static int compare_tracepoints(const void *a, const void *b)
{
	const struct btf_tracepoint *x = a, *y = b;
	int c = strcmp(x->system, y->system);

	return c ? c : strcmp(x->name, y->name);
}

int btf_tracepoints(struct session *s, struct btf_module *m, const struct btf_tracepoint **out)
{
	int lo = 0, hi = m->nfunctions, end;

	if (m->tracepoints_read) {
		*out = m->tracepoints;
		return m->ntracepoints;
	}
	m->tracepoints_read = true;
	if (!systems.read)
		read_systems(s);
	while (lo < hi) {	/* the first function >= "__traceiter_" */
		int mid = (lo + hi) / 2;

		if (strcmp(m->functions[mid].name, TRACEITER) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < m->nfunctions && starts_with(m->functions[end].name, TRACEITER); end++)
		;
	m->tracepoints = xcalloc(end - lo + 1, sizeof(*m->tracepoints));
	for (int i = lo; i < end; i++) {
		const char *name = m->functions[i].name + strlen(TRACEITER);
		const char *system = event_system(name);

		m->tracepoints[m->ntracepoints++] = (struct btf_tracepoint){
			.name = name,
			.system = xstrdup(system ? system : m->is_kernel ? "unknown" : m->name),
			.function = &m->functions[i],
		};
	}
	qsort(m->tracepoints, m->ntracepoints, sizeof(*m->tracepoints), compare_tracepoints);
	*out = m->tracepoints;
	return m->ntracepoints;
}
