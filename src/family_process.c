/*
 * family_process.c - user-space probes that need no DWARF: the life of processes and
 * threads, and the static markers (SDT) compiled into programs (stapprobes(3stap),
 * USER-SPACE).
 *
 *   process.begin  process.end             a process starts (fork, or at the start of
 *   process.thread.begin                   the session for those already there) or
 *   process.thread.end                     ends; a thread other than the main one
 *   process(PATH).begin ...                of the processes running PATH (from its exec)
 *   process(PID).begin ...                 of that process           (runtime/utask.c)
 *
 *   process(PATH).mark(NAME)               each marker NAME (a glob) of the program's
 *   process(PATH).provider(PROV).mark(NAME)  .note.stapsdt notes, a uprobe on its nop
 *   process(PATH).library(LPATH).mark(...)   (runtime/uprobe.c); $arg1..$argN are its
 *   process(PID).mark(...) ...               arguments, $$name and $$provider its names
 *
 * PATH is found as a shell finds a command (dw.h, program_path), under --sysroot when
 * one is given; with -c or -x every probe is for the target's processes only.
 */
#include "elaborate.h"
#include "emit.h"
#include "family.h"
#include "dw.h"
#include "sdt.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LIFE_FORMS(prefix) \
	prefix ".begin", prefix ".end", prefix ".thread.begin", prefix ".thread.end"
#define MARK_FORMS(prefix) \
	prefix ".mark(string)", prefix ".provider(string).mark(string)"

static const char *const process_templates[] = {
	LIFE_FORMS("process"),
	LIFE_FORMS("process(string)"),
	LIFE_FORMS("process(number)"),
	MARK_FORMS("process(string)"),
	MARK_FORMS("process(number)"),
	MARK_FORMS("process(string).library(string)"),
	MARK_FORMS("process(number).library(string)"),
	NULL,
};

/* runtime/utask.c's enum stp_utask_event, in its order */
static const char *const life_events[] = {
	"STP_UTASK_PROCESS_BEGIN", "STP_UTASK_PROCESS_END",
	"STP_UTASK_THREAD_BEGIN", "STP_UTASK_THREAD_END",
};

struct process_probe {
	bool is_mark;
	/* the life of processes */
	int event;		/* index in life_events */
	char *path;		/* the program, where it runs; NULL: any */
	int64_t pid;		/* 0: any */
	/* a marker */
	char *file;		/* the file probed, where it runs */
	char *process;		/* a .library(...)'s program */
	uint64_t offset, vaddr, semaphore;	/* file offsets but the link-time vaddr */
	char *provider, *name;
	struct sdt_arg *args;
	int nargs;
};

/* The parts of a concrete point. */
struct process_point {
	const char *path;	/* process("PATH"), or NULL */
	int64_t pid;		/* process(PID), or 0 */
	const char *library;
	const char *provider;	/* NULL: any */
	const char *mark;	/* NULL: a life event */
	int event;
	char *program;		/* the program resolved: where it runs */
	char *program_file;	/* and here */
};

static void read_point(struct probe_point *pp, struct process_point *p)
{
	struct component *c = pp->components;
	bool present, thread = false;

	memset(p, 0, sizeof(*p));
	if (c->arg) {
		p->path = component_string(c, &present);
		if (!present)
			p->pid = component_number(c, &present);
	}
	for (c = c->next; c; c = c->next) {
		if (strcmp(c->name, "library") == 0)
			p->library = component_string(c, &present);
		else if (strcmp(c->name, "provider") == 0)
			p->provider = component_string(c, &present);
		else if (strcmp(c->name, "mark") == 0)
			p->mark = component_string(c, &present);
		else if (strcmp(c->name, "thread") == 0)
			thread = true;
		else
			p->event = (strcmp(c->name, "end") == 0) + 2 * thread;
	}
}

/* process(PID): the program that process runs (as stap, it must be there now). */
static bool find_program(struct elaborator *el, struct process_point *p)
{
	char *exe = NULL, *why;
	const char *path = p->path;
	bool ok;

	if (!path) {
		char *link = xasprintf("/proc/%" PRId64 "/exe", p->pid);

		exe = realpath(link, NULL);
		free(link);
		if (!exe) {
			semantic_error(el, NULL, "cannot probe pid %" PRId64 ": %s", p->pid,
				       p->pid > 0 && kill((pid_t)p->pid, 0) == 0 ?
				       "No executable" : "No such process");
			return false;
		}
		path = exe;
	}
	ok = program_path(el->session, path, &p->program, &p->program_file, &why);
	if (!ok) {
		semantic_error(el, NULL, "%s", why);
		free(why);
	}
	free(exe);
	return ok;
}

/* ---- the life of processes ---- */

static bool life_build(struct elaborator *el, struct process_point *p,
		       struct derived_probe *proto)
{
	static const char *const suffixes[] = {
		".begin", ".end", ".thread.begin", ".thread.end",
	};
	struct process_probe *probe;
	char *name;

	if (p->pid && kill((pid_t)p->pid, 0) != 0 && errno == ESRCH) {
		semantic_error(el, NULL, "cannot probe pid %" PRId64 ": No such process", p->pid);
		return false;
	}
	if (p->path && !find_program(el, p))
		return false;
	probe = xcalloc(1, sizeof(*probe));
	probe->event = p->event;
	probe->path = p->program;
	probe->pid = p->pid;
	if (p->program)
		name = xasprintf("process(\"%s\")%s", p->program, suffixes[p->event]);
	else if (p->pid)
		name = xasprintf("process(%" PRId64 ")%s", p->pid, suffixes[p->event]);
	else
		name = xasprintf("process%s", suffixes[p->event]);
	add_derived_probe(el, proto, name, el->listing ? NULL : probe);
	return true;
}

/* ---- markers ---- */

/* A symbol's link-time address from the ELF symbol tables (foo(%rip) operands). */
static bool elf_symbol(void *arg, const char *name, uint64_t *addr)
{
	Elf *elf = arg;

	for (int pass = 0; pass < 2; pass++) {
		Elf_Scn *scn = NULL;

		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			Elf_Data *data;

			if (!gelf_getshdr(scn, &sh) || !sh.sh_entsize ||
			    sh.sh_type != (pass == 0 ? SHT_SYMTAB : SHT_DYNSYM) ||
			    !(data = elf_getdata(scn, NULL)))
				continue;
			for (size_t i = 1; i < sh.sh_size / sh.sh_entsize; i++) {
				GElf_Sym sym;
				const char *s;

				if (gelf_getsym(data, (int)i, &sym) && sym.st_shndx != SHN_UNDEF &&
				    (s = elf_strptr(elf, sh.sh_link, sym.st_name)) &&
				    strcmp(s, name) == 0) {
					*addr = sym.st_value;
					return true;
				}
			}
		}
	}
	return false;
}

/* " $arg1:long $arg2:long" (-L): stap's markers' arguments are all longs */
static char *mark_variables(int nargs)
{
	struct strbuf sb = { 0 };

	for (int i = 1; i <= nargs; i++)
		sb_printf(&sb, " $arg%d:long", i);
	return sb.data ? sb_steal(&sb) : xstrdup("");
}

/* "no match (similar marks: tick, work)": the program's markers named like MARK */
static void no_mark(struct elaborator *el, const char *mark, const struct sdt_marker *markers,
		    int count)
{
	const char **names = xcalloc(count + 1, sizeof(*names));
	int n = 0;
	char *similar;

	for (int i = 0; i < count; i++) {
		bool seen = false;

		for (int k = 0; k < n && !seen; k++)
			seen = strcmp(names[k], markers[i].name) == 0;
		if (!seen)
			names[n++] = markers[i].name;
	}
	similar = strpbrk(mark, "*?[") ? xstrdup("") : similar_names(mark, names, n);
	if (*similar)	/* " (similar: a, b)" */
		semantic_error(el, NULL, "no match (similar marks:%s", similar + strlen(" (similar:"));
	else
		semantic_error(el, NULL, "no match");
	free(similar);
	free(names);
}

/* One probe per marker of the file (the program, or its library) the point names. */
static bool mark_build(struct elaborator *el, struct process_point *p,
		       struct derived_probe *proto)
{
	char *target = NULL, *file = NULL, *why = NULL, *error = NULL;
	struct sdt_marker *markers = NULL;
	int fd = -1, count = 0;
	Elf *elf = NULL;
	GElf_Ehdr eh;
	bool added = false, relocatable;

	if (!find_program(el, p))
		return false;
	if (p->library) {
		if (!program_library(el->session, p->program_file, p->library, &target, &file,
				     &why)) {
			semantic_error(el, NULL, "%s", why);
			goto out;
		}
	} else {
		target = xstrdup(p->program);
		file = xstrdup(p->program_file);
	}
	elf_version(EV_CURRENT);
	fd = open(file, O_RDONLY);
	elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ, NULL);
	if (!elf) {
		semantic_error(el, NULL, "cannot read %s: %s", file, fd < 0 ? strerror(errno) :
			       elf_errmsg(-1));
		goto out;
	}
	relocatable = gelf_getehdr(elf, &eh) && eh.e_type == ET_DYN;
	count = sdt_read_markers(elf, &markers, &error);
	if (count < 0) {
		semantic_error(el, NULL, "%s: %s", target, error);
		goto out;
	}
	for (int i = 0; i < count; i++) {
		struct sdt_marker *m = &markers[i];
		struct process_probe *probe;
		struct derived_probe *derived;
		struct strbuf name = { 0 };
		uint64_t offset, semaphore = 0;

		if (fnmatch(p->mark, m->name, 0) != 0 ||
		    (p->provider && fnmatch(p->provider, m->provider, 0) != 0))
			continue;
		sb_printf(&name, "process(\"%s\")", p->program);
		if (p->library)
			sb_printf(&name, ".library(\"%s\")", target);
		sb_printf(&name, ".mark(\"%s\")", m->name);	/* as stap's -L names it */
		probe = xcalloc(1, sizeof(*probe));
		probe->is_mark = true;
		probe->nargs = sdt_parse_args(m->args, elf_symbol, elf, &probe->args, &error);
		if (probe->nargs < 0) {
			semantic_error(el, NULL, "%s", error);
			free(error);
			error = NULL;
			free(probe);
			sb_free(&name);
			continue;
		}
		if (!elf_vaddr_to_offset(elf, m->pc, &offset) ||
		    (m->semaphore && !elf_vaddr_to_offset(elf, m->semaphore, &semaphore))) {
			semantic_error(el, NULL, "cannot place a probe on marker %s of %s: no "
				       "segment of the file holds its %s", m->name, target,
				       m->semaphore ? "nop or semaphore" : "nop");
			sdt_free_args(probe->args, probe->nargs);
			free(probe);
			sb_free(&name);
			continue;
		}
		probe->file = xstrdup(target);
		probe->process = p->library ? xstrdup(p->program) : NULL;
		probe->offset = offset;
		probe->vaddr = m->pc;
		probe->semaphore = semaphore;
		probe->provider = xstrdup(m->provider);
		probe->name = xstrdup(m->name);
		derived = add_derived_probe(el, proto, sb_steal(&name), el->listing ? NULL : probe);
		derived->note = xasprintf("pc=%s%#" PRIx64 " ", relocatable ? ".dynamic+" : "",
					  m->pc);
		if (el->listing && el->session->list_locals)
			el->listed[el->nlisted - 1].variables = mark_variables(probe->nargs);
		added = true;
	}
	if (!added)
		no_mark(el, p->mark, markers, count);
out:
	sdt_free_markers(markers, count > 0 ? count : 0);
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	free(error);
	free(why);
	free(target);
	free(file);
	return added;
}

static bool process_build(struct elaborator *el, struct probe_point *pp,
			  struct derived_probe *proto)
{
	struct process_point p;

	read_point(pp, &p);
	return p.mark ? mark_build(el, &p, proto) : life_build(el, &p, proto);
}

/* ---- context variables: a marker's ---- */

static enum target_resolution process_resolve_target(struct elaborator *el,
						     struct derived_probe *dp, struct node *n,
						     bool quiet)
{
	struct process_probe *p = dp->data;
	const char *name = n->string + 1;	/* past the '$' */
	struct target_access *a;
	char *end;
	long i;

	if (!p || !p->is_mark) {
		if (!quiet)
			semantic_error(el, n->tok, "unresolved target-symbol expression");
		return TARGET_UNRESOLVED;
	}
	if (strcmp(name, "$name") == 0 || strcmp(name, "$provider") == 0) {
		struct node *s = xcalloc(1, sizeof(*s));

		s->kind = ND_STRING;
		s->tok = n->tok;
		s->type = TYPE_STRING;
		s->string = xstrdup(name[1] == 'n' ? p->name : p->provider);
		s->next = n->next;
		*n = *s;
		return TARGET_RESOLVED;
	}
	i = starts_with(name, "arg") ? strtol(name + 3, &end, 10) : 0;
	if (i < 1 || i > p->nargs || *end) {
		if (!quiet) {
			if (starts_with(name, "arg"))
				semantic_error(el, n->tok, "invalid access '$%s' of marker %s with "
					       "%d argument%s", name, p->name, p->nargs,
					       p->nargs == 1 ? "" : "s");
			else
				semantic_error(el, n->tok, "unable to find marker variable '$%s' "
					       "(alternatives: $$name, $$provider%s)", name,
					       p->nargs ? ", $arg1..." : "");
		}
		return TARGET_UNRESOLVED;
	}
	if (n->components || n->pretty || n->addressof) {
		if (!quiet)
			semantic_error(el, n->tok, "invalid use of $%s: a marker's argument is a "
				       "number", name);
		return TARGET_UNRESOLVED;
	}
	a = xcalloc(1, sizeof(*a));
	a->start = xstrdup(p->args[i - 1].c);
	a->start_is_value = true;
	a->user = true;
	a->regno = -1;
	a->result = TRESULT_LONG;
	a->size = 8;
	a->is_signed = true;
	return target_resolved(n, a) ? TARGET_RESOLVED : TARGET_UNRESOLVED;
}

static char *process_list_variables(struct derived_probe *dp)
{
	struct process_probe *p = dp->data;

	return p && p->is_mark ? mark_variables(p->nargs) : NULL;
}

/* ---- pass 3: utask.c's table for the life events, uprobe.c's for the markers ---- */

static void life_entry(struct emitter *e, struct derived_probe *dp)
{
	struct process_probe *p = dp->data;
	char *path = p->path ? c_string(p->path) : NULL;

	emit(e, "\t{ .probe = &stp_probes[%d], .event = %s, .path = %s, .pid = %" PRId64 " },\n",
	     dp->index, life_events[p->event], path ? path : "NULL", p->pid);
	free(path);
}

static void mark_entry(struct emitter *e, struct derived_probe *dp)
{
	struct process_probe *p = dp->data;
	char *file = c_string(p->file), *process = p->process ? c_string(p->process) : NULL;

	emit(e, "\t{ .probe = &stp_probes[%d], .path = %s, .offset = %#" PRIx64 "UL, "
	     ".vaddr = %#" PRIx64 "UL, .semaphore = %#" PRIx64 "UL, .process = %s },\n",
	     dp->index, file, p->offset, p->vaddr, p->semaphore, process ? process : "NULL");
	free(file);
	free(process);
}

static void process_emit(struct emitter *e, struct program *prog)
{
	static const char *const types[2] = { "struct stp_utask_probe", "struct stp_uprobe_probe" };
	static const char *const tables[2] = { "stp_process_tasks", "stp_process_marks" };
	static const char *const regs[2] = { "stp_utasks", "stp_uprobes" };
	int counts[2] = { 0, 0 };

	for (struct derived_probe *dp = prog->probes; dp; dp = dp->next)
		if (dp->family == &process_family)
			counts[((struct process_probe *)dp->data)->is_mark]++;
	for (int t = 0; t < 2; t++) {
		if (!counts[t])
			continue;
		emit(e, "static %s %s[] = {\n", types[t], tables[t]);
		for (struct derived_probe *dp = prog->probes; dp; dp = dp->next)
			if (dp->family == &process_family &&
			    ((struct process_probe *)dp->data)->is_mark == t)
				(t ? mark_entry : life_entry)(e, dp);
		emit(e, "};\n\n");
	}
	emit(e, "static int stp_register_process(void)\n{\n\tint rc = 0;\n\n");
	if (counts[1])
		emit(e, "\trc = %s_register(%s, ARRAY_SIZE(%s));\n", regs[1], tables[1], tables[1]);
	if (counts[0]) {
		emit(e, "\tif (rc)\n\t\treturn rc;\n");
		emit(e, "\trc = %s_register(%s, ARRAY_SIZE(%s));\n", regs[0], tables[0], tables[0]);
		if (counts[1])
			emit(e, "\tif (rc)\n\t\t%s_unregister(%s, ARRAY_SIZE(%s));\n", regs[1],
			     tables[1], tables[1]);
	}
	emit(e, "\treturn rc;\n}\n\n");
	emit(e, "static void stp_unregister_process(bool run_end_probes)\n{\n"
		"\t(void)run_end_probes;\n");
	for (int t = 0; t < 2; t++)
		if (counts[t])
			emit(e, "\t%s_unregister(%s, ARRAY_SIZE(%s));\n", regs[t], tables[t],
			     tables[t]);
	emit(e, "}\n\n");
}

const struct probe_family process_family = {
	.name = "process",
	.templates = process_templates,
	.build = process_build,
	.resolve_target = process_resolve_target,
	.list_variables = process_list_variables,
	.emit = process_emit,
};
