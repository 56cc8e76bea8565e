/*
 * elaborate.h - pass 2's internals: the state its parts share and their entry points.
 *
 *   elaborate.c  the pass manager: setup, then the steps in order
 *   checks.c     -G's globals, never-assigned variables, arrays changed in their foreach
 *   display.c    the end probe that prints the globals written but never read
 *   listing.c    -l and -L
 *   derive.c     probe points to derived probes, through aliases and families (family.h)
 *   resolve.c    names to symbols and functions, loading tapset files as needed
 *   types.c      type inference and its conflicts
 *   optimize.c   elision of what has no effect; fold.c folds constants
 *   tapset.c     the library's index: which file defines what
 *   cast.c       @cast and @var
 *   target_info.c  the target's debuginfo, kernel addresses, modules' static variables
 *   kernel_symbols.c  the target kernel's function names
 * Their diagnostics go through semantic_error() and friends (diag.c).
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
/* An error about TOK that also shows RELATED, the other place involved. */
void semantic_error_related(struct elaborator *el, struct token *tok, struct token *related,
			    const char *fmt, ...) PRINTF_LIKE(4, 5);
/* -w silences warnings; -W makes them fail the pass (still printed as warnings). */
void semantic_warning(struct elaborator *el, struct token *tok, const char *fmt, ...)
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

/* display.c: an end probe for each global of the script written but never read */
void add_display_probes(struct elaborator *el);

/* derive.c */
void derive_probe(struct elaborator *el, struct probe *p);
/* Called by a family's build() for each probe it makes from PROTO. */
struct derived_probe *add_derived_probe(struct elaborator *el, struct derived_probe *proto,
					char *name, void *data);
char *probe_point_text(struct probe_point *pp, bool with_marks);
int64_t component_number(struct component *c, bool *present);
const char *component_string(struct component *c, bool *present);

/* syscall_tapset.c: the folder with the syscall tapset of the target kernel (written
 * into the cache once), or NULL (no debuginfo) */
char *syscall_tapset_dir(struct elaborator *el);

/* resolve.c */
void resolve_program(struct elaborator *el);
void check_alias_names(struct elaborator *el, struct stapfile *file);
struct stapfile *load_tapset_file(struct elaborator *el, struct stapfile *file);
bool derive_tapset_probes(struct elaborator *el);
/* N, made after its handler or function was resolved (a rewritten node), resolved now */
void resolve_rewritten(struct elaborator *el, struct probe_body *handler,
		       struct function *function, struct node *n);

/* autocast.c: p->member on script values that hold typed pointers; resolve_program calls
 * resolve_autocasts once the rest resolved */
enum autocast_result { AUTOCAST_RESOLVED, AUTOCAST_FAILED, AUTOCAST_UNKNOWN };
enum autocast_result autocast_resolve(struct elaborator *el, struct probe_body *handler,
				      struct function *function, struct node *n, bool quiet);
void resolve_autocasts(struct elaborator *el);

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

/* optimize.c */
void optimize(struct elaborator *el, bool elide);
void drop_unreachable_overloads(struct elaborator *el);

/* tapset.c: which library file defines what */
enum tapset_definition_kind { TAPSET_FUNCTION, TAPSET_ALIAS, TAPSET_GLOBAL };
struct tapset_index *tapset_index_open(struct session *s, struct preprocessor *pp);
/* Parses (once) and returns the tapset file that defines NAME, or NULL. */
struct stapfile *tapset_find(struct tapset_index *ix, enum tapset_definition_kind kind,
			     const char *name, int *errors);
/* The file of tapset_names()'s name I was parsed already: loaded, or it failed */
bool tapset_name_parsed(struct tapset_index *ix, enum tapset_definition_kind kind, int i);
int tapset_names(struct tapset_index *ix, enum tapset_definition_kind kind,
		 const char ***names);
/* Parses every file defining NAME and hands each to LOAD. */
void tapset_find_all(struct tapset_index *ix, enum tapset_definition_kind kind, const char *name,
		     struct stapfile *(*load)(struct elaborator *, struct stapfile *),
		     struct elaborator *el);

/* kernel_symbols.c: the target kernel's functions (kallsyms, or System.map with -r) */
/* vmlinux's text symbols matching PATTERN (fnmatch), sorted; modules' are not listed. */
struct strlist kernel_functions(struct elaborator *el, const char *pattern);
int kernel_function_names(struct elaborator *el, const char ***names);
int kernel_has_function(struct elaborator *el, const char *name);

#endif
