/*
 * elaborate.h - pass 2's internals: the state its parts share and their entry points.
 *
 *   elaborate.c  the pass manager: setup, then the steps in order
 *   derive.c     probe points to derived probes, through aliases and families (family.h)
 *   resolve.c    names to symbols and functions, loading tapset files as needed; the
 *                autocasts, in rounds as their values' types spread
 *   autocast.c   the C types of script values (p = &$x), for p->member
 *   checks.c     -G's globals, never-assigned variables, arrays changed in their foreach
 *   display.c    the end probe that prints the globals written but never read
 *   listing.c    -l and -L
 *   types.c      type inference and its conflicts
 *   optimize.c   elision of what has no effect; fold.c folds constants
 *   tapset.c     the library's index (which file defines what), files joining the program
 *   syscall_tapset.c  the syscall.* aliases, generated for the target kernel
 *   cast.c       @cast and @var; target_access.c  ->member, [index] and pretty-printing
 *   target_info.c  the target's debuginfo, kernel addresses, modules' static variables
 *   privilege.c  --privilege; regex.c  =~ (regular expressions compiled to C)
 *   kernel_symbols.c  the target kernel's function names (kallsyms, System.map)
 * Their diagnostics go through semantic_error() and friends (diag.c).
 *
 * The calls go one way: elaborate.c calls the steps; resolve.c calls derive.c (the probes
 * of tapset files it loaded) and autocast.c; derive.c and resolve.c load tapset files
 * through tapset.c, which calls neither.  A rewritten node (p->x$ became an sprintf())
 * is resolved by resolve.c after autocast_resolve() returns, not by autocast.c.
 */
#ifndef ELABORATE_H
#define ELABORATE_H

#include "stap.h"

struct kernel_symbols;
struct tapset_index;
struct debuginfo;

/* -l/-L: a point's name, and for an alias the point that elaborates it (for -L). */
struct listed_point {
	char *name;
	struct probe_point *alias_point;
	char *variables;		/* -L: " $name:type ..." a family found, or NULL */
};

struct elaborator {
	struct session *session;
	struct preprocessor *pp;
	struct program *prog;
	struct tapset_index *tapsets;
	struct kernel_symbols *kernel;	/* the target's symbol table, loaded when needed */
	struct debuginfo *debuginfo;	/* the target's DWARF (dw.h), opened when needed */
	int errors;			/* semantic_error() counts them */
	struct token *resolving;	/* the probe point being resolved, for context */
	bool resolving_shown;
	bool statement_abandoned;	/* resolve.c: a name failed; the rest of the statement
					 * is not resolved (stap's error ends it) */
	bool report;			/* types: the final walk reports what is still wrong */
	bool changed;			/* types: the current walk learned something */
	bool typing_calls_from_context;	/* types: f() + 1 may teach f's result type */
	int defined_decided;		/* @defined() operators decided so far */
	bool listing;			/* -l/-L: collect the names of what points resolve to */
	struct listed_point *listed;
	int nlisted;
	/* derive.c: the program's aliases sorted by their first name, made again when the
	 * program has more files than ALIAS_FILES */
	struct alias_entry *aliases;
	int naliases, alias_files;
	/* tapset.c: the program's files that declare globals, and those that define
	 * functions, in the program's order (of the 800 files a syscall.* script loads, a
	 * few: resolve.c looks in these) */
	struct stapfile **files_tail;	/* where the next file of the program goes */
	struct stapfile **global_files, **function_files;
	int nglobal_files, nfunction_files;
	struct function **function_tail;
	struct symbol **global_tail;
	struct probe_body **body_tail;
	struct derived_probe **probe_tail;
};

/* diag.c: pass 2's messages, each alike one shown once; errors are counted in EL. */
void semantic_error(struct elaborator *el, struct token *tok, const char *fmt, ...)
	PRINTF_LIKE(3, 4);
/* An error alike the others of the same KEY. */
void semantic_error_keyed(struct elaborator *el, struct token *tok, const char *key,
			  const char *message);
/* The second part of the error just raised ("type was first inferred here"): shown with
 * it, left out (and not counted as an error alike) with it, as stap's chained error. */
void semantic_error_followup(struct elaborator *el, struct token *tok, const char *fmt, ...)
	PRINTF_LIKE(3, 4);
/* An error about TOK that also shows RELATED, the other place involved. */
void semantic_error_related(struct elaborator *el, struct token *tok, struct token *related,
			    const char *fmt, ...) PRINTF_LIKE(4, 5);
/* -w silences warnings; -W makes them fail the pass (still printed as warnings). */
void semantic_warning(struct elaborator *el, struct token *tok, const char *fmt, ...)
	PRINTF_LIKE(3, 4);
/* A warning shown even when TOK is in the tapset library (--check-version's). */
void library_warning(struct elaborator *el, struct token *tok, const char *fmt, ...)
	PRINTF_LIKE(3, 4);

/* elaborate.c: EL made ready to elaborate USER (elaborate(), and each elaboration of
 * -l/-L): the program holds USER alone, the tapset index is open (with the generated
 * syscall tapset when USER may name its probes) */
void elaborate_setup(struct elaborator *el, struct session *s, struct preprocessor *pp,
		     struct stapfile *user);

/* checks.c */
void apply_global_settings(struct elaborator *el, struct stapfile *user);
void warn_unassigned(struct elaborator *el);
void check_foreach_changes(struct elaborator *el);
void check_statistics_declarations(struct elaborator *el);

/* display.c: an end probe for each global of the script written but never read */
void add_display_probes(struct elaborator *el);

/* derive.c */
void derive_probe(struct elaborator *el, struct probe *p);
/* The probes of the tapset files that joined the program since the last call; true if
 * there were any (none while listing) */
bool derive_tapset_probes(struct elaborator *el);
/* Called by a family's build() for each probe it makes from PROTO. */
struct derived_probe *add_derived_probe(struct elaborator *el, struct derived_probe *proto,
					char *name, void *data);
char *probe_point_text(struct probe_point *pp, bool with_marks);
char *alias_definition(struct probe *a);
int64_t component_number(struct component *c, bool *present);
const char *component_string(struct component *c, bool *present);

/* syscall_tapset.c: the folder with the syscall tapset of the target kernel (written
 * into the cache once), or NULL (no debuginfo) */
char *syscall_tapset_dir(struct elaborator *el);

/* resolve.c: the handlers, the functions they use (and the probes of the tapset files
 * that loads), until nothing new comes; then the probes' conditions */
void resolve_program(struct elaborator *el);
/* --dump-functions: every function of the program's files used, then resolved */
void resolve_every_function(struct elaborator *el);

/* autocast.c: p->member on script values that hold typed pointers */
/* N (an assignment, or a return in FUNCTION) gives its variable or function the C type
 * of its value; true when that changed what it had */
bool spread_value_type(struct node *n, struct function *function);
/* The autocast N, if its value's type is known: its access (N may become an sprintf()
 * of the members, p->x$, which the caller then resolves) */
enum autocast_result { AUTOCAST_RESOLVED, AUTOCAST_FAILED, AUTOCAST_UNKNOWN };
enum autocast_result autocast_resolve(struct elaborator *el, struct node *n, bool quiet);

/* fold.c: the value of an expression of literals (2 * 3, !0, 1 < 2 && 3), if it is one */
bool constant_value(struct node *n, int64_t *value);

/* target_info.c: the target's debuginfo, opened on first use; kernel addresses in target
 * variables (the program notes where jiffies was linked: KASLR) */
struct debuginfo *elaborator_debuginfo(struct elaborator *el);
bool use_kernel_addresses(struct elaborator *el);
/* The target's debuginfo is not there: said even by -l, which is otherwise silent about
 * points that do not resolve (it would list nothing, and the user would not know why) */
void report_missing_debuginfo(struct elaborator *el);
/* A module's static variable (LOC from M's DWARF): its symbol joins the program's
 * module_symbols, whose index LOC's C then uses */
struct dw_module;
struct dw_location;
void place_module_symbol(struct elaborator *el, struct dw_module *m, struct dw_location *loc);
void place_user_file(struct elaborator *el, struct dw_module *m, struct dw_location *loc);

/* cast.c: @cast and @var; the kernel's type NAME ("sk_buff", "struct sk_buff") from its
 * DWARF or BTF, or NULL */
struct ctype *kernel_type_named(struct elaborator *el, const char *name);
bool resolve_cast(struct elaborator *el, struct derived_probe *context, struct node *n,
		  bool quiet);
/* @var("name@file"[, "module"]): a global (of the probe's module by default); false if
 * it is not one (or after an error) */
bool resolve_at_var(struct elaborator *el, struct derived_probe *context, struct node *n,
		    bool quiet);

/* target_access.c: the ->member and [index] components of N from a start of TYPE (in A): the
 * steps, and what the result is; false after saying why (not when QUIET) */
bool target_components(struct elaborator *el, struct node *n, struct target_access *a,
		       struct ctype *type, bool quiet);

/* target_access.c: N resolved to A: A is its access, or (N->pretty: $var$, $var$$) N becomes an
 * sprintf() call reading each member; true */
bool target_resolved(struct node *n, struct target_access *a);
/* $$vars, $$parms, $$locals: "a=0x1 b=? c={...}" built one variable at a time (no
 * access: "=?"), with $ or $$ (PRETTY 1, 2) each printed as $var$ or $var$$ */
struct pretty_list;
struct pretty_list *target_pretty_list(struct token *tok);
void target_pretty_variable(struct pretty_list *list, const char *name, struct target_access *a,
			    struct ctype *type, int pretty);
struct node *target_pretty_list_call(struct pretty_list *list);

/* types.c */
void infer_types(struct elaborator *el);
void resolve_global_arity(struct elaborator *el, struct symbol *sym, int arity,
			  struct token *tok);

/* optimize.c */
void optimize(struct elaborator *el, bool elide);
struct symbol *pragma_global(struct elaborator *el, const char *name, size_t len);
void drop_unreachable_overloads(struct elaborator *el);
void drop_uncalled_functions(struct elaborator *el);

/* tapset.c: which library file defines what */
enum tapset_definition_kind { TAPSET_FUNCTION, TAPSET_ALIAS, TAPSET_GLOBAL };
struct tapset_index *tapset_index_open(struct session *s, struct preprocessor *pp);
/* FILE joins EL's program (once): its alias names are checked, its globals know their
 * file.  The script does first, then each tapset file pass 2 loads. */
void add_program_file(struct elaborator *el, struct stapfile *file);
/* Parses (once) the tapset file that defines NAME, adds it to the program and returns it,
 * or NULL */
struct stapfile *tapset_load(struct elaborator *el, enum tapset_definition_kind kind,
			     const char *name);
/* The same for every file defining NAME */
void tapset_load_all(struct elaborator *el, enum tapset_definition_kind kind, const char *name);
/* Every file of the library (--dump-*): parsed and added to the program, but those that
 * fail to parse (counted in el->errors) */
void tapset_load_every_file(struct elaborator *el);
/* The file of tapset_names()'s name I was parsed already: loaded, or it failed */
bool tapset_name_parsed(struct tapset_index *ix, enum tapset_definition_kind kind, int i);
/* Parses (once) the file of tapset_names()'s name I and adds it to the program: an alias
 * defined in several files (syscall.read of each ABI) is each file's */
void tapset_load_nth(struct elaborator *el, enum tapset_definition_kind kind, int i);
int tapset_names(struct tapset_index *ix, enum tapset_definition_kind kind,
		 const char ***names);

/* kernel_symbols.c: the target kernel's functions (kallsyms, or System.map with -r) */
/* vmlinux's text symbols matching PATTERN (fnmatch), sorted; modules' are not listed. */
struct strlist kernel_functions(struct elaborator *el, const char *pattern);
int kernel_function_names(struct elaborator *el, const char ***names);
int kernel_has_function(struct elaborator *el, const char *name);

#endif
