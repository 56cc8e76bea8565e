/*
 * dw.h - the DWARF layer: the target kernel's debuginfo, through elfutils.
 *
 * Each file uses only those listed before it (and ctype.h, sdt.h's elf_vaddr_to_offset()):
 *   dwarf_module.c   one object with DWARF (struct dw_module): opened with libdwfl; its
 *                    ELF symbol table, exported names and the text kprobes may not
 *                    touch, read once; symbol lookups and anchors
 *   dwarf_pattern.c  probe point patterns (func@file:N...) and the files and lines
 *                    they match
 *   dwarf_cache.c    a module's tables and function index, kept in the cache
 *   dwarf_index.c    a module's function index: one pass over its compile units finds
 *                    every function with code or inlined instances, for -l and
 *                    matching; its named types and global variables
 *   dwarf_query.c    function patterns to the addresses where probes go
 *   dwarf_lines.c    statement and label patterns to the addresses where probes go
 *   dwarf_scope.c    the variables in scope at a probe's place
 *   dwarf_loc.c      a variable's location as C; the call frame rule at an address
 *   dwarf_trace.c    tracepoints and their arguments; the kernel's source folders
 *   user_programs.c  the files a process("PATH") or .library("PATH") names
 *   debuginfo.c      where the kernel's and its modules' DWARF is, and the objects
 *                    opened so far (the kernel, modules, programs and libraries)
 *
 * Addresses are link-time addresses of the module's debuginfo (for a module: as
 * libdwfl lays out its sections); a probe is placed at run time as "symbol+offset", so
 * KASLR and module load addresses do not matter.
 */
#ifndef DW_H
#define DW_H

#include "stap.h"

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

struct session;
struct dw_index;

/* An ELF function symbol, or any named symbol (for choosing an anchor). */
struct dw_symbol {
	const char *name;
	uint64_t addr, size;
	bool function;		/* STT_FUNC */
	int order;		/* its place in the file's symbol table (not kept in the cache) */
	bool unique;		/* no other symbol of the module has its name */
	bool exported;		/* EXPORT_SYMBOL: __ksymtab_NAME exists */
};

/* Text a probe may not go in, and why (for the messages). */
struct dw_range {
	uint64_t start, end;
	const char *why;	/* "blocklisted section", "blocklisted" (the kernel's list) */
};

/* One object with DWARF: the kernel (vmlinux) or one module. */
struct dw_module {
	char *name;		/* "kernel", or the module's name with '_' ("nf_tables") */
	char *path;		/* the file its DWARF came from */
	bool is_kernel;
	bool is_user;		/* a user-space program or library (name: its path there) */
	Dwfl *dwfl;
	Dwfl_Module *dwfl_module;
	Elf *elf;		/* the debuginfo file (relocated by libdwfl for a module) */
	Dwarf *dwarf;
	Dwarf_Addr bias;	/* DWARF address + bias = address in symbols */
	bool open_failed;
	bool symbols_only;	/* a program or library without DWARF: its ELF file alone */
	bool in_use;		/* a probe of the program refers to it: debuginfo_close() keeps it */
	/* from the ELF symbol table, read once; by address */
	struct dw_symbol *symbols;
	int nsymbols;
	const char **names;	/* of all symbols, sorted (duplicates kept) */
	int nnames;
	const char **exported;	/* the names EXPORT_SYMBOL exports, sorted */
	int nexported;
	struct dw_range *blocked;	/* sorted by start */
	int nblocked;
	struct dw_range *text;		/* the executable sections */
	int ntext;
	uint64_t text_start;	/* the kernel's _stext, a module's .text (anchors' fallback) */
	struct dw_index *index;	/* built on first use */
	char *cache_blob;	/* the cache file read, when the tables came from it */
	struct dw_tracepoint *tracepoints;	/* read on first use (dwarf_trace.c) */
	int ntracepoints;
	bool tracepoints_read;
	struct session *session;
	struct dw_module *next;
};

/* The target's debuginfo: the kernel, and the modules opened so far. */
struct debuginfo {
	struct session *session;
	char *release;
	char *kernel_path;	/* NULL: none found */
	bool kernel_missing_said;
	struct dw_module *kernel;
	struct dw_module *modules;
	struct strlist module_paths;	/* every module debuginfo file found (lazily) */
	bool modules_scanned;
};

/* ---- debuginfo.c ---- */

struct debuginfo *debuginfo_open(struct session *s);
/* Tests: STAPLER_NO_DEBUGINFO=1 behaves as on a machine without any debuginfo. */
bool debuginfo_hidden(void);
/* The kernel's debuginfo file (vmlinux with DWARF) of S's release, or NULL. */
char *debuginfo_kernel_file(struct session *s);
/* A module's name from its file: "dm-mod.ko.debug" is dm_mod. */
char *kernel_module_name(const char *file);
/* The names of the module FILES whose names match PATTERN ('-' and '_' alike), sorted,
 * each once. */
struct strlist module_names_matching(const struct strlist *files, const char *pattern);
/* Adds the module files (NAME.ko, NAME.ko.debug) under DIR, at any depth, to PATHS. */
void find_module_files(struct strlist *paths, const char *dir);
/* The kernel's DWARF, or NULL (the caller reports debuginfo_missing()). */
struct dw_module *debuginfo_kernel(struct debuginfo *di);
/* Module NAME's DWARF ('-' and '_' alike), or NULL. */
struct dw_module *debuginfo_module(struct debuginfo *di, const char *name);
/* The DWARF of the module file PATH (module("/path/m.ko"), installed or not: the kernel
 * names it m), or NULL if it has none. */
struct dw_module *debuginfo_module_file(struct debuginfo *di, const char *path);
/* The DWARF of the program at FILE (TARGET where it runs), or NULL after *WHY says why
 * not.  An ELF file without DWARF is opened for its symbols alone (symbols_only), and
 * *WHY says "No DWARF information found" (stap's warning) all the same. */
struct dw_module *debuginfo_program(struct debuginfo *di, const char *target, const char *file,
				    char **why);
/* The types of the C headers SPEC names ("<sys/un.h>"), compiled once a run; NULL if
 * they do not compile (after the compiler's messages). */
struct dw_module *debuginfo_headers(struct debuginfo *di, const char *spec);
/* The types of the kernel's headers of "kernel<linux/sched.h>" (SPEC: "<linux/sched.h>"),
 * compiled by the kernel's kbuild once per kernel; NULL if they do not compile. */
struct dw_module *debuginfo_kernel_headers(struct debuginfo *di, const char *spec);
/* Frees a module's DWARF and tables (a later debuginfo_module() opens it again), unless
 * a probe of the program uses it (in_use). */
void debuginfo_close(struct debuginfo *di, struct dw_module *m);
/* The names of the modules with debuginfo matching PATTERN (fnmatch), sorted. */
struct strlist debuginfo_module_names(struct debuginfo *di, const char *pattern);
/* "missing x86_64 kernel/module debuginfo [man warning::debuginfo] under '...' (...)" */
char *debuginfo_missing(struct debuginfo *di);

/* ---- user_programs.c ---- */

/*
 * A user-space program or library named as a process("PATH") or .library("PATH") says:
 * its absolute path where the probes run (*TARGET: relative to the working folder with a
 * '/', else searched in $PATH; symbolic links resolved; a script's interpreter) and the
 * file that is read here (*FILE: under --sysroot).  False after *WHY says what is wrong.
 */
bool program_path(struct session *s, const char *path, char **target, char **file, char **why);
/* The same of each file PATTERN matches when it has wildcards (a glob, as stap: $PATH is
 * not searched), added to TARGETS and FILES; how many (0 after *WHY says why none). */
int program_paths(struct session *s, const char *pattern, struct strlist *targets,
		  struct strlist *files, char **why);
/* The program a process point names: PATH itself; what process PID runs; or, for an
 * unspecified one (process.function(...)), the first word of -c's command or what -x's
 * process runs.  NULL after *WHY says why not ("cannot probe pid 5: No such process"). */
char *process_point_program(struct session *s, const char *path, int64_t pid, char **why);
/* The libraries of the program at FILE that PATTERN names (a path, or a glob matched
 * against the names the program needs, found in its run path and the usual folders),
 * added to TARGETS and FILES as program_path() gives them; how many (0 after *WHY says
 * why none). */
int program_libraries(struct session *s, const char *file, const char *pattern,
		      struct strlist *targets, struct strlist *files, char **why);

/* ---- blocklist.c ---- */

/* Why a kernel function may not be probed for what it is: "blocklisted" (its name) or
 * "blocklisted file" (FILE, its declaration's, may be NULL); NULL if it may. */
const char *dw_blocklisted(const char *name, const char *file);

/* ---- header_types.c ---- */

/* Whether SPEC names C headers, "<sys/un.h>" or "<a.h><b.h>" (@cast's module). */
bool dw_is_header_spec(const char *spec);
/* An object with the DWARF of SPEC's headers' types (the compiler's messages shown
 * and a warning when it fails: NULL); the caller opens it, then removes it. */
char *dw_compile_headers(struct session *s, const char *spec);
/* The same for the target kernel's headers ("<linux/videodev2.h>" of "kernel<...>"),
 * compiled by its kbuild and kept in the cache (the caller must not remove it). */
char *dw_compile_kernel_headers(struct session *s, const char *spec);

/* ---- dwarf_module.c ---- */

/* Opens M's DWARF (libdwfl) if not yet: tables from the cache do not need it. */
bool dw_module_open(struct dw_module *m);
/* Opens the ELF file of a program or library M without DWARF (M->symbols_only): its
 * symbols, segments and call frame information serve; dw_module_open() stays false. */
bool dw_module_open_symbols(struct dw_module *m);
/* Reads M's tables (symbols, exported names, text and blocked ranges) from its open ELF. */
void dw_module_read_tables(struct dw_module *m);
/* Frees M's tables and index (the cache's too) and empties them. */
void dw_module_drop_tables(struct dw_module *m);
/* Frees M: its DWARF (and the C types read from it), tracepoints, tables, M itself. */
void dw_module_free(struct dw_module *m);
/* The offset in M's file of its link-time address ADDR (a uprobe's place), or false. */
bool dw_file_offset(struct dw_module *m, uint64_t addr, uint64_t *offset);
/* Whether M is loaded where the process chooses (ET_DYN: PIE programs, libraries). */
bool dw_relocatable(const struct dw_module *m);
/* The symbol whose [addr, addr+size) holds ADDR (functions first), or NULL. */
const struct dw_symbol *dw_symbol_at(struct dw_module *m, uint64_t addr);
/* Why ADDR may not be probed, or NULL. */
const char *dw_blocked(struct dw_module *m, uint64_t addr);
bool dw_in_text(struct dw_module *m, uint64_t addr);	/* in an executable section */
bool dw_usable(struct dw_module *m, uint64_t addr);	/* in text, not blocked */
bool dw_partial_copy(struct dw_module *m, uint64_t addr);	/* foo.part.N's start */
/* A unique symbol at or before ADDR in its text to place a probe from: "symbol+offset". */
const struct dw_symbol *dw_anchor(struct dw_module *m, uint64_t addr);
bool dw_name_unique(struct dw_module *m, const char *name);
const struct dw_symbol *dw_symbol_named(struct dw_module *m, const char *name);
/* The data symbol (unique in M) whose object holds ADDR, or NULL. */
const struct dw_symbol *dw_object_symbol(struct dw_module *m, uint64_t addr);
bool dw_name_exported(struct dw_module *m, const char *name);

/* ---- dwarf_pattern.c ---- */

/* func[@file[:N | :N-M | :N,M-O | :* | +N]]: the parts of a function or statement pattern */
struct dw_pattern {
	char *function;		/* glob */
	char *file;		/* glob, or NULL */
	enum { DW_LINES_NONE, DW_LINES_ABSOLUTE, DW_LINES_RELATIVE, DW_LINES_ALL } lines;
	int (*ranges)[2];	/* ABSOLUTE: inclusive ranges; RELATIVE: one offset in [0][0] */
	int nranges;
};
/* NULL after saying what is wrong in *ERROR (for the caller to report). */
struct dw_pattern *dw_parse_pattern(const char *text, char **error);
/* Whether FILE matches the glob PATTERN as it is or after any leading folders. */
bool dw_file_matches(const char *pattern, const char *file);
/* Whether PAT's lines take LINE of a function declared at DECL_LINE. */
bool dw_line_wanted(const struct dw_pattern *pat, int line, int decl_line);

/* ---- dwarf_index.c ---- */

enum dw_function_flags {
	DWF_OUT_OF_LINE = 1 << 0,	/* has an out-of-line copy: entry is its address */
	DWF_INLINED = 1 << 1,		/* has inlined instances in probe-able text */
	DWF_NO_DWARF = 1 << 2,		/* an ELF symbol without DWARF (no @file) */
	DWF_EXPORTED = 1 << 3,
	DWF_BLOCKED = 1 << 4,		/* every instance is in text kprobes may not touch */
};

/* One function of a module, as -l lists it: name@file:line. */
struct dw_function {
	const char *name;
	const char *file;	/* the declaration's file, as the DWARF spells it; NULL */
	int line;
	Dwarf_Off cu;		/* the compile unit's DIE */
	Dwarf_Off die;		/* the function's DIE (abstract for an inline one) */
	uint64_t entry;		/* the out-of-line copy's address (DWF_OUT_OF_LINE) */
	unsigned flags;
	const char *why_blocked;	/* DWF_BLOCKED: as dw_blocked() says */
	const char *dwarf_name;	/* another symbol of the function: the name its DWARF has,
				 * which names its probes (malloc: __libc_malloc) */
	int order;		/* DWF_NO_DWARF in a program or library: its symbol's place in
				 * the symbol table (of names at one address, the first is
				 * listed and probed) */
};

/* A named type or global variable of a unit (for @cast and @var). */
struct dw_named {
	const char *name;
	const char *file;	/* the unit's name (a global's @var("name@file")) */
	Dwarf_Off cu, die;
};

struct dw_index {
	struct dw_function *functions;	/* sorted by name, file, line */
	int nfunctions;
	struct dw_named *types;		/* struct, union, enum, typedef, base: by name */
	int ntypes;
	struct dw_named *globals;	/* variables with a location: by name, then file */
	int nglobals;
	struct dw_named *declared;	/* variables only declared (extern), one per name */
	int ndeclared;
};

struct dw_index *dw_module_index(struct dw_module *m);

/* The complete type named NAME ("task_struct", "struct task_struct", "u32"), or false. */
bool dw_find_type(struct dw_module *m, const char *name, Dwarf_Die *die);
/* The global variable NAME, of the unit whose file matches FILE (NULL: any; the shortest
 * such path, as stap chooses), or false. */
bool dw_find_global(struct dw_module *m, const char *name, const char *file, Dwarf_Die *die);
/* A variable only declared in the DWARF (jiffies: the linker defines it), or false. */
bool dw_find_declared(struct dw_module *m, const char *name, Dwarf_Die *die);

/* The function DIEs of a unit, for the index and the queries: each named function
 * (not an abstract origin's copy), each concrete out-of-line copy of an abstract one,
 * and each inlined instance, with the offset of the DIE it is an instance of. */
enum dw_unit_die { DW_UNIT_FUNCTION, DW_UNIT_COPY, DW_UNIT_INLINED };
typedef void dw_unit_visitor(void *arg, Dwarf_Die *die, enum dw_unit_die what,
			     Dwarf_Off origin);
void dw_walk_unit(Dwarf_Die *cu, dw_unit_visitor *visit, void *arg);
bool dw_die_entry(Dwarf_Die *die, uint64_t *addr);	/* entry pc, else first range */
bool dw_die_has_code(Dwarf_Die *die);
Dwarf_Off dw_die_origin(Dwarf_Die *die);		/* its abstract origin's offset, or 0 */

/* ---- dwarf_cache.c: a module's tables and index, kept in the cache (cache.h) ---- */

/* Whether M's tables and index were read from the cache (else M is as it was). */
bool dw_cache_load(struct dw_module *m);
void dw_cache_store(struct dw_module *m);

/* ---- dwarf_query.c ---- */

enum dw_site_kind {
	DW_SITE_ENTRY,		/* a function's out-of-line entry */
	DW_SITE_INLINE,		/* an inlined instance's entry */
	DW_SITE_STATEMENT,	/* a line's address */
	DW_SITE_LABEL,		/* a label's address */
	DW_SITE_SYMBOL,		/* an ELF symbol without DWARF */
};

/* One frame up the stack: where the calls that may have made it return (link-time). */
struct dw_call_level {
	uint64_t *returns;
	int nreturns;
};

/* A place a probe goes. */
struct dw_site {
	enum dw_site_kind kind;
	struct dw_module *module;
	const struct dw_function *function;	/* NULL for a statement found by file only */
	uint64_t addr;		/* where the probe goes (link-time) */
	uint64_t entry;		/* the function's (or instance's) entry */
	Dwarf_Off cu;
	Dwarf_Off scope;	/* the subprogram or inlined_subroutine holding addr */
	const char *file;	/* of a statement or label: its line's file */
	int line;
	const char *label;	/* DW_SITE_LABEL */
	int asked_line;		/* a statement's single line asked with .nearest (-l names it) */
	/* .callee(...) and .callees(N): the function whose call this is, and the calls
	 * that must be on the stack for the probe to run, innermost first: the frame the
	 * probe's address is in returns to one of levels[0]'s addresses, that caller's
	 * frame to one of levels[1]'s, and so on.  A direct callee's entry has one level
	 * (its caller's calls of it); an inlined instance in the caller's own code none. */
	const struct dw_function *caller;
	struct dw_call_level *levels;
	int nlevels;
};

enum dw_function_filter {
	DW_ANY,			/* out-of-line and inlined instances */
	DW_CALL,		/* .call: out-of-line only */
	DW_INLINE,		/* .inline: inlined instances only */
	DW_RETURN,		/* .return: out-of-line only (inlined ones have no return) */
};

/* What a query found, and what it saw but left out (for an exact name's messages). */
struct dw_sites {
	struct dw_site *sites;
	int count;
	const struct dw_function **refused;	/* matched, but may not be probed (why_blocked) */
	int nrefused;
	bool functions_found;	/* statements, labels: functions matched (not their lines, labels) */
	char *line_error;	/* statements: "no line records for FILE:N ..." (the caller's) */
	bool too_many;		/* .callees(N): stopped at DW_CALLEES_MAX sites */
};

enum dw_prologue { DW_PROLOGUE_AUTO, DW_PROLOGUE_ALWAYS, DW_PROLOGUE_NEVER };

void dw_function_sites(struct dw_module *m, const struct dw_pattern *pat,
		       enum dw_function_filter filter, bool exported_only,
		       enum dw_prologue prologue, struct dw_sites *out);
void dw_statement_sites(struct dw_module *m, const struct dw_pattern *pat, bool nearest,
			struct dw_sites *out);
void dw_label_sites(struct dw_module *m, const struct dw_pattern *pat, const char *label,
		    struct dw_sites *out);
/* ---- dwarf_callees.c ---- */

/* .callee(CALLEE) of the functions CALLER names: the inlined instances in their bodies
 * and, for their call sites, the callees' entries with the return addresses; with DEPTH
 * > 1 (.callees(N)) the callees of those callees too, N levels down. */
void dw_callee_sites(struct dw_module *m, const struct dw_pattern *caller, const char *callee,
		     int depth, enum dw_function_filter filter, struct dw_sites *out);
/* Each level of .callees(N) about doubles the sites: past this many the walk stops
 * (too_many) rather than run out of time or memory. */
#define DW_CALLEES_MAX 100000

/* -l: one site per function PAT names, from the index alone (no address for inlines). */
void dw_function_list(struct dw_module *m, const struct dw_pattern *pat,
		      enum dw_function_filter filter, bool exported_only, struct dw_sites *out);
/* The names of the module's functions, for "similar functions". */
int dw_function_names(struct dw_module *m, const char ***names);
/* " $name:type ..." of the variables in scope at a site (-L); "" if none. */
char *dw_site_variables(const struct dw_site *site, bool with_return);

/* ---- dwarf_trace.c: tracepoints ---- */

/* The folders the kernel's sources may be under: its build tree, and the source tree
 * the build tree's Makefile includes (Debian: linux-headers-REL-common). */
struct strlist kernel_source_folders(struct session *s);
/* The first TRACE_SYSTEM a trace header's TEXT defines ("sched"), or NULL. */
char *trace_system_defined(const char *text);

/* A tracepoint of a module: "sched:sched_switch" and its __traceiter_ function. */
struct dw_tracepoint {
	const char *name;
	char *system;
	const struct dw_function *function;	/* __traceiter_NAME */
};
/* The module's tracepoints, sorted by system and name (kept with the module). */
int dw_tracepoints(struct dw_module *m, const struct dw_tracepoint **out);
/* The arguments of a tracepoint, in order (the caller frees *OUT, not the names). */
struct ctype;
struct dw_trace_arg {
	const char *name;
	struct ctype *type;
};
int dw_tracepoint_args(struct dw_module *m, const struct dw_tracepoint *tp,
		       struct dw_trace_arg **out);

/* ---- target variables ---- */

/* dwarf_loc.c: the C of a variable's location at an address (see there). */
struct dw_location {
	char *c;		/* C (u64): the address, or (is_value) the value */
	bool is_value;
	int regno;		/* the value is DWARF register REGNO's, else -1 */
	char *error;		/* why it cannot be read there (then c is NULL) */
	const char *module_symbol;	/* a module's static: C has STP_MODULE_SYMBOL where
					 * the index of "module:this" goes (cast.c) */
};
bool dw_compile_location(struct dw_module *m, Dwarf_Die *var, Dwarf_Die *scope,
			 uint64_t addr, bool at_entry, struct dw_location *out);
/* The canonical frame address at ADDR as DWARF register REGNO plus OFFSET, as the call
 * frame information has it there; false when it is not that simple. */
bool dw_cfa_rule(struct dw_module *m, uint64_t addr, int *regno, int64_t *offset);

/* How the frame that ADDR is in finds its caller's (.callees(N) walks them): the CFA
 * rule, and where the frame keeps its caller's frame pointer (DWARF register 6, rbp). */
enum dw_bp_rule {
	DW_BP_SAME,		/* the frame did not change it */
	DW_BP_SAVED,		/* saved at CFA + bp_offset */
	DW_BP_LOST,		/* not known there */
};
struct dw_frame_rule {
	int cfa_regno;
	int64_t cfa_offset;
	enum dw_bp_rule bp;
	int64_t bp_offset;
};
bool dw_frame_rule(struct dw_module *m, uint64_t addr, struct dw_frame_rule *rule);

/* dwarf_scope.c: the variable NAME in scope at SITE: the blocks holding its address,
 * the function (or inlined instance), then the unit's globals.  False if none; then
 * *ALTERNATIVES (if asked) is "$a, $b" of those in scope. */
bool dw_find_variable(const struct dw_site *site, const char *name, Dwarf_Die *var,
		      Dwarf_Die *function, char **alternatives);
/* Where a site's variables are read: after the __fentry__ call at a function's entry. */
uint64_t dw_site_read_at(const struct dw_site *site);
/* The parameters (PARAMS) or locals of SITE's function (or inlined instance), in order. */
int dw_site_scope_variables(const struct dw_site *site, bool params, Dwarf_Die **vars);

/* ---- shared by dwarf_query.c and dwarf_lines.c ---- */

/* The functions of one unit that a query wants, and what it found of them. */
struct unit_query {
	struct dw_module *m;
	const struct dw_function **wanted;	/* sorted by die */
	int nwanted;
	enum dw_function_filter filter;
	enum dw_prologue prologue;
	bool optimized;				/* the unit's producer has -O1 or more */
	struct dw_sites *out;
	const struct dw_pattern *pat;		/* statements and labels */
	const char *label;
	bool nearest;
};

void dw_add_site(struct dw_sites *out, const struct dw_site *site);
/* F matched but may not be probed: its name goes into OUT's refused (said by the caller). */
void dw_add_refused(struct dw_sites *out, const struct dw_function *f);
int dw_compare_sites(const void *a, const void *b);
const struct dw_function *dw_wanted_function(struct unit_query *q, Dwarf_Off die);
/* The functions [*LO, *HI) of the index that PATTERN's name may match: those of the name
 * when it has no wildcard (the index is sorted by name), else all. */
void dw_name_range(struct dw_index *ix, const char *pattern, int *lo, int *hi);
/* The index's functions PAT names (with DWARF), grouped by unit; refusals noted in OUT. */
const struct dw_function **dw_match_functions(struct dw_module *m,
					      const struct dw_pattern *pat, bool exported_only,
					      bool with_lines, struct dw_sites *out, int *count);
/* Runs VISIT over each unit holding a wanted function, with the unit's wanted ones. */
void dw_for_each_unit(struct unit_query *q, const struct dw_function **matched, int n,
		      dw_unit_visitor *visit);

#endif
