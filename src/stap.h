/*
 * stap.h - the translator's data model and the entry points of its passes.
 *
 * Read this file first: it shows the whole translator.
 *
 *   script.stp ──pass 1 (tokenize.c, parse.c)──▶ struct stapfile (AST)
 *              ──pass 2 (elaborate.c, tapset.c, probe_family.c)──▶ struct program
 *              ──pass 3 (translate.c)──▶ MODULE.c
 *              ──pass 4 (kbuild.c)──▶ MODULE.ko
 *              ──pass 5 (run.c)──▶ staprun / stapio
 *
 * main.c runs the passes; options.c fills the struct session every pass reads.  This
 * header holds the data model and the passes' entry points; each pass keeps its own
 * internals in a header of its own (elaborate.h and family.h for pass 2, translate.h and
 * emit.h for pass 3, cache.h for the module cache).
 *
 * Ownership: a function returning `char *` gives the caller a string to free; a
 * `const char *` is borrowed (it lives as long as what it came from).  The AST, the
 * tokens and the elaborated program are allocated once and live for the whole run:
 * nothing frees them (the fuzz target frees everything at once, see util.c).
 */
#ifndef STAP_H
#define STAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>

#ifndef STAPLER_VERSION
#define STAPLER_VERSION "0.1"
#endif
/* the SystemTap version whose language we speak: systemtap_v, the most --compatible takes */
#define STAP_COMPAT_VERSION "4.8"

#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
struct session;
#define NORETURN __attribute__((noreturn))

/* ------------------------------------------------------------------ */
/* util.c: memory, strings, growing buffers                            */
/* ------------------------------------------------------------------ */

#ifdef STAP_FUZZING
/* The fuzz target frees everything one input allocated: util.c keeps track of it. */
void xfree(void *p);
void xfree_all(void);
#define free(p) xfree(p)
#endif

void *xmalloc(size_t size);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) PRINTF_LIKE(1, 2);
bool starts_with(const char *s, const char *prefix);
char *read_file(const char *path, size_t *len);
/* A file's identity as a cache checks it: size, modification time, inode (no padding). */
struct file_identity {
	long long size, sec, nsec;
	unsigned long long ino;
};
bool file_identity(const char *path, struct file_identity *id);	/* false: no such file */
int write_file(const char *path, const char *data, size_t len);
bool is_dir(const char *path);
bool is_file(const char *path);
int make_dirs(const char *path);	/* mkdir -p, each folder made private */
int install_file(const char *path, const void *data, size_t len);	/* atomic */
/* PROGRAM's file: as it is when it names one, else found on PATH as the shell would;
 * its real path (NULL when there is none). */
char *which_program(const char *program);
char *dir_of_executable(void);
char *find_file_under(const char *dir, const char *name);
/* VAR of the target's environment: --sysenv's value, else this process's; NULL if unset */
const char *target_env(const struct session *s, const char *var);
uint64_t hash64(const void *data, size_t len, uint64_t seed);
int edit_distance(const char *a, const char *b);
/* " (similar: a, b)" listing the closest of NAMES to NAME, or "" */
char *similar_names(const char *name, const char *const *names, int count);
char *similar_names_including(const char *name, const char *const *names, int count);

/* A growing, always NUL-terminated string. */
struct strbuf {
	char *data;
	size_t len, cap;
};
void sb_putc(struct strbuf *sb, char c);
void sb_puts(struct strbuf *sb, const char *s);
void sb_putn(struct strbuf *sb, const char *s, size_t n);
void sb_printf(struct strbuf *sb, const char *fmt, ...) PRINTF_LIKE(2, 3);
void sb_vprintf(struct strbuf *sb, const char *fmt, va_list ap);
void sb_put_c_string(struct strbuf *sb, const char *s);	/* "quoted", escaped */
char *sb_steal(struct strbuf *sb);
void sb_free(struct strbuf *sb);

/* A growing array of strings, for option lists. */
struct strlist {
	char **items;
	int count, cap;
};
void strlist_add(struct strlist *l, const char *s);
void strlist_free(struct strlist *l);
/* Strings each kept once and numbered in the order they came: a hash of their text. */
struct string_set {
	char **names;		/* by number */
	uint32_t count;
	uint32_t *slots;	/* number + 1; 0: empty */
	size_t cap;
};
/* NAME's number in SET, added (copied) when new. */
uint32_t string_set_add(struct string_set *set, const char *name);
void string_set_free(struct string_set *set);
int compare_strings(const void *a, const void *b);
/* Sorts as C++'s std::sort of GNU libstdc++ does (introsort, not stable), so that equal
 * items end in the order stap's do where stap sorts with it. */
void cxx_sort(void **items, size_t n, bool (*less)(const void *a, const void *b));
int compare_strings_by_length(const void *a, const void *b);
char *command_text(const struct strlist *argv);
void show_command(const struct strlist *argv);
/* rm -rf PATH; what could not be removed is said in FAILURES ("cannot remove P: why") */
void remove_tree(const char *path, struct strlist *failures);
/* The regular files under DIR, at any depth (hidden ones left out), sorted */
struct strlist tree_files(const char *dir);

/* ------------------------------------------------------------------ */
/* Sources, tokens and diagnostics                                     */
/* ------------------------------------------------------------------ */

struct source_file {
	char *name;		/* "<input>" for -e, else the path */
	char *text;		/* whole contents, NUL-terminated */
	bool is_tapset;		/* from the tapset library: trusted, guru-like */
	bool from_include_dir;	/* a tapset of an -I folder: its code's "unprivileged"
				 * marks do not count for --privilege=stapusr */
};

enum token_kind {
	TOK_IDENT,		/* foo, $foo, @foo */
	TOK_KEYWORD,		/* probe, function, if, ... */
	TOK_NUMBER,
	TOK_STRING,
	TOK_OPERATOR,		/* { } ( ) + += ... */
	TOK_EMBEDDED,		/* %{ ... %} */
	TOK_JUNK,		/* a character no token starts with */
	TOK_EOF,
};

struct token {
	enum token_kind kind;
	char *text;		/* spelling; for strings the decoded value */
	char *raw;		/* strings as stap keeps them: escapes as written, but \" is " */
	int64_t number;		/* TOK_NUMBER (wrapped to 64 bits) */
	struct source_file *file;
	int line, column;	/* 1-based */
	bool space_before;	/* whitespace or a comment precedes it */
	bool comment_before;	/* a comment does (before --compatible=2.0 no strings glue
				 * across one) */
	bool version_dependent;	/* a %( systemtap_v ... %) conditional chose it, or was
				 * just before it (--check-version) */
	struct token *expanded_from;	/* the @macro invocation it came from, if any */
	struct token *next;
};

/*
 * diag.c: every message to the user, in the forms SystemTap users know:
 *   parse error: expected ';'                       located: a pass's error or a
 *           saw: identifier 'foo' at <input>:1:20    warning about the script, at a
 *        source: probe begin { x foo }                token, with its source line
 *                                ^
 *   ERROR: cannot run make: ...                     plain: about the system
 * KIND is "parse error", "semantic error", "translation error" or "WARNING".  Pass 2's
 * errors and warnings go through semantic_error() and friends (elaborate.h), which show
 * alike messages once; diag_summary() counts the others at exit.
 */
extern int diag_quiet;		/* > 0: diagnostics are counted, not printed */
void diag_setup(struct session *s);	/* -v, -w, -W */
bool diag_set_colour(const char *when);	/* --color=always|never|auto (NULL) */
void diag_at(const char *kind, struct token *tok, const char *fmt, ...) PRINTF_LIKE(3, 4);
/* a parse error of the preprocessor: its token after "at:" */
void diag_preprocessor(struct token *tok, const char *fmt, ...) PRINTF_LIKE(2, 3);
void diag_related(const char *kind, struct token *tok, struct token *related, const char *fmt,
		  ...) PRINTF_LIKE(4, 5);
void diag_vat(const char *kind, struct token *tok, struct token *related, const char *fmt,
	      va_list ap);
/* A parse error of the parser: alike ones (the same KEY: the parser says what makes
 * errors alike) are shown once, as stap's are, the others counted; AT labels the token
 * "at:" instead of "saw:" */
void diag_parse_error_keyed(struct token *tok, const char *key, bool at, const char *message);
void diag_error(const char *fmt, ...) PRINTF_LIKE(1, 2);		/* "ERROR: ..." */
void diag_system_warning(const char *fmt, ...) PRINTF_LIKE(1, 2);	/* "WARNING: ..." */
/* remove_tree(PATH), each thing that could not be removed a warning */
void remove_tree_warning(const char *path);
/* A warning about the script: -w silences it, -W makes it an error (then true). */
bool diag_warning(const char *fmt, ...) PRINTF_LIKE(1, 2);
/* A warning about TOK (not the tapsets'); true when -W makes it an error. */
bool diag_warning_at(struct token *tok, const char *fmt, ...) PRINTF_LIKE(2, 3);
/* "Pass 2: analysis failed.  [man error::pass2]" */
void diag_pass_failed(int pass, const char *what);
void diag_summary(void);	/* how many alike messages were left out */
/* The man page that explains a message, as stap names it: " [man error::pass2]" */
#define MAN_PAGE(page) " [man " page "]"
const char *token_kind_name(enum token_kind kind);
char *token_description(const struct token *tok);
/* How a diagnostic names TOK's kind: "identifier", "operator" (also @cast, @macro), ... */
const char *token_kind_text(const struct token *tok);

/* tokenize.c */
struct token *tokenize(struct source_file *file, int *errors);
bool token_is(struct token *tok, const char *text);	/* operator or keyword */
struct token *copy_token(struct token *tok);

/* ------------------------------------------------------------------ */
/* The preprocessor (pass 1): macros, %( %? %: %), $1 @1 $# @#         */
/* ------------------------------------------------------------------ */

struct macro {
	char *name;			/* without the @ */
	struct token **params;		/* names, without the @ */
	int nparams;
	struct token *body;		/* tokens between %( and %), EOF-terminated */
	struct token *tok;		/* the @define */
	struct macro *next;
};

/* A macro library file not read yet: the names it defined, cleanly, when last read. */
struct deferred_library {
	char *path;
	struct strlist names;
	bool read;
	struct deferred_library *next;
};

/* What %( %) conditions test, and the macros every file sees. */
struct preprocessor {
	struct session *session;
	struct macro *library;		/* from the *.stpm files on the tapset path */
	struct deferred_library *deferred;	/* read when one of their names is used */
	char *kernel_v, *kernel_vr;	/* "6.1.0", "6.1.0-56-cloud-amd64" */
	const char *arch, *runtime, *privilege, *compat_version;
	struct strlist config;		/* "CONFIG_X=y" lines of the target's .config */
	bool config_loaded;
	bool config_tested;		/* a condition read a CONFIG_ value */
};

struct preprocessor *preprocessor_new(struct session *s);
/* Expands a file's tokens; FILE_MACROS collects the file's own @defines. */
struct token *preprocess(struct preprocessor *pp, struct token *tokens, bool script_args,
			 struct macro **file_macros, int *errors);
/* Reads a macro library (*.stpm): only @define (possibly under %( %)) is allowed.  True
 * when it was clean and what it defines depends only on what the preprocessor's
 * strings and the session's guru mode say (no CONFIG_ test): then NAMES (if not NULL)
 * gets the names, which defer_macro_library() may be given next time. */
bool load_macro_library(struct preprocessor *pp, struct source_file *file, int *errors,
			struct strlist *names);
/* A macro library file that defined NAMES cleanly when last read (and is unchanged): it
 * is read only when a script uses one of them; now if one of them is defined already
 * (so that the duplicate is reported as when every file is read). */
void defer_macro_library(struct preprocessor *pp, const char *path,
			 const struct strlist *names, int *errors);

/* ------------------------------------------------------------------ */
/* The AST (pass 1)                                                    */
/* ------------------------------------------------------------------ */

enum stap_type {
	TYPE_UNKNOWN,
	TYPE_LONG,
	TYPE_STRING,
	TYPE_STATS,
};
const char *type_name(enum stap_type type);

enum node_kind {
	/* expressions */
	ND_NUMBER,		/* number */
	ND_STRING,		/* string (raw: as stap prints it) */
	ND_VAR,			/* string: a local, global or array name -> sym */
	ND_INDEX,		/* lhs[args]: array element, or a histogram's bucket */
	ND_CALL,		/* string(args) -> func */
	ND_PRINT,		/* print, printf, sprintf, ... (print names the kind) */
	ND_ASSIGN,		/* lhs op rhs, op is "=", "+=", ".=", ... */
	ND_ACCUMULATE,		/* lhs <<< rhs */
	ND_BINARY,		/* lhs op rhs: arithmetic, bitwise, shifts */
	ND_CONCAT,		/* lhs . rhs */
	ND_COMPARE,		/* lhs op rhs: < <= > >= == != */
	ND_REGEX,		/* lhs =~ rhs / lhs !~ rhs, rhs a string literal */
	ND_LOGICAL,		/* lhs op rhs: && || */
	ND_UNARY,		/* op lhs: - ! ~ + */
	ND_INCREMENT,		/* ++lhs, lhs++, --lhs, lhs-- (prefix says which) */
	ND_TERNARY,		/* cond ? then : els */
	ND_IN,			/* [args] in lhs */
	ND_WILDCARD,		/* * among index expressions */
	ND_STAT,		/* string(lhs [, args]): @count @sum @min @max @avg @variance */
	ND_HIST,		/* string(lhs, args): @hist_linear, @hist_log */
	ND_TARGET,		/* string ($var, $$vars...) with components, pretty, addressof */
	ND_CAST,		/* @cast(lhs, type_name [, module]) with components */
	ND_AT_VAR,		/* @var(string [, module]) with components */
	ND_AUTOCAST,		/* lhs with components: s->name, f()->x, (p)[0] */
	ND_DEFINED,		/* @defined(lhs) */
	ND_ENTRY,		/* @entry(lhs) */
	ND_PROBEWRITE,		/* @probewrite(lhs) */
	ND_EMBEDDED_EXPR,	/* %{ string %} */
	ND_PERF,		/* @perf(string) */
	/* statements */
	ND_BLOCK,		/* { body... } */
	ND_EXPR_STMT,		/* lhs */
	ND_IF,			/* if (cond) then else els */
	ND_FOR,			/* for (init; cond; incr) then; also while (cond) then */
	ND_FOREACH,		/* see struct foreach */
	ND_BREAK,
	ND_CONTINUE,
	ND_NEXT,
	ND_RETURN,		/* return lhs? */
	ND_DELETE,		/* delete lhs */
	ND_TRY,			/* try then catch (catch_var) els */
	ND_NULL_STMT,		/* ; */
};

/* The print family: functions the translator formats itself. */
enum print_kind {
	PRINT_NONE,
	PRINT_PRINT, PRINT_PRINTLN, PRINT_PRINTD, PRINT_PRINTDLN, PRINT_PRINTF,
	PRINT_SPRINT, PRINT_SPRINTLN, PRINT_SPRINTD, PRINT_SPRINTDLN, PRINT_SPRINTF,
};
enum print_kind print_kind_of(const char *name);

/* ->field and [index] after a $target, @cast or @var */
struct target_component {
	char *field;			/* NULL for an [index] */
	struct node *index;
	struct token *tok;
	struct target_component *next;
};

/*
 * What pass 2 made of a target variable, @var or @cast and its ->member and [index]
 * components, against the debuginfo: where the value starts (the C of a location), the
 * steps from there through memory, and what the result is.  Pass 3 writes the C that
 * follows it at run time through the runtime's fault-safe reads (translate/translate_expr.c).
 * The model: an address A starts at START (or START is the value itself, when nothing
 * follows); each step moves A; the result is read at A.
 */
enum target_step_kind {
	TSTEP_ADD,		/* A += offset */
	TSTEP_LOAD,		/* A = the pointer stored at A */
	TSTEP_INDEX,		/* A += index * scale */
};

struct target_step {
	enum target_step_kind kind;
	int64_t offset;			/* TSTEP_ADD */
	struct node *index;		/* TSTEP_INDEX */
	int64_t scale;
};

enum target_result {
	TRESULT_LONG,		/* a number of SIZE bytes at A (or the value START is) */
	TRESULT_STRING,		/* the chars of an array at A */
	TRESULT_ADDRESS,	/* &...: A itself */
};

/* What a family made of a target variable (family.h's resolve_target). */
enum target_resolution {
	TARGET_UNRESOLVED,
	TARGET_RESOLVED,
	TARGET_AT_ENTRY,	/* resolved, as its value at the function's entry (.return) */
};

struct ctype;
struct target_access {
	char *start;			/* C (u64): the address, or (start_is_value) the value */
	struct node *base;		/* or the script's value is the address (@cast) */
	bool start_is_value;		/* a register or computed value: no step may follow */
	struct target_step *steps;
	int nsteps;
	enum target_result result;
	int size;			/* TRESULT_LONG: 1, 2, 4 or 8 bytes */
	bool is_signed;
	int bit_offset, bit_size;	/* a bitfield's bits in those bytes (bit_size 0: none) */
	struct ctype *type;		/* of the result (pretty-printing, autocast) */
	bool kernel_address;		/* START uses a link-time kernel address (KASLR) */
	bool user;			/* the memory is the probed process's (uprobes) */
	int regno;			/* START is DWARF register REGNO's value, else -1 */
};

struct symbol;
struct function;

struct foreach {
	struct node *value;		/* v in "foreach (v = [k] in a)", or NULL */
	struct node *keys;		/* ND_VAR list */
	int nkeys;
	struct node *array;		/* ND_VAR, or an ND_HIST to walk its buckets */
	struct node *filter;		/* a[1, *]: index expressions, or NULL */
	int sort_key;			/* 1..nkeys: by that key; 0: by value; -1: unsorted */
	int sort_direction;		/* +1 ascending, -1 descending */
	char *sort_aggregate;		/* "@sum" ... for arrays of statistics, or NULL */
	struct node *limit;
};

struct node {
	enum node_kind kind;
	struct token *tok;	/* where it was written */
	enum stap_type type;	/* inferred by pass 2 */
	const char *op;		/* operator spelling */
	struct node *lhs, *rhs;
	struct node *cond, *then, *els;
	struct node *init, *incr;	/* ND_FOR */
	struct node *body;	/* ND_BLOCK statements, linked by next */
	struct node *args;	/* call arguments, index expressions..., linked by next */
	int nargs;
	struct node *next;
	int64_t number;		/* ND_NUMBER */
	char *string;		/* ND_STRING value; names of variables, functions, @ops */
	char *raw;		/* ND_STRING as stap keeps it (or NULL) */
	bool prefix;		/* ND_INCREMENT: ++x rather than x++ */
	bool from_value_statement;	/* ND_IF, ND_EXPR_STMT made of "a && b;" (optimize.c) */
	bool branches_pending;	/* ND_IF, ND_TERNARY on an autocast's @defined: resolved
				   once it is decided (resolve.c) */
	enum print_kind print;	/* ND_PRINT */
	/* ND_TARGET, ND_CAST, ND_AT_VAR, ND_AUTOCAST */
	struct target_component *components;
	int pretty;		/* 1 for a trailing $, 2 for $$ */
	bool addressof;		/* &$var */
	char *type_name, *module;	/* @cast("type", "module"), @var("name", "module") */
	struct foreach *foreach;	/* ND_FOREACH */
	struct node *catch_var;		/* ND_TRY: catch (var), or NULL */
	/* pass 2 */
	struct symbol *sym;	/* ND_VAR, resolved by pass 2 */
	struct function *func;	/* ND_CALL, resolved by pass 2 */
	struct target_access *access;	/* ND_TARGET, ND_AT_VAR, ND_CAST, ND_AUTOCAST */
	int height;		/* of the expression tree under it (bounded by the parser) */
};

enum symbol_kind { SYM_LOCAL, SYM_PARAM, SYM_GLOBAL };

#define MAX_ARRAY_KEYS 9	/* index dimensions of an array, as in SystemTap */

struct symbol {
	char *name;
	enum symbol_kind kind;
	enum stap_type type;	/* a scalar's type, or an array's value type */
	struct token *tok;	/* first mention */
	struct token *type_tok;	/* where its type was first inferred (NULL: declared) */
	struct node *init;	/* global initialiser */
	int64_t array_size;	/* global a[N]; 0: MAXMAPENTRIES */
	bool wrap;		/* global a%: wrap-around array */
	bool private_;		/* private: visible in its file only */
	bool version_dependent;	/* its declaration tested systemtap_v (--check-version) */
	struct stapfile *file;	/* where a global is declared */
	int position;		/* a parameter's, from 0 */
	/* pass 2 */
	int arity;		/* number of keys: 0 for a scalar, -1 while unknown */
	enum stap_type key_types[MAX_ARRAY_KEYS];
	struct token *key_type_toks[MAX_ARRAY_KEYS];
	struct token *arity_tok;	/* where the arity was first seen */
	bool read, written;	/* for warnings and the optimizer */
	bool mentioned;		/* named where @defined decided: its elision is quiet (stap) */
	bool used;		/* a global referenced by the program */
	bool still_used;	/* optimizer bookkeeping */
	struct ctype *ctype;	/* the C type of the values assigned to it (autocast) */
	bool ctype_mixed;	/* values of different C types were */
	struct symbol *next;
	struct symbol *next_used;	/* globals of the program, in order */
};

/* One component of a probe point: function("vfs_read"), return, ms(100), sys*, ** */
struct component {
	char *name;
	struct node *arg;	/* ND_NUMBER / ND_STRING, or NULL */
	struct token *tok;
	struct component *next;
};

struct probe_point {
	struct component *components;
	bool optional;		/* ? */
	bool sufficient;	/* ! */
	bool within_optional;	/* in the expansion of an optional point: its failure is
				 * quiet too, but -p2 shows only the point's own mark */
	struct node *condition;	/* if (expr) */
	struct token *tok;
	struct probe_point *next;
};

enum alias_kind { NOT_ALIAS, ALIAS_PROLOGUE, ALIAS_EPILOGUE };

/* A probe, or a probe alias: "probe NAME = POINTS { prologue }[, { epilogue }]" */
struct probe {
	struct probe_point *points;	/* where it fires; an alias's expansion */
	struct node *body;		/* ND_BLOCK */
	enum alias_kind alias;
	struct probe_point *alias_name;	/* the point an alias defines */
	struct node *epilogue;		/* "= ... { } , { epilogue }" */
	bool private_;
	bool version_dependent;		/* its text tested systemtap_v (--check-version) */
	struct symbol *locals;		/* filled by pass 2 */
	struct token *tok;
	struct stapfile *file;
	int index;			/* handler number, for pass 3 */
	struct probe *next;
};

struct function {
	char *name;
	enum stap_type return_type;	/* declared or inferred */
	struct token *type_tok;		/* where the return type was first inferred */
	struct symbol *params;
	int nparams;
	int64_t priority;		/* function f() :N { } */
	bool has_priority;
	bool private_;
	bool version_dependent;	/* its text tested systemtap_v (--check-version) */
	struct symbol *locals;	/* filled by pass 2 */
	struct node *body;	/* ND_BLOCK, or NULL for embedded C */
	struct token *embedded;	/* TOK_EMBEDDED body */
	struct token *tok;
	struct stapfile *file;
	bool used;		/* reachable from a probe (pass 2) */
	bool grouped;		/* its overloads are ordered (pass 2) */
	bool impure;		/* its body has side effects (optimizer) */
	bool still_used, walked;	/* optimizer bookkeeping */
	struct ctype *ctype;	/* the C type of what it returns (autocast) */
	bool ctype_mixed;
	struct function *next_overload;	/* the next of this name and arity, by priority */
	struct function *next;		/* in its file */
	struct function *next_used;	/* in the program (pass 2) */
};

struct embed {
	struct token *code;	/* top-level %{ %} */
	struct embed *next;
};

struct stapfile {
	struct source_file *source;
	struct embed *embeds;
	struct symbol *globals;
	struct probe *probes;		/* probes and aliases, in order */
	struct function *functions;
	struct macro *macros;		/* its own @defines */
	bool empty_after_preprocessing;
	bool probes_derived;		/* a tapset file's own probes are in the program */
	const struct program *in_program;	/* the program whose files it is among */
	struct stapfile *next;
};

/* parse.c: pass 1 of one file (tokenize, preprocess, parse) */
struct stapfile *parse_file(struct preprocessor *pp, struct source_file *file, bool privileged,
			    bool script_args, int *errors);

/* ast.c (also type_name() and print_kind_of() above) */
struct node *copy_node(struct node *n);
void walk_nodes(struct node *n, bool (*visit)(struct node *n, void *arg), void *arg);
bool may_pass_call_on(struct function *f);	/* optimize.c: it has `next` or STAP_NEXT */
/* The values a printf format takes and (up to MAX of them) their types; -1: malformed. */
int format_conversions(const char *format, enum stap_type *types, int max);
/* the globals embedded C's pragma:read:NAME / pragma:write:NAME comments name */
void embedded_pragma_globals(const char *code,
			     void (*visit)(const char *name, size_t len, bool write, void *arg),
			     void *arg);

/* dump.c: -p1 and -p2 output */
void dump_parse_tree(FILE *out, struct stapfile *file);
struct program;
struct derived_probe;
void dump_program(FILE *out, struct program *prog, bool bodies);
char *expression_text(struct node *n);	/* as -p1 prints it: $file->f_pos */
/* pp() of a derived probe, as -p2 lists it: kernel.function("f@a.c:1")? if (__global_on) */
char *derived_probe_pp(struct derived_probe *dp);
struct symbol;
char *global_stap_name(struct symbol *g);	/* __global_n, __private_FILE_n */

/*
 * regex.c: the regular expression of str =~ "re" (and !~), compiled when the script is
 * translated into the automata runtime/regex.c runs (pass 2 reports a bad one, pass 3
 * writes its tables).  PATTERN is the literal as stap keeps it (the node's raw text).
 */
struct regex;
/* NULL after an error: *ERROR is stap's message, "regex compilation error ...", to free */
struct regex *regex_compile(const char *pattern, char **error);
int regex_groups(const struct regex *re);	/* with group 0: what ngroups() returns */
/* ints of the probe context's scratch space the runtime needs to find its groups */
size_t regex_scratch_words(const struct regex *re);
/* its tables and "static const struct stp_regex NAME" */
void regex_emit(struct strbuf *out, const struct regex *re, const char *name);
void regex_free(struct regex *re);

/* ------------------------------------------------------------------ */
/* The session: the command line, as every pass sees it                */
/* ------------------------------------------------------------------ */

struct session {
	/* the script */
	const char *script_file;	/* NULL with -e */
	const char *script_text;	/* -e */
	struct strlist script_args;	/* $1 .. $N */

	/* passes */
	int last_pass;			/* -p, default 5 */
	int verbose[5];			/* -v / --vp, per pass */
	bool guru;			/* -g */
	bool unoptimized;		/* -u */
	bool skip_badvars;		/* --skip-badvars: a $var that does not resolve is 0 */
	bool check_version;		/* --check-version: warn of what tests systemtap_v */
	bool suppress_warnings;		/* -w */
	bool warnings_as_errors;	/* -W */
	bool keep_tmpdir;		/* -k */

	/* paths */
	const char *runtime_dir;	/* -R or SYSTEMTAP_RUNTIME */
	const char *tapset_dir;		/* SYSTEMTAP_TAPSET */
	struct strlist include_dirs;	/* -I */
	struct strlist skipped_tapsets;	/* -I files that do not parse (pass 1 said so) */
	struct strlist generated_tapsets;	/* folders of tapsets made for the target
						 * kernel (syscall_tapset.c), searched last */
	const char *kernel_release;	/* -r REL */
	const char *kernel_build_dir;	/* /lib/modules/REL/build, or -r DIR */
	const char *compat_version;	/* --compatible=VERSION: systemtap_v */
	const char *privilege;		/* --privilege: "stapusr", "stapsys"; NULL: stapdev */
	int prologue_searching;		/* --prologue-searching: enum dw_prologue (auto) */
	const char *sysroot;		/* --sysroot: where the target's programs are */
	struct strlist sysenv;		/* --sysenv=VAR=VALUE: the target's environment */
	bool use_btf;			/* --btf: the kernel's BTF rather than its DWARF */
	bool sign_module;		/* --sign-module */

	/* module build */
	const char *module_name;	/* -m */
	struct strlist defines;		/* -D NAME=VALUE */
	struct strlist make_args;	/* -B */
	const char *tmpdir_parent;	/* --tmpdir, else $TMPDIR, else /tmp */
	char *tmpdir;			/* pass 3-4 work folder, made inside it */
	char *module_path;		/* the .ko, after pass 4 */

	/* run */
	const char *output_file;	/* -o */
	const char *target_cmd;		/* -c */
	long target_pid;		/* -x */
	long target_ns_pid;		/* --target-namespaces=PID, or 0 */
	long buffer_mb;			/* -s: staprun -b */
	bool bulk_mode;			/* -b */
	const char *switch_files;	/* -S SIZE[,N] */
	long timeout_secs;		/* -T: a timer probe that calls exit() */
	bool flight_recorder;		/* -F: staprun -L, or -D with -o */
	bool vm;			/* --vm: pass 5 in the disposable guest (stap-vm) */
	struct strlist remote_urls;	/* --remote URL: pass 5 on these hosts (remote.c) */
	bool remote_prefix;		/* --remote-prefix: "N: " before each line */
	const char *module_out;		/* a --remote build's module goes here (remote.c) */
	char **argv;			/* the command line as given (remote.c runs it again) */
	int argc;
	struct strlist global_settings;	/* -G var=value */
	struct strlist extra_scripts;	/* -E SCRIPT: run beside the main one */
	struct strlist modinfo;		/* --modinfo NAME=VALUE */
	const char *list_pattern;	/* -l / -L */
	enum { DUMP_NONE, DUMP_PROBE_TYPES, DUMP_PROBE_ALIASES, DUMP_FUNCTIONS } dump;
	bool list_locals;		/* -L */
	const char *staprun_path;

	/* symbol data (-d, --ldd, --all-modules): kernel modules are looked up in the running
	 * kernel's kallsyms whatever these say; user-space programs' go into the module */
	struct strlist symbol_modules;	/* -d MODULE: kernel modules named */
	struct strlist symbol_programs;	/* -d PATH: user-space programs named */
	bool ldd;			/* --ldd */
	bool all_modules;		/* --all-modules */
	struct user_file *user_files;	/* the user-space files with symbols (user_symbols.c) */
	int nuser_files;
};

/* A user-space program or library whose symbols and unwind table the module may carry:
 * one the script probes (the families add it), one -d names, or (--ldd) their libraries. */
struct user_file {
	char *target;			/* its path where the module runs */
	char *file;			/* the file read here (under --sysroot) */
	bool named;			/* by -d: a warning if it cannot be read */
};

/* user_symbols.c: the user-space files' symbols and unwind tables (runtime/usymbols.c) */
void user_file_add(struct session *s, const char *target, const char *file);

/* options.c: the command line into S (exits on a usage error, -h, -V, --clean-cache) */
void parse_options(struct session *s, int argc, char **argv);
bool verbose_at(struct session *s, int pass, int level);
double now_ms(void);
const char *kernel_arch(void);

/* ------------------------------------------------------------------ */
/* Pass 2: the elaborated program                                      */
/* ------------------------------------------------------------------ */

struct probe_family;

/*
 * What one handler runs: a probe's body, or (through probe aliases) the alias prologues
 * and epilogues around a copy of it.  All derived probes of one expansion share it.
 */
struct probe_body {
	struct node *body;		/* ND_BLOCK */
	struct symbol *locals;
	struct probe *probe;		/* the user's probe it came from */
	struct stapfile *file;		/* names resolve as in this file */
	struct token *tok;		/* the probe, or the user's point an alias expanded */
	int index;			/* handler number, for pass 3 */
	bool elided;			/* the optimizer removed it (empty) */
	bool displays_globals;		/* made to print globals written but never read */
	bool procfs_read;		/* of a procfs read probe: it sets $value */
	bool procfs_write;		/* of a procfs write probe: $value is what came */
	/* the probe whose context its target variables resolve in: a family with target
	 * variables gives each of its probes a copy of the body that uses them (derive.c) */
	struct derived_probe *context;
	/* @entry(...) of a return probe: what its function's entry evaluates and keeps for
	 * the return (their nodes' number is their place here) */
	struct node **entries;
	int nentries;
	struct probe_body *next;
};

/* A probe point bound to a family: what pass 3 registers. */
struct derived_probe {
	struct probe_body *handler;
	struct probe_point *point;	/* the family's point, after alias expansion */
	const struct probe_family *family;
	char *name;			/* canonical point, e.g. "timer.ms(100)" */
	char *derivation;		/* "my.a = begin <- my.a", for -p2 */
	char *script_point;		/* pn(): the alias named (syscall.read), or NULL: name */
	char *from_point;		/* -t's "from:"s: what the family made (family.h's from_made),
					 * the aliases named inside out, the script's first point */
	struct token *location;		/* -t's location (derive.c's named_at), or NULL: point's */
	bool from_wildcard;		/* a wildcard in a name of the point made it */
	char *note;			/* -p2 comment after the name, e.g. " name = vfs_read" */
	int64_t sequence;		/* begin/end/error ordering */
	void *data;			/* the family's own description */
	struct node *condition;		/* if (expr): runs while true */
	bool saves_entry;		/* a return probe that can evaluate @entry() at entry */
	int index;			/* position in the program */
	struct derived_probe *next;
};

struct program {
	struct stapfile *files;		/* user script first, then tapsets */
	struct probe_body *bodies;	/* every handler */
	int nbodies;
	struct derived_probe *probes;
	int nprobes;
	bool reads_stdin;		/* a probe writes procfs("__stdin"): input.char/line */
	struct function *functions;	/* the used ones, in order */
	int nfunctions;
	struct symbol *globals;		/* the used ones, in order (next_used) */
	int nglobals;
	int nembeds;
	uint64_t jiffies_link;		/* target variables use kernel addresses: where the
					 * kernel's symbol table has jiffies (KASLR) */
	struct strlist module_symbols;	/* "module:symbol" that target variables of
					 * modules are placed from (runtime: found at run time) */
	bool user_file_addresses;	/* @var of a program read outside its probes: its
					 * load address found at run time (usymbols.c) */
};

/* privilege.c: what --privilege=stapusr|stapsys allows (pass 2) */
struct elaborator;
const char *session_privilege(const struct session *s);	/* "stapdev" by default */
bool privilege_allows_point(struct elaborator *el, struct probe_point *pp);
bool privilege_allows_kernel_memory(struct elaborator *el, struct node *n, bool quiet);
void check_function_privilege(struct elaborator *el);
/* A function stapusr may call: the library's script functions, and its embedded-C ones
 * marked unprivileged (--dump-functions says so) */
bool function_unprivileged(const struct function *f);

/* elaborate.c: pass 2 */
struct program *elaborate(struct session *s, struct preprocessor *pp, struct stapfile *user,
			  int *errors);
/* library_dump.c: --dump-probe-types, --dump-probe-aliases, --dump-functions: the lines
 * stap prints for them, sorted */
struct strlist dump_probe_types(void);
struct strlist dump_probe_aliases(struct session *s, struct preprocessor *pp);
struct strlist dump_functions(struct session *s, struct preprocessor *pp);
/* -l / -L: the probe points PATTERN names, sorted, each once */
struct strlist list_probe_points(struct session *s, struct preprocessor *pp,
				 struct stapfile *user, struct probe *pattern, bool locals);

/* tapset.c: where library scripts live; their macros, which every script sees (pass 1) */
struct strlist tapset_search_path(struct session *s);
int tapset_load_macros(struct session *s, struct preprocessor *pp, int *errors);
bool tapset_check_include_dirs(struct session *s, struct preprocessor *pp);

/* ------------------------------------------------------------------ */
/* Passes 3-5                                                          */
/* ------------------------------------------------------------------ */

/* translate.c: pass 3, the module's C (NULL after errors) */
char *translate(struct session *s, struct program *prog);

/* user_symbols.c, for pass 3: whether a function the program uses says PRAGMA in its
 * embedded C ("pragma:usymbols": the user symbols; "pragma:ulines": their line tables
 * too); the module cache KEY extended with what the tables are read from (KEY is freed) */
bool program_uses_pragma(struct program *prog, const char *pragma);
char *user_symbols_cache_key(struct session *s, struct program *prog, char *key);
/* translate/user_symbols_c.c: -d PATH and --ldd's files found (warnings); with USED,
 * their tables (with LINES, their line tables too), and the script's stp_script_start/stop around stp_script_start/stop_probes,
 * into E.  How many warnings -W made errors. */
struct emitter;
int user_symbols_emit(struct emitter *e, struct session *s, bool used, bool lines);
/* debuginfo/kernel_lines.c: KEY (freed) extended with the kernel debuginfo's identity
 * when the program carries its line table (pragma:klines) */
char *kernel_lines_cache_key(struct session *s, struct program *prog, char *key);
/* translate/kernel_lines_c.c: the kernel's line table (for pragma:klines) into E. */
void kernel_lines_emit(struct emitter *e, struct session *s);

/* kbuild.c: pass 4, and the kernel API tests (runtime/autoconf/NAME.c, run once per kernel
 * build tree, giving stp_autoconf.h's STP_HAVE_NAME macros, which runtime/compat.h reads) */
int build_module(struct session *s);
char *default_module_name(struct session *s, const char *script_text);
bool valid_module_name(const char *name);
/* the folder holding stp_autoconf.h for the session's kernel (computing it if needed) */
char *autoconf_dir(struct session *s);

/* sign.c: the module signed with the user's Machine Owner Key (stap(1) SECUREBOOT) when
 * --sign-module, $SYSTEMTAP_SIGN or the running kernel asks for it */
bool module_signing_wanted(struct session *s);
int sign_module(struct session *s);

/* run.c: pass 5 */
int run_module(struct session *s);
void staprun_arguments(struct session *s, struct strlist *argv, const char *module);

/* remote.c: pass 5 on the --remote hosts over ssh, after a build for each one's kernel */
int run_remote(struct session *s);
#define REMOTE_BUILD_ENV "STAPLER_REMOTE_BUILD"	/* RELEASE:MODULE_OUT, for the builds */

#endif
