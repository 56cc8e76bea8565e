/*
 * family_process.c - user-space probes that need no DWARF: the life of processes and
 * threads, and the static markers (SDT) compiled into programs (stapprobes(3stap),
 * USER-SPACE).
 *
 *   process.begin  process.end             a process starts (fork, or at the start of
 *   process.thread.begin                   the session for those already there) or
 *   process.thread.end                     ends; a thread other than the main one
 *   process(PATH).begin ...                of the processes running PATH (from its exec)
 *   process(PID).begin ...                 of that process           (runtime/process.c)
 *   process.syscall[.return] ...           a system call of the process: $syscall,
 *                                          $arg1..$arg6, or $return
 *
 *   process(PATH).mark(NAME)               each marker NAME (a glob) of the program's
 *   process(PATH).provider(PROV).mark(NAME)  .note.stapsdt notes, a uprobe on its nop
 *   process(PATH).library(LPATH).mark(...)   (runtime/uprobe.c); $arg1..$argN are its
 *   process(PID).mark(...) ...               arguments, $$name and $$provider its names
 *
 *   process(PATH).plt(NAME)[.return]       each entry NAME (a glob; .plt alone: all) of
 *   process(PATH).library(LPATH).plt(...)    the program's procedure linkage table: a
 *                                          call of a library's function through it;
 *                                          $$name is the function's name, $return (a
 *                                          number) what it returned
 *
 * PATH is found as a shell finds a command (dw.h, program_path), under --sysroot when
 * one is given; with -c or -x every probe is for the target's processes only.
 */
#include "elaborate/elaborate.h"
#include "translate/emit.h"
#include "family.h"
#include "family_dwarf.h"
#include "debuginfo/dw.h"
#include "debuginfo/sdt.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LIFE_FORMS(prefix) \
	prefix ".begin", prefix ".end", prefix ".thread.begin", prefix ".thread.end", \
	prefix ".syscall", prefix ".syscall.return"
#define MARK_FORMS(prefix) \
	prefix ".mark(string)", prefix ".provider(string).mark(string)"
#define PLT_FORMS(prefix) \
	prefix ".plt", prefix ".plt(string)", prefix ".plt.return", prefix ".plt(string).return"

static const char *const process_templates[] = {
	LIFE_FORMS("process"),
	LIFE_FORMS("process(string)"),
	LIFE_FORMS("process(number)"),
	MARK_FORMS("process"),
	MARK_FORMS("process.library(string)"),
	MARK_FORMS("process(string)"),
	MARK_FORMS("process(number)"),
	MARK_FORMS("process(string).library(string)"),
	MARK_FORMS("process(number).library(string)"),
	PLT_FORMS("process"),
	PLT_FORMS("process.library(string)"),
	PLT_FORMS("process(string)"),
	PLT_FORMS("process(number)"),
	PLT_FORMS("process(string).library(string)"),
	PLT_FORMS("process(number).library(string)"),
	NULL,
};

/* runtime/process.c's enum stp_utask_event, in its order */
static const char *const life_events[] = {
	"STP_UTASK_PROCESS_BEGIN", "STP_UTASK_PROCESS_END",
	"STP_UTASK_THREAD_BEGIN", "STP_UTASK_THREAD_END",
	"STP_UTASK_SYSCALL", "STP_UTASK_SYSCALL_RETURN",
};
#define SYSCALL_EVENT 4		/* life_events[4], [5]: process.syscall[.return] */

struct process_probe {
	bool uprobe;		/* a marker or a PLT entry, rather than a life event */
	bool plt, is_return;
	/* the life of processes */
	int event;		/* index in life_events */
	char *path;		/* the program, where it runs; NULL: any */
	int64_t pid;		/* 0: any */
	/* a marker */
	char *file;		/* the file probed, where it runs */
	char *host_file;	/* and here: its DWARF has the variables at a marker */
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
	const char *mark;	/* NULL: a life event, or */
	const char *plt;	/* a PLT entry's name */
	bool is_return;
	int event;
	bool from_wildcard;	/* the user's point had a wildcard in a name */
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
		else if (strcmp(c->name, "plt") == 0)
			p->plt = c->arg ? component_string(c, &present) : "*";
		else if (strcmp(c->name, "return") == 0)
			p->is_return = true;
		else if (strcmp(c->name, "thread") == 0)
			thread = true;
		else if (strcmp(c->name, "syscall") == 0)
			p->event = SYSCALL_EVENT;
		else
			p->event = (strcmp(c->name, "end") == 0) + 2 * thread;
	}
	if (p->event == SYSCALL_EVENT && p->is_return)
		p->event++;
}

/* process(PID): the program that process runs (as stap, it must be there now). */
static bool find_program(struct elaborator *el, struct process_point *p)
{
	char *path, *why;
	bool ok;

	path = process_point_program(el->session, p->path, p->pid, &why);
	if (!path) {
		/* probe ** reaches process.plt: without -c it is not a point */
		if (p->path || p->pid || !p->from_wildcard)
			semantic_error(el, NULL, "%s", why);
		free(why);
		return false;
	}
	ok = program_path(el->session, path, &p->program, &p->program_file, &why);
	if (!ok) {
		semantic_error(el, NULL, "%s", why);
		free(why);
	}
	free(path);
	return ok;
}

/* ---- the life of processes ---- */

/* N as the signed number the C START gives: register REGNO's (guru mode may set it), or
 * (-1) a value computed from the process's registers and memory. */
static enum target_resolution number_value(struct node *n, char *start, int regno)
{
	struct target_access *a = xcalloc(1, sizeof(*a));

	a->start = start;
	a->start_is_value = true;
	a->user = true;
	a->regno = regno;
	a->result = TRESULT_LONG;
	a->size = 8;
	a->is_signed = true;
	return target_resolved(n, a) ? TARGET_RESOLVED : TARGET_UNRESOLVED;
}

/* " $syscall:long $arg1:long ... $arg6:long", and $return at a .return (-L) */
static char *syscall_variables(int event)
{
	return xstrdup(event == SYSCALL_EVENT ?
		       " $syscall:long $arg1:long $arg2:long $arg3:long $arg4:long $arg5:long "
		       "$arg6:long" : " $syscall:long $return:long");
}

/* $syscall, $arg1..$arg6 and (.return) $return of a process.syscall probe */
static enum target_resolution syscall_target(struct elaborator *el, struct process_probe *p,
					     struct node *n, bool quiet)
{
	const char *name = n->string + 1;
	char *start = NULL, *end;
	long i;

	if (strcmp(name, "syscall") == 0)
		start = xstrdup("stp_utask_syscall_nr(c)");
	else if (strcmp(name, "return") == 0 && p->event > SYSCALL_EVENT)
		start = xstrdup("stp_utask_syscall_return(c)");
	else if (starts_with(name, "arg") && p->event == SYSCALL_EVENT &&
		 (i = strtol(name + 3, &end, 10)) >= 1 && i <= 6 && !*end)
		start = xasprintf("stp_utask_syscall_arg(c, %ld)", i);
	if (!start || n->components || n->pretty || n->addressof) {
		if (!quiet)
			semantic_error(el, n->tok, "unable to find syscall variable '$%s' "
				       "(alternatives: $syscall, %s)", name,
				       p->event == SYSCALL_EVENT ? "$arg1..$arg6" : "$return");
		free(start);
		return TARGET_UNRESOLVED;
	}
	return number_value(n, start, -1);
}

static bool life_build(struct elaborator *el, struct process_point *p,
		       struct derived_probe *proto)
{
	static const char *const suffixes[] = {
		".begin", ".end", ".thread.begin", ".thread.end", ".syscall", ".syscall.return",
	};
	struct strlist targets = { 0 }, files = { 0 };
	char *why = NULL;

	if (p->pid && kill((pid_t)p->pid, 0) != 0 && errno == ESRCH) {
		semantic_error(el, NULL, "cannot probe pid %" PRId64 ": No such process", p->pid);
		return false;
	}
	if (p->path && strpbrk(p->path, "*?[")) {	/* a glob: each program it matches */
		if (!program_paths(el->session, p->path, &targets, &files, &why)) {
			semantic_error(el, NULL, "%s", why);
			free(why);
			return false;
		}
	} else if (p->path) {
		if (!find_program(el, p))
			return false;
		strlist_add(&targets, p->program);
	}
	for (int i = 0; i < (p->path ? targets.count : 1); i++) {
		struct process_probe *probe = xcalloc(1, sizeof(*probe));
		char *name;

		probe->event = p->event;
		probe->path = p->path ? xstrdup(targets.items[i]) : NULL;
		probe->pid = p->pid;
		if (probe->path)
			name = xasprintf("process(\"%s\")%s", probe->path, suffixes[p->event]);
		else if (p->pid)
			name = xasprintf("process(%" PRId64 ")%s", p->pid, suffixes[p->event]);
		else
			name = xasprintf("process%s", suffixes[p->event]);
		add_derived_probe(el, proto, name, el->listing ? NULL : probe);
		if (el->listing && el->session->list_locals && p->event >= SYSCALL_EVENT)
			el->listed[el->nlisted - 1].variables = syscall_variables(p->event);
	}
	strlist_free(&targets);
	strlist_free(&files);
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

/* "no match (similar marks: tick, work)": the markers of the files named like MARK */
static void no_mark(struct elaborator *el, const char *mark, const char **all, int count)
{
	const char **names = xcalloc(count + 1, sizeof(*names));
	int n = 0;
	char *similar;

	for (int i = 0; i < count; i++) {
		bool seen = false;

		for (int k = 0; k < n && !seen; k++)
			seen = strcmp(names[k], all[i]) == 0;
		if (!seen)
			names[n++] = all[i];
	}
	similar = strpbrk(mark, "*?[") ? xstrdup("") : similar_names(mark, names, n);
	if (*similar)	/* " (similar: a, b)" */
		semantic_error(el, NULL, "no match (similar marks:%s", similar + strlen(" (similar:"));
	else
		semantic_error(el, NULL, "no match");
	free(similar);
	free(names);
}

/* An ELF file a marker or PLT point is in: the program, or one of its libraries. */
struct point_file {
	char *target, *file;	/* where it runs, and here */
	int fd;
	Elf *elf;
	bool relocatable;	/* ET_DYN: its probes' notes say ".dynamic+" as stap's */
};

/* The files the point names: its program, or the libraries a .library(...) names. */
static bool point_files(struct elaborator *el, struct process_point *p, struct strlist *targets,
			struct strlist *files)
{
	char *why = NULL;

	if (!p->library && p->path && strpbrk(p->path, "*?[")) {	/* a glob: each match */
		if (program_paths(el->session, p->path, targets, files, &why))
			return true;
		semantic_error(el, NULL, "%s", why);
		free(why);
		return false;
	}
	if (!find_program(el, p))
		return false;
	if (!p->library) {
		strlist_add(targets, p->program);
		strlist_add(files, p->program_file);
		return true;
	}
	if (program_libraries(el->session, p->program_file, p->library, targets, files, &why))
		return true;
	semantic_error(el, NULL, "%s", why);
	free(why);
	return false;
}

static bool open_point_file(struct elaborator *el, const char *target, const char *file,
			    struct point_file *f)
{
	GElf_Ehdr eh;

	memset(f, 0, sizeof(*f));
	f->target = xstrdup(target);
	f->file = xstrdup(file);
	elf_version(EV_CURRENT);
	f->fd = open(f->file, O_RDONLY);
	f->elf = f->fd < 0 ? NULL : elf_begin(f->fd, ELF_C_READ, NULL);
	if (!f->elf) {
		semantic_error(el, NULL, "cannot read %s: %s", f->file,
			       f->fd < 0 ? strerror(errno) : elf_errmsg(-1));
		return false;
	}
	f->relocatable = gelf_getehdr(f->elf, &eh) && eh.e_type == ET_DYN;
	return true;
}

static void close_point_file(struct point_file *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	free(f->target);
	free(f->file);
}

/* process("P")[.library("L")] as a probe's name starts */
static void name_prefix(struct strbuf *name, const struct process_point *p,
			const struct point_file *f)
{
	if (p->library)
		sb_printf(name, "process(\"%s\").library(\"%s\")", p->program, f->target);
	else
		sb_printf(name, "process(\"%s\")", f->target);
}

/* A uprobe of a marker or PLT entry at link-time address VADDR of F; false after an
 * error when no segment of the file holds it (or the semaphore SEMAPHORE, if not 0). */
static struct process_probe *new_uprobe(struct elaborator *el, const struct process_point *p,
					const struct point_file *f, uint64_t vaddr,
					uint64_t semaphore, const char *what)
{
	struct process_probe *probe;
	uint64_t offset, semaphore_offset = 0;

	if (!elf_vaddr_to_offset(f->elf, vaddr, &offset) ||
	    (semaphore && !elf_vaddr_to_offset(f->elf, semaphore, &semaphore_offset))) {
		semantic_error(el, NULL, "cannot place a probe on %s of %s: no segment of the "
			       "file holds it", what, f->target);
		return NULL;
	}
	if (!el->listing)	/* its symbols may go into the module (user_symbols.c) */
		user_file_add(el->session, f->target, f->file);
	probe = xcalloc(1, sizeof(*probe));
	probe->uprobe = true;
	probe->file = xstrdup(f->target);
	probe->host_file = xstrdup(f->file);
	probe->process = p->library ? xstrdup(p->program) : NULL;
	probe->offset = offset;
	probe->vaddr = vaddr;
	probe->semaphore = semaphore_offset;
	return probe;
}

static void add_uprobe(struct elaborator *el, struct derived_probe *proto,
		       const struct point_file *f, struct process_probe *probe, char *name,
		       char *variables)
{
	struct derived_probe *derived = add_derived_probe(el, proto, name,
							  el->listing ? NULL : probe);

	derived->note = xasprintf("pc=%s%#" PRIx64 " ", f->relocatable ? ".dynamic+" : "",
				  probe->vaddr);
	if (el->listing && el->session->list_locals)
		el->listed[el->nlisted - 1].variables = variables;
	else
		free(variables);
}

/* One probe per marker of the file F that the point names; ALL collects the markers'
 * names (for the similar ones). */
static bool file_marks(struct elaborator *el, struct process_point *p, struct point_file *f,
		       struct derived_probe *proto, struct strlist *all)
{
	struct sdt_marker *markers = NULL;
	char *error = NULL;
	int count = sdt_read_markers(f->elf, &markers, &error);
	bool added = false;

	if (count < 0) {
		semantic_error(el, NULL, "%s: %s", f->target, error);
		free(error);
		return false;
	}
	for (int i = 0; i < count; i++) {
		struct sdt_marker *m = &markers[i];
		struct process_probe *probe;
		struct sdt_arg *args;
		struct strbuf name = { 0 };
		int nargs;

		strlist_add(all, m->name);
		if (fnmatch(p->mark, m->name, 0) != 0 ||
		    (p->provider && fnmatch(p->provider, m->provider, 0) != 0))
			continue;
		nargs = sdt_parse_args(m->args, elf_symbol, f->elf, &args, &error);
		if (nargs < 0) {
			semantic_error(el, NULL, "%s", error);
			free(error);
			error = NULL;
			continue;
		}
		probe = new_uprobe(el, p, f, m->pc, m->semaphore, m->name);
		if (!probe) {
			sdt_free_args(args, nargs);
			continue;
		}
		probe->args = args;
		probe->nargs = nargs;
		probe->provider = xstrdup(m->provider);
		probe->name = xstrdup(m->name);
		name_prefix(&name, p, f);
		sb_printf(&name, ".mark(\"%s\")", m->name);	/* as stap's -L names it */
		add_uprobe(el, proto, f, probe, sb_steal(&name), mark_variables(nargs));
		added = true;
	}
	sdt_free_markers(markers, count);
	return added;
}

/* One probe per entry of a linkage table the point names, in each of its files. */
static bool file_plt(struct elaborator *el, struct process_point *p, struct point_file *f,
		     struct derived_probe *proto);

static bool mark_or_plt_build(struct elaborator *el, struct process_point *p,
			      struct derived_probe *proto)
{
	struct strlist targets = { 0 }, files = { 0 }, all = { 0 };
	bool added = false, opened = false;

	if (point_files(el, p, &targets, &files)) {
		for (int i = 0; i < targets.count; i++) {
			struct point_file f;

			if (open_point_file(el, targets.items[i], files.items[i], &f)) {
				opened = true;
				added |= p->mark ? file_marks(el, p, &f, proto, &all) :
						   file_plt(el, p, &f, proto);
			}
			close_point_file(&f);
		}
	}
	if (!added && opened && p->mark)
		no_mark(el, p->mark, (const char **)all.items, all.count);
	else if (!added && opened)
		semantic_error(el, NULL, "no match");
	strlist_free(&targets);
	strlist_free(&files);
	strlist_free(&all);
	return added;
}

/* ---- PLT entries ---- */

static Elf_Scn *section_named(Elf *elf, const char *name, GElf_Shdr *sh)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (gelf_getshdr(scn, sh) && (n = elf_strptr(elf, shstrndx, sh->sh_name)) &&
		    strcmp(n, name) == 0)
			return scn;
	}
	return NULL;
}

/*
 * The entries of F's procedure linkage table whose function the point's NAME matches:
 * the Nth R_X86_64_JUMP_SLOT relocation of .rela.plt is the Nth entry of 16 bytes, in
 * .plt.sec when the file has one (IBT), else in .plt after its first, shared entry.
 */
static bool file_plt(struct elaborator *el, struct process_point *p, struct point_file *f,
		     struct derived_probe *proto)
{
	GElf_Shdr rela, plt, symtab;
	Elf_Scn *rela_scn, *plt_scn, *sym_scn;
	Elf_Data *relocs, *syms;
	uint64_t first;
	bool added = false, sec;

	rela_scn = section_named(f->elf, ".rela.plt", &rela);
	sec = (plt_scn = section_named(f->elf, ".plt.sec", &plt)) != NULL;
	if (!sec)
		plt_scn = section_named(f->elf, ".plt", &plt);
	if (!rela_scn || !plt_scn || !rela.sh_entsize ||
	    !(sym_scn = elf_getscn(f->elf, rela.sh_link)) || !gelf_getshdr(sym_scn, &symtab) ||
	    !(relocs = elf_getdata(rela_scn, NULL)) || !(syms = elf_getdata(sym_scn, NULL)))
		return false;
	first = plt.sh_addr + (sec ? 0 : 16);
	for (size_t i = 0, n = 0; i < rela.sh_size / rela.sh_entsize; i++) {
		GElf_Rela r;
		GElf_Sym sym;
		const char *fname;
		struct process_probe *probe;
		struct strbuf name = { 0 };
		uint64_t addr;

		if (!gelf_getrela(relocs, (int)i, &r) ||
		    GELF_R_TYPE(r.r_info) != R_X86_64_JUMP_SLOT)
			continue;
		addr = first + 16 * n++;
		if (!gelf_getsym(syms, (int)GELF_R_SYM(r.r_info), &sym) ||
		    !(fname = elf_strptr(f->elf, symtab.sh_link, sym.st_name)) ||
		    fnmatch(p->plt, fname, 0) != 0)
			continue;
		probe = new_uprobe(el, p, f, addr, 0, fname);
		if (!probe)
			continue;
		probe->plt = true;
		probe->is_return = p->is_return;
		probe->name = xstrdup(fname);
		name_prefix(&name, p, f);
		sb_printf(&name, ".plt(\"%s\")%s", fname, p->is_return ? ".return" : "");
		add_uprobe(el, proto, f, probe, sb_steal(&name), xstrdup(""));
		added = true;
	}
	return added;
}

static bool process_build(struct elaborator *el, struct probe_point *pp,
			  struct derived_probe *proto)
{
	struct process_point p;

	read_point(pp, &p);
	p.from_wildcard = proto->from_wildcard;
	if (p.mark || p.plt)
		return mark_or_plt_build(el, &p, proto);
	return life_build(el, &p, proto);
}

/* ---- context variables: a marker's ---- */

static enum target_resolution process_resolve_target(struct elaborator *el,
						     struct derived_probe *dp, struct node *n,
						     bool quiet)
{
	struct process_probe *p = dp->data;
	const char *name = n->string + 1;	/* past the '$' */
	char *end;
	long i;

	if (p && !p->uprobe && p->event >= SYSCALL_EVENT)
		return syscall_target(el, p, n, quiet);
	if (!p || !p->uprobe) {
		if (!quiet)
			semantic_error(el, n->tok, "unresolved target-symbol expression");
		return TARGET_UNRESOLVED;
	}
	if (strcmp(name, "$name") == 0 || (!p->plt && strcmp(name, "$provider") == 0)) {
		struct node *s = xcalloc(1, sizeof(*s));

		s->kind = ND_STRING;
		s->tok = n->tok;
		s->type = TYPE_STRING;
		s->string = xstrdup(name[1] == 'n' ? p->name : p->provider);
		s->next = n->next;
		*n = *s;
		return TARGET_RESOLVED;
	}
	if (p->plt && p->is_return && strcmp(name, "return") == 0 && !n->components &&
	    !n->pretty && !n->addressof) {	/* the return register: a number */
		return number_value(n, xstrdup("stp_return_value(c)"), 0);
	}
	i = starts_with(name, "arg") && !p->plt ? strtol(name + 3, &end, 10) : 0;
	if (!p->plt && !starts_with(name, "arg") && name[0] != '$') {
		/* a variable the program's DWARF has in scope at the marker, as stap reads */
		enum target_resolution r;
		bool found;
		char *why = NULL;
		struct dw_module *m = debuginfo_program(elaborator_debuginfo(el), p->file,
							 p->host_file, &why);

		free(why);
		r = dwarf_resolve_at(el, m, p->vaddr, n, quiet, &found);
		if (found)
			return r;
	}
	if (i < 1 || i > p->nargs || *end) {
		if (!quiet && p->plt) {
			semantic_error(el, n->tok, "unable to find PLT variable '$%s': a PLT "
				       "probe has $$name%s only (no debuginfo)", name,
				       p->is_return ? " and $return" : "");
		} else if (!quiet) {
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
	return number_value(n, xstrdup(p->args[i - 1].c), -1);
}

static char *process_list_variables(struct derived_probe *dp)
{
	struct process_probe *p = dp->data;

	if (p && !p->uprobe && p->event >= SYSCALL_EVENT)
		return syscall_variables(p->event);
	return p && p->uprobe ? mark_variables(p->nargs) : NULL;
}

/* ---- pass 3: process.c's table for the life events, uprobe.c's for the markers ---- */

static void life_entry(struct emitter *e, struct derived_probe *dp)
{
	struct process_probe *p = dp->data;
	char *path = p->path ? c_string(p->path) : NULL;

	emit(e, "\t{ .probe = &stp_probes[%d], .event = %s, .path = %s, .pid = %" PRId64 " },\n",
	     dp->index, life_events[p->event], path ? path : "NULL", p->pid);
	free(path);
}

static void uprobe_entry(struct emitter *e, struct derived_probe *dp)
{
	struct process_probe *p = dp->data;
	char *file = c_string(p->file), *process = p->process ? c_string(p->process) : NULL;

	emit(e, "\t{ .probe = &stp_probes[%d], .path = %s, .offset = %#" PRIx64 "UL, "
	     ".vaddr = %#" PRIx64 "UL, .semaphore = %#" PRIx64 "UL, .process = %s%s },\n",
	     dp->index, file, p->offset, p->vaddr, p->semaphore, process ? process : "NULL",
	     p->is_return ? ", .is_return = true" : "");
	free(file);
	free(process);
}

static int process_table(const struct derived_probe *dp)
{
	return !((const struct process_probe *)dp->data)->uprobe;
}

/* The markers' and PLT entries' uprobes first: a process that begins finds them there. */
static void process_emit(struct emitter *e, struct program *prog)
{
	static const struct probe_table tables[2] = {
		{ "struct stp_uprobe_probe", "stp_process_uprobes", "stp_uprobes_register",
		  "stp_uprobes_unregister", uprobe_entry },
		{ "struct stp_utask_probe", "stp_process_tasks", "stp_utasks_register",
		  "stp_utasks_unregister", life_entry },
	};

	emit_probe_tables(e, prog, &process_family, tables, process_table);
}

const struct probe_family process_family = {
	.name = "process",
	.templates = process_templates,
	.build = process_build,
	.resolve_target = process_resolve_target,
	.list_variables = process_list_variables,
	.emit = process_emit,
};
