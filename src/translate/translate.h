/*
 * translate.h - pass 3's internals.
 *
 *   translate_analysis.c  before any C is written: the C names of globals and functions,
 *                         the locks each handler takes, each statistic's histogram and
 *                         @variance precision, and what cannot be translated yet
 *   translate_expr.c      expressions, as C expressions (GNU statement expressions);
 *                         target variables, @var and @cast through the runtime's reads
 *   translate_stmt.c      statements, as lines of C in a body
 *   translate.c           the module's layout: globals, frames, bodies, tables, start/stop
 *   emit.c                the output and C literals (emit.h), shared with the families
 *   user_symbols_c.c      the user-space files' symbols and unwind tables, as C (stap.h's
 *                         user_symbols_emit(); debuginfo/user_symbols.c reads them)
 */
#ifndef TRANSLATE_H
#define TRANSLATE_H

#include "stap.h"

/* What pass 3 knows about each global of the program. */
struct global_c {
	struct symbol *sym;
	char *name;			/* "global_x" */
	bool is_array;
	bool is_stats;
	bool name_shared;		/* an earlier global (private, another file) has its name */
	struct node *hist;		/* the first @hist_* applied to it: its buckets */
	int64_t bit_shift;		/* @variance(x, N) */
};

/* A distinct regular expression of the program's =~ and !~: the tables stp_regex_N. */
struct regex_c {
	const char *pattern;		/* the literal as stap keeps it */
	struct regex *re;
};

struct translator {
	struct session *session;
	struct program *prog;
	struct global_c *globals;
	int nglobals;
	struct function **functions;	/* the used ones, with their C names */
	char **function_names;
	int nfunctions;
	struct regex_c *regexes;	/* in order of first use (translate_expr.c) */
	int nregexes;
	struct body **handler_bodies;	/* by probe_body index: its handler's body, or NULL */
	int errors;
};

enum global_access { ACCESS_NONE, ACCESS_READ, ACCESS_WRITE };

/* A probe handler or function body being translated. */
struct body {
	struct translator *t;
	char *frame;			/* "probe_0" / "function_exit" */
	struct function *function;	/* NULL for a probe */
	struct probe_body *handler;
	struct derived_probe *guarded;	/* the point whose "if (cond)" this checks */
	struct strbuf code;		/* the translated statements */
	int ntemps;			/* string temporaries */
	int unique;			/* names of C temporaries */
	int pending;			/* MAXACTION actions the code so far owes (charge()) */
	int conditional;		/* > 0: in an operand that may not run (&&, ?:, a loop's test) */
	bool entry_open;		/* a function's first lump is still to come: charged at entry */
	int entry_lump;			/* that lump, once known */
	bool counted;			/* a handler whose actions were counted at its start */
	const char *error_label;	/* where a soft error goes: "out" or a catch */
	enum global_access *locks;	/* per global: the locks a probe takes */
	/* a probe handler's lock regions (translate_handler()): per region, per global */
	enum global_access **regions;
	int nregions;
	/* a probe's calls of stable functions, cached per hit: one value of a function per
	 * scope (function_call() in translate_expr.c) */
	struct function **stables;	/* per value: whose */
	int nstables;
	int *stable_scope;		/* per value: its scope, or -1 once that is over */
	int scope, scopes;		/* the scope being written; how many were opened */
	int loops;			/* the loops being written around it */
	/*
	 * A handler's script strings and statement locations, as markers in CODE until
	 * share_handlers() (translate.c) sees whether its C is another handler's but for them:
	 * then one function runs both, reading them from the probe's table (_K[i]).
	 */
	bool hoist;			/* literals go to CONSTS, markers to CODE */
	struct strlist consts;		/* the C literals, by marker number */
	bool sharing;			/* its function reads _K: the literals are the probe's */
	struct body *shared;		/* the body whose function runs this one's, or NULL */
};

/* translate_analysis.c */
int analyze_program(struct translator *t);	/* the number of errors */
enum global_access *handler_access(struct translator *t, struct node *body);
struct global_c *global_of(struct translator *t, struct symbol *sym);
struct global_c *global_named(struct translator *t, struct node *n);
struct global_c *pragma_global_c(struct translator *t, const char *name, size_t len);
const char *function_c_name(struct translator *t, struct function *f);
int script_nesting(struct translator *t);	/* MAXNESTING as stap works it out */
bool is_procfs_value(struct body *b, struct node *n);
bool cannot_fail(struct body *b, struct node *n);

/* translate_expr.c: the C of an expression (the caller frees it) */
char *translate_expr(struct body *b, struct node *n);
bool has_caller_function(struct function *f);	/* a call of F goes through ... */
char *function_caller(struct translator *t, struct function *f);	/* ... this C function */
char *keys_setup(struct body *b, struct node *args, int id, unsigned int *mask);
bool has_wildcard_key(struct node *args);
char *stat_source(struct body *b, struct node *n, char **setup, struct global_c **gp);
const char *stat_aggregate(const char *name);

int new_temp(struct body *b);	/* a string temporary of the frame: l->_tmpN */

/* translate_stmt.c: lines of C at DEPTH tabs into B's code */
void translate_statement(struct body *b, struct node *n, int depth);
void translate_part(struct body *b, struct node *n, int depth);
void translate_function_body(struct body *b, struct function *f);
void charge_call(struct body *b, struct node *call, struct function *f, struct strbuf *sb);
void translate_handler(struct body *b, struct node *body, int depth);
void body_line(struct body *b, int depth, const char *fmt, ...) PRINTF_LIKE(3, 4);
/* A C literal LIT of B's (taken): itself, or a handler's marker for it (struct body) */
char *body_literal(struct body *b, char *lit);
char *body_location(struct body *b, struct token *tok);	/* c_location() through it */

#endif
