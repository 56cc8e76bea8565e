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
 * main.c owns the command line and the struct session every pass reads.
 */
#ifndef STAP_H
#define STAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#ifndef STAPLER_VERSION
#define STAPLER_VERSION "0.1"
#endif

#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#define NORETURN __attribute__((noreturn))

/* ------------------------------------------------------------------ */
/* util.c: memory, strings, growing buffers                            */
/* ------------------------------------------------------------------ */

void *xmalloc(size_t size);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) PRINTF_LIKE(1, 2);
bool starts_with(const char *s, const char *prefix);
char *read_file(const char *path, size_t *len);
int write_file(const char *path, const char *data, size_t len);
bool is_dir(const char *path);
bool is_file(const char *path);
char *dir_of_executable(void);
uint64_t hash64(const void *data, size_t len, uint64_t seed);
int edit_distance(const char *a, const char *b);
/* " (similar: a, b)" listing the closest of NAMES to NAME, or "" */
char *similar_names(const char *name, const char *const *names, int count);

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
void show_command(const struct strlist *argv);

/* ------------------------------------------------------------------ */
/* Sources, tokens and diagnostics                                     */
/* ------------------------------------------------------------------ */

struct source_file {
	char *name;		/* "<input>" for -e, else the path */
	char *text;		/* whole contents, NUL-terminated */
	bool is_tapset;		/* from the tapset library: trusted, guru-like */
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
	char *raw;		/* strings: the spelling between the quotes */
	int64_t number;		/* TOK_NUMBER */
	struct source_file *file;
	int line, column;	/* 1-based */
	struct token *next;
};

/*
 * Diagnostics in the form SystemTap users know:
 *   parse error: expected ';'
 *           saw: identifier 'foo' at <input>:1:20
 *        source: probe begin { x foo }
 *                                ^
 */
extern int diag_quiet;		/* > 0: diagnostics are counted, not printed */
void diag_at(const char *kind, struct token *tok, const char *fmt, ...) PRINTF_LIKE(3, 4);
void diag_vat(const char *kind, struct token *tok, const char *fmt, va_list ap);
const char *token_kind_name(enum token_kind kind);

/* tokenize.c */
struct token *tokenize(struct source_file *file, int *errors);
bool token_is(struct token *tok, const char *text);	/* operator or keyword */

/* ------------------------------------------------------------------ */
/* The AST (pass 1)                                                    */
/* ------------------------------------------------------------------ */

enum stap_type {
	TYPE_UNKNOWN,
	TYPE_LONG,
	TYPE_STRING,
};
const char *type_name(enum stap_type type);

enum node_kind {
	/* expressions */
	ND_NUMBER,		/* number */
	ND_STRING,		/* string */
	ND_VAR,			/* name -> sym */
	ND_CALL,		/* name(args) -> func, or a print builtin */
	ND_ASSIGN,		/* lhs op rhs, op is "=", "+=", ".=", ... */
	ND_BINARY,		/* lhs op rhs: arithmetic, bitwise, shifts */
	ND_CONCAT,		/* lhs . rhs */
	ND_COMPARE,		/* lhs op rhs: < <= > >= == != */
	ND_LOGICAL,		/* lhs op rhs: && || */
	ND_UNARY,		/* op lhs: - ! ~ + */
	ND_TERNARY,		/* cond ? then : els */
	/* statements */
	ND_BLOCK,		/* { body... } */
	ND_EXPR_STMT,		/* lhs */
	ND_IF,			/* if (cond) then else els */
	ND_NEXT,
	ND_RETURN,		/* return lhs? */
	ND_NULL_STMT,		/* ; */
};

/* The print family: statements of the language, not tapset functions. */
enum print_builtin {
	PRINT_NONE,
	PRINT_PRINT,		/* print(a, ...) */
	PRINT_PRINTLN,		/* println(a, ...) */
};

struct symbol;
struct function;

struct node {
	enum node_kind kind;
	struct token *tok;	/* where it was written */
	enum stap_type type;	/* inferred by pass 2 */
	const char *op;		/* operator spelling */
	struct node *lhs, *rhs;
	struct node *cond, *then, *els;
	struct node *body;	/* ND_BLOCK statements, linked by next */
	struct node *args;	/* ND_CALL arguments, linked by next */
	int nargs;
	struct node *next;
	int64_t number;		/* ND_NUMBER */
	char *string;		/* ND_STRING value, ND_VAR/ND_CALL name */
	char *raw;		/* ND_STRING as written, escapes and all (or NULL) */
	struct symbol *sym;	/* ND_VAR, resolved by pass 2 */
	struct function *func;	/* ND_CALL, resolved by pass 2 */
	enum print_builtin print;	/* ND_CALL of a print builtin */
	int height;		/* of the expression tree under it (bounded by the parser) */
};

enum symbol_kind { SYM_LOCAL, SYM_PARAM, SYM_GLOBAL };

struct symbol {
	char *name;
	enum symbol_kind kind;
	enum stap_type type;
	struct token *tok;	/* first mention */
	struct token *type_tok;	/* where its type was first inferred */
	struct node *init;	/* global initialiser */
	struct symbol *next;
};

/* One component of a probe point: function("vfs_read"), return, ms(100) */
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
	struct node *condition;	/* if (expr) */
	struct token *tok;
	struct probe_point *next;
};

struct probe {
	struct probe_point *points;
	struct node *body;	/* ND_BLOCK */
	struct symbol *locals;	/* filled by pass 2 */
	struct token *tok;
	struct stapfile *file;
	int index;		/* handler number, for pass 3 */
	struct probe *next;
};

struct function {
	char *name;
	enum stap_type return_type;	/* declared or inferred */
	struct token *type_tok;		/* where the return type was first inferred */
	struct symbol *params;
	int nparams;
	struct symbol *locals;	/* filled by pass 2 */
	struct node *body;	/* ND_BLOCK, or NULL for embedded C */
	struct token *embedded;	/* TOK_EMBEDDED body */
	struct token *tok;
	struct stapfile *file;
	bool used;		/* reachable from a probe (pass 2) */
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
	struct probe *probes;
	struct function *functions;
	struct stapfile *next;
};

/* parse.c */
struct stapfile *parse_file(struct source_file *file, bool privileged, struct strlist *args,
			    int *errors);

/* dump.c: -p1 and -p2 output */
void dump_parse_tree(FILE *out, struct stapfile *file);
struct program;
void dump_program(FILE *out, struct program *prog, bool bodies);
void dump_expr(struct strbuf *sb, struct node *n);
void dump_probe_point(struct strbuf *sb, struct probe_point *pp);

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
	bool suppress_warnings;		/* -w */
	bool warnings_as_errors;	/* -W */
	bool keep_tmpdir;		/* -k */

	/* paths */
	const char *runtime_dir;	/* -R or SYSTEMTAP_RUNTIME */
	const char *tapset_dir;		/* SYSTEMTAP_TAPSET */
	struct strlist include_dirs;	/* -I */
	const char *kernel_release;	/* -r REL */
	const char *kernel_build_dir;	/* /lib/modules/REL/build, or -r DIR */

	/* module build */
	const char *module_name;	/* -m */
	struct strlist defines;		/* -D NAME=VALUE */
	struct strlist make_args;	/* -B */
	char *tmpdir;			/* pass 3-4 work folder */
	char *module_path;		/* the .ko, after pass 4 */

	/* run */
	const char *output_file;	/* -o */
	const char *target_cmd;		/* -c */
	long target_pid;		/* -x */
	struct strlist global_settings;	/* -G var=value */
	const char *staprun_path;
};

bool verbose_at(struct session *s, int pass, int level);

/* ------------------------------------------------------------------ */
/* Pass 2: the elaborated program                                      */
/* ------------------------------------------------------------------ */

struct probe_family;

/* A probe point bound to a family: what pass 3 registers. */
struct derived_probe {
	struct probe *probe;		/* carries the body and locals */
	struct probe_point *point;	/* as the user wrote it */
	const struct probe_family *family;
	char *name;			/* canonical point, e.g. "begin(-5)" */
	int64_t sequence;		/* begin/end/error ordering */
	int index;			/* position in the program */
	struct derived_probe *next;
};

struct program {
	struct stapfile *files;		/* user script first, then tapsets */
	struct derived_probe *probes;
	int nprobes;
	struct function *functions;	/* the used ones, in order */
	int nfunctions;
	struct symbol *globals;
	int nglobals;
	int nembeds;
};

/* A probe family: one file in src/ (its builder), glue in runtime/. */
struct emitter;
struct probe_family {
	const char *name;		/* also names its C glue: stp_register_NAME() */
	const char *const *point_names;	/* first components it answers to, NULL-ended */
	/* Validate the point and append derived probes; false on error. */
	bool (*build)(struct session *s, struct probe *p, struct probe_point *pp,
		      struct derived_probe **out);
	/* Pass 3: the registration table for this family's probes. */
	void (*emit)(struct emitter *e, struct program *prog);
};

/* probe_family.c */
const struct probe_family *find_probe_family(struct probe_point *pp);
char *similar_probe_points(const char *name);
extern const struct probe_family *const probe_families[];
const char *probe_point_first_name(struct probe_point *pp);

/* family_begin_end.c */
extern const struct probe_family begin_end_family;

/* tapset.c: where library scripts live and which file defines what */
struct tapset_index;
struct tapset_index *tapset_index_open(struct session *s);
/* Parse (once) and return the tapset file that defines function NAME, or NULL. */
struct stapfile *tapset_find_function(struct tapset_index *ix, const char *name, int *errors);
int tapset_function_names(struct tapset_index *ix, const char ***names);

/* elaborate.c */
struct program *elaborate(struct session *s, struct stapfile *user, int *errors);

/* ------------------------------------------------------------------ */
/* Passes 3-5                                                          */
/* ------------------------------------------------------------------ */

/* translate.c */
struct emitter {
	struct strbuf out;
	struct session *session;
};
void emit(struct emitter *e, const char *fmt, ...) PRINTF_LIKE(2, 3);
char *translate(struct session *s, struct program *prog);

/* kbuild.c */
int build_module(struct session *s);
char *default_module_name(struct session *s, const char *script_text);
bool valid_module_name(const char *name);

/* run.c */
int run_module(struct session *s);

#endif
