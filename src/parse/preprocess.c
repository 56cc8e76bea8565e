/*
 * preprocess.c - pass 1, part 2: the token stream the parser sees.
 *
 *   @define NAME %( BODY %)            macros, local to their file, or from a library of
 *   @define NAME(a, b) %( ... @a ... %)  *.stpm files that every file sees; @NAME(x, y)
 *   %( CONDITION %? TOKENS %: TOKENS %)  conditional compilation, nested freely
 *   $1 .. $N, @1 .. @N, $#, @#          script arguments as tokens, strings, numbers
 *
 * Tokens that come out of a macro keep where they were written and point at the
 * invocation they came from (expanded_from), so errors can show both.
 */
#include "stap.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#define MAX_EXPANSION_DEPTH 100
#define MAX_CONDITIONAL_NESTING 500	/* %( inside %( ...: bounded like the parser's nesting */
#define MAX_EXPANDED_TOKENS 100000	/* 5 times what Debian's largest tapset needs */

struct expander {
	struct preprocessor *pp;
	struct macro **file_macros;
	bool script_args;
	int errors;
	int nesting;		/* of %( conditionals being expanded */
	long expanded;		/* tokens that macros produced */
	bool overflowed;	/* MAX_EXPANDED_TOKENS reached: no more expansion */
	bool mark_next;		/* the next token out is version_dependent */
	bool argument_failed;	/* a $N out of range in this declaration: stap's parser
				 * skips the rest of it, so the next ones are not errors */
};

/*
 * OUT to the end of the expansion *TAIL.  A mark waiting for it (an empty systemtap_v
 * branch before it) is not given to the keyword that starts a declaration: such a
 * branch stood between declarations and belongs to neither.
 */
static void emit(struct expander *ex, struct token ***tail, struct token *out)
{
	if (ex->mark_next) {
		out->version_dependent = !(token_is(out, "probe") || token_is(out, "function") ||
					   token_is(out, "global") || token_is(out, "private"));
		ex->mark_next = false;
	}
	**tail = out;
	*tail = &out->next;
}

/* A parse error at TOK, counted in the expansion. */
#define pp_error(ex, tok, ...) (diag_preprocessor((tok), __VA_ARGS__), (ex)->errors++)

static bool is_eof(struct token *tok)
{
	return tok->kind == TOK_EOF;
}

static struct token *eof_after(struct token *tok)
{
	struct token *eof = xcalloc(1, sizeof(*eof));

	eof->kind = TOK_EOF;
	eof->text = xstrdup("");
	eof->file = tok->file;
	eof->line = tok->line;
	eof->column = tok->column;
	return eof;
}

struct preprocessor *preprocessor_new(struct session *s)
{
	struct preprocessor *pp = xcalloc(1, sizeof(*pp));

	pp->session = s;
	pp->kernel_vr = xstrdup(s->kernel_release ? s->kernel_release : "");
	pp->kernel_v = xstrndup(pp->kernel_vr, strcspn(pp->kernel_vr, "-"));
	pp->arch = kernel_arch();
	pp->runtime = "kernel";
	pp->privilege = session_privilege(s);
	pp->compat_version = s->compat_version ? s->compat_version : STAP_COMPAT_VERSION;
	return pp;
}

/* CONFIG_NAME's value in the target kernel's .config; "" when unset. */
static const char *kernel_config(struct preprocessor *pp, const char *name)
{
	size_t n = strlen(name);

	if (!pp->config_loaded) {
		char *path = xasprintf("%s/.config", pp->session->kernel_build_dir);
		char *text = read_file(path, NULL);

		pp->config_loaded = true;
		for (char *line = text, *end; line && *line; line = end) {
			end = strchr(line, '\n');
			end = end ? (*end = '\0', end + 1) : line + strlen(line);
			if (starts_with(line, "CONFIG_") && strchr(line, '='))
				strlist_add(&pp->config, line);
		}
		free(text);
		free(path);
	}
	for (int i = 0; i < pp->config.count; i++) {
		const char *line = pp->config.items[i];

		if (strncmp(line, name, n) == 0 && line[n] == '=')
			return line + n + 1;	/* as written: a string keeps its quotes */
	}
	return "";
}

/* ---- macros ---- */

static struct macro *find_macro(struct macro *list, const char *name)
{
	for (; list; list = list->next)
		if (strcmp(list->name, name) == 0)
			return list;
	return NULL;
}

static bool names_contain(const struct strlist *names, const char *name)
{
	for (int i = 0; i < names->count; i++)
		if (strcmp(names->items[i], name) == 0)
			return true;
	return false;
}

static void read_deferred(struct preprocessor *pp, struct deferred_library *d, int *errors)
{
	struct source_file *src = xcalloc(1, sizeof(*src));

	d->read = true;
	src->name = xstrdup(d->path);
	src->is_tapset = true;
	src->text = read_file(d->path, NULL);
	if (src->text)
		load_macro_library(pp, src, errors, NULL);
}

/* The library's macro NAME, its deferred file read first if it has it; or NULL. */
static struct macro *library_macro(struct preprocessor *pp, const char *name, int *errors)
{
	struct macro *m = find_macro(pp->library, name);

	for (struct deferred_library *d = pp->deferred; d && !m; d = d->next)
		if (!d->read && names_contain(&d->names, name)) {
			read_deferred(pp, d, errors);
			m = find_macro(pp->library, name);
		}
	return m;
}

static struct macro *lookup_macro(struct expander *ex, const char *name)
{
	struct macro *m = ex->file_macros ? find_macro(*ex->file_macros, name) : NULL;

	return m ? m : library_macro(ex->pp, name, &ex->errors);
}

static bool opens(struct token *tok)
{
	return token_is(tok, "(") || token_is(tok, "[") || token_is(tok, "{") ||
	       token_is(tok, "%(");
}

static bool closes(struct token *tok)
{
	return token_is(tok, ")") || token_is(tok, "]") || token_is(tok, "}") ||
	       token_is(tok, "%)");
}

/* Whether @NAME is one of the language's operators, which a macro may hide (stap warns). */
static bool builtin_operator(const char *name)
{
	static const char *const operators[] = {
		"avg", "cast", "count", "defined", "entry", "hist_linear", "hist_log", "kderef",
		"kregister", "max", "min", "perf", "sum", "uderef", "uregister", "var",
		"variance", NULL,
	};

	for (int i = 0; operators[i]; i++)
		if (strcmp(name, operators[i]) == 0)
			return true;
	return false;
}

/*
 * define = "@define" name ("(" param ("," param)* ")")? "%(" body "%)"
 * Returns the token after the definition.
 */
static struct token *define_macro(struct expander *ex, struct token *at)
{
	struct macro *m = xcalloc(1, sizeof(*m));
	struct token *tok = at->next, body_head = { 0 }, *body_tail = &body_head;
	int depth = 0;

	m->tok = at;
	if (tok->kind != TOK_IDENT || tok->text[0] == '@' || tok->text[0] == '$') {
		pp_error(ex, tok, "expected identifier");
		return is_eof(tok) ? tok : tok->next;
	}
	m->name = tok->text;
	if (strcmp(m->name, "define") == 0) {
		pp_error(ex, tok, "attempt to redefine '@define'");
		return tok->next;
	}
	if (builtin_operator(m->name) && diag_warning_at(tok, "macro redefines built-in "
							  "operator '@%s'", m->name))
		ex->errors++;
	tok = tok->next;
	if (token_is(tok, "(")) {
		do {
			tok = tok->next;
			if (tok->kind != TOK_IDENT) {
				pp_error(ex, tok, "expected macro parameter name");
				return tok;
			}
			m->params = xrealloc(m->params, (m->nparams + 1) * sizeof(*m->params));
			m->params[m->nparams++] = tok;
			tok = tok->next;
		} while (token_is(tok, ","));
		if (!token_is(tok, ")")) {
			pp_error(ex, tok, "expected ',' or ')'");
			return tok;
		}
		tok = tok->next;
	}
	if (!token_is(tok, "%(")) {
		pp_error(ex, tok, "expected '%%(' or '('");	/* stap's words */
		return tok;
	}
	for (tok = tok->next; !is_eof(tok); tok = tok->next) {
		if (token_is(tok, "%)") && depth == 0)
			break;
		depth += token_is(tok, "%(") - token_is(tok, "%)");
		body_tail = body_tail->next = copy_token(tok);
	}
	if (is_eof(tok)) {
		pp_error(ex, at->next, "incomplete macro definition - missing '%%)'");
		return tok;
	}
	body_tail->next = eof_after(tok);
	m->body = body_head.next;
	if (ex->file_macros && find_macro(*ex->file_macros, m->name)) {
		pp_error(ex, at->next, "attempt to redefine macro '@%s' in the same file", m->name);
	} else if (ex->file_macros) {
		m->next = *ex->file_macros;
		*ex->file_macros = m;
	}
	return tok->next;
}

struct argument {
	struct token *first, *end;	/* [first, end) */
};

/* Collects "(" arg ("," arg)* ")" after a macro name; returns the token after ")". */
static struct token *macro_arguments(struct expander *ex, struct macro *m, struct token *name,
				     struct argument *args)
{
	struct token *tok = name->next, *extra = NULL;
	int n = 0, depth = 0;

	/* stap's words for each mistake */
	if (!token_is(tok, "(")) {
		pp_error(ex, tok, "expected '(' in invocation of macro '@%s' taking %d parameter%s",
			 m->name, m->nparams, m->nparams == 1 ? "" : "s");
		return NULL;
	}
	args[0].first = tok = tok->next;
	for (; !is_eof(tok); tok = tok->next) {
		if (depth == 0 && (token_is(tok, ",") || token_is(tok, ")"))) {
			if (n < m->nparams)
				args[n].end = tok;
			else if (!extra)
				extra = tok;
			if (n == m->nparams - 1 && token_is(tok, ","))
				extra = tok;	/* stap names the "," after the last argument */
			n++;
			if (token_is(tok, ")"))
				break;
			if (n < m->nparams)
				args[n].first = tok->next;
			continue;
		}
		depth += opens(tok) - closes(tok);
	}
	if (is_eof(tok)) {
		pp_error(ex, name, "could not find end of macro invocation");
		return NULL;
	}
	if (n != m->nparams) {
		pp_error(ex, n < m->nparams ? tok : extra, "too %s parameters for macro '@%s' "
			 "(expected %d)", n < m->nparams ? "few" : "many", m->name, m->nparams);
		return NULL;
	}
	return tok->next;
}

/* The macro's body with @param replaced by the argument tokens, marked as expanded. */
static struct token *substitute(struct macro *m, struct argument *args, struct token *site)
{
	struct token head = { 0 }, *tail = &head;

	for (struct token *tok = m->body; !is_eof(tok); tok = tok->next) {
		int p = -1;

		if (tok->kind == TOK_IDENT && tok->text[0] == '@')
			for (int i = 0; i < m->nparams; i++)
				if (strcmp(tok->text + 1, m->params[i]->text) == 0)
					p = i;
		if (p < 0) {
			tail = tail->next = copy_token(tok);
			tail->expanded_from = site;
			continue;
		}
		for (struct token *a = args[p].first; a != args[p].end; a = a->next)
			tail = tail->next = copy_token(a);
	}
	tail->next = eof_after(site);
	return head.next;
}

/* ---- conditions ---- */

struct condition {
	struct expander *ex;
	struct token *tok;
	bool failed;
	bool version_tested;	/* it compared systemtap_v */
};

/* stap's words, on its three lines */
#define EXPECTED_CONDITION "expected 'arch', 'kernel_v', 'kernel_vr', 'systemtap_v',\n" \
	"             'runtime', 'systemtap_privilege', 'CONFIG_...', or\n" \
	"             comparison between strings or integers"

static void cond_error(struct condition *c, const char *what)
{
	if (!c->failed)
		pp_error(c->ex, c->tok, "%s", what);
	c->failed = true;
}

static const char *comparison_op(struct condition *c)
{
	static const char *const ops[] = { "==", "!=", "<", "<=", ">", ">=", NULL };

	for (int i = 0; ops[i]; i++)
		if (token_is(c->tok, ops[i])) {
			c->tok = c->tok->next;
			return ops[i];
		}
	cond_error(c, "expected comparison operator");
	return "==";
}

static bool compare_result(const char *op, int cmp)
{
	if (strcmp(op, "==") == 0) return cmp == 0;
	if (strcmp(op, "!=") == 0) return cmp != 0;
	if (strcmp(op, "<") == 0) return cmp < 0;
	if (strcmp(op, "<=") == 0) return cmp <= 0;
	if (strcmp(op, ">") == 0) return cmp > 0;
	return cmp >= 0;
}

static const char *string_operand(struct condition *c)
{
	struct token *tok = c->tok;

	if (tok->kind != TOK_STRING) {
		cond_error(c, "expected string literal");
		return "";
	}
	c->tok = tok->next;
	return tok->text;
}

static int64_t number_operand(struct condition *c)
{
	bool negative = token_is(c->tok, "-");
	struct token *tok;

	if (negative)
		c->tok = c->tok->next;
	tok = c->tok;
	if (tok->kind != TOK_NUMBER) {
		cond_error(c, "expected number");
		return 0;
	}
	c->tok = tok->next;
	return negative ? (int64_t)(0 - (uint64_t)tok->number) : tok->number;
}

/* == and != match a wildcard pattern; the others compare versions (strverscmp). */
static bool version_test(struct condition *c, const char *actual)
{
	const char *op = comparison_op(c);
	const char *pattern = string_operand(c);

	if ((strcmp(op, "==") == 0 || strcmp(op, "!=") == 0) && strpbrk(pattern, "*?["))
		return (fnmatch(pattern, actual, 0) == 0) == (op[0] == '=');
	return compare_result(op, strverscmp(actual, pattern));
}

static bool is_integer(const char *s)
{
	char *end;

	if (!*s)
		return false;
	strtoll(s, &end, 0);
	return *end == '\0';
}

/* arch == "x86_64", runtime != "dyninst", ...: a wildcard (mis)match. */
static bool match_test(struct condition *c, const char *actual)
{
	struct token *op = c->tok;
	bool equal;

	if (!token_is(op, "==") && !token_is(op, "!=")) {
		cond_error(c, "expected '==' or '!='");
		return false;
	}
	c->tok = op->next;
	equal = fnmatch(string_operand(c), actual, 0) == 0;
	return token_is(op, "==") ? equal : !equal;
}

/*
 * CONFIG_X == "y" (a wildcard match), CONFIG_HZ >= 250, CONFIG_A >= CONFIG_B: numbers
 * compare as numbers, the rest as strings.
 */
static bool config_test(struct condition *c, const char *actual)
{
	const char *op = comparison_op(c);
	struct token *tok = c->tok;
	const char *other;
	char *mine = xstrdup(actual);
	bool result;

	if (tok->kind == TOK_IDENT && starts_with(tok->text, "CONFIG_")) {
		other = kernel_config(c->ex->pp, tok->text);
		c->tok = tok->next;
	} else if (tok->kind == TOK_NUMBER) {
		other = tok->text;
		c->tok = tok->next;
	} else {
		other = string_operand(c);
		if ((strcmp(op, "==") == 0 || strcmp(op, "!=") == 0)) {
			result = (fnmatch(other, mine, 0) == 0) == (op[0] == '=');
			free(mine);
			return result;
		}
	}
	if (is_integer(mine) && is_integer(other)) {
		long long a = strtoll(mine, NULL, 0), b = strtoll(other, NULL, 0);

		result = compare_result(op, a < b ? -1 : a > b);
	} else {
		result = compare_result(op, strcmp(mine, other));
	}
	free(mine);
	return result;
}

/*
 * term = ("kernel_v" | "kernel_vr" | "systemtap_v") op string
 *      | ("arch" | "runtime" | "systemtap_privilege" | CONFIG_NAME) ("==" | "!=") string
 *      | "guru_mode" ("==" | "!=") number
 *      | string op string | number op number
 */
static bool cond_term(struct condition *c)
{
	struct preprocessor *pp = c->ex->pp;
	struct token *tok = c->tok;
	const char *name = tok->text;
	/* the names compared with a string: versions by their numbers, the others as text */
	const struct {
		const char *name, *value;
		bool (*test)(struct condition *c, const char *actual);
	} string_terms[] = {
		{ "kernel_v", pp->kernel_v, version_test },
		{ "kernel_vr", pp->kernel_vr, version_test },
		{ "systemtap_v", pp->compat_version, version_test },
		{ "arch", pp->arch, match_test },
		{ "runtime", pp->runtime, match_test },
		{ "systemtap_privilege", pp->privilege, match_test },
	};

	if (tok->kind == TOK_IDENT) {
		c->tok = tok->next;
		c->version_tested |= strcmp(name, "systemtap_v") == 0;
		for (size_t i = 0; i < sizeof(string_terms) / sizeof(string_terms[0]); i++)
			if (strcmp(name, string_terms[i].name) == 0)
				return string_terms[i].test(c, string_terms[i].value);
		if (starts_with(name, "CONFIG_")) {
			pp->config_tested = true;
			return config_test(c, kernel_config(pp, name));
		}
		if (strcmp(name, "guru_mode") == 0) {	/* == or != 0 or 1, as stap allows */
			struct token *at = c->tok;
			const char *op = comparison_op(c);
			int64_t n = number_operand(c);

			if (strcmp(op, "==") != 0 && strcmp(op, "!=") != 0) {
				c->tok = at;
				cond_error(c, "expected '==' or '!='");
			} else if (n != 0 && n != 1) {
				c->tok = at;
				cond_error(c, "expected 0 or 1");
			}
			return compare_result(op, (pp->session->guru ? 1 : 0) - (n != 0));
		}
		c->tok = tok;
		cond_error(c, EXPECTED_CONDITION);
		return false;
	}
	if (tok->kind == TOK_STRING) {
		const char *left = string_operand(c);
		const char *op = comparison_op(c);

		return compare_result(op, strcmp(left, string_operand(c)));
	}
	if (tok->kind == TOK_NUMBER || token_is(tok, "-")) {
		int64_t left = number_operand(c);
		const char *op = comparison_op(c);
		int64_t right = number_operand(c);

		return compare_result(op, left < right ? -1 : left > right);
	}
	cond_error(c, EXPECTED_CONDITION);
	return false;
}

/* and = term ("&&" term)* */
static bool cond_and(struct condition *c)
{
	bool value = cond_term(c);

	while (token_is(c->tok, "&&")) {
		c->tok = c->tok->next;
		value = cond_term(c) && value;
	}
	return value;
}

/* condition = and ("||" and)*     (no parentheses, as in SystemTap) */
static bool cond_or(struct condition *c)
{
	bool value = cond_and(c);

	while (token_is(c->tok, "||")) {
		c->tok = c->tok->next;
		value = cond_and(c) || value;
	}
	if (!is_eof(c->tok))
		cond_error(c, "expected '%?' after the preprocessor condition");
	return value;
}

/* ---- expansion ---- */

static struct token *expand(struct expander *ex, struct token *tok, struct token ***tail,
			    int depth, bool *stopped);

/* Skips a branch that is not taken: up to its %: or %) at this level. */
static struct token *skip_branch(struct expander *ex, struct token *tok)
{
	int depth = 0;

	for (; !is_eof(tok); tok = tok->next) {
		if (depth == 0 && (token_is(tok, "%:") || token_is(tok, "%)")))
			break;
		if (depth == 0 && token_is(tok, "%?"))	/* a second one: as expand() says */
			pp_error(ex, tok, "incomplete conditional - missing '%%('");
		depth += token_is(tok, "%(") - token_is(tok, "%)");
	}
	return tok;
}

/* %( CONDITION %? TRUE %: FALSE %) -- returns the token after %) */
static struct token *conditional(struct expander *ex, struct token *open, struct token ***tail,
				 int depth)
{
	struct token head = { 0 }, *ctail = &head, *cond_tokens, **cond_out;
	struct token *tok = open->next;
	struct condition c = { .ex = ex };
	bool truth, stopped;

	if (ex->nesting >= MAX_CONDITIONAL_NESTING) {
		pp_error(ex, open, "preprocessor conditionals nested too deeply (more than %d)",
			 MAX_CONDITIONAL_NESTING);
		return skip_branch(ex, open->next);
	}

	for (; !is_eof(tok) && !token_is(tok, "%?"); tok = tok->next) {
		if (token_is(tok, "%(") || token_is(tok, "%)") || token_is(tok, "%:")) {
			pp_error(ex, open, "expected '%%?' marker for conditional");
			return tok;
		}
		ctail = ctail->next = copy_token(tok);
	}
	if (is_eof(tok)) {
		pp_error(ex, open, "expected '%%?' marker for conditional");
		return tok;
	}
	ctail->next = eof_after(tok);
	/* macros and script arguments may appear in the condition (its tokens are not the
	 * output: a mark waiting for the next token out keeps waiting) */
	bool mark_next = ex->mark_next;

	ex->mark_next = false;
	cond_out = &cond_tokens;
	expand(ex, head.next, &cond_out, depth, &stopped);
	ex->mark_next = mark_next;
	*cond_out = eof_after(tok);
	c.tok = cond_tokens;
	if (is_eof(c.tok))
		cond_error(&c, EXPECTED_CONDITION);
	truth = cond_or(&c);

	/* --check-version: the first token the conditional gives, or (none) the next one,
	 * is marked, so that the declaration around it is known to depend on the version */
	struct token **first = *tail;

	ex->nesting++;
	tok = truth ? expand(ex, tok->next, tail, depth, &stopped) : skip_branch(ex, tok->next);
	if (token_is(tok, "%:"))
		tok = truth ? skip_branch(ex, tok->next) : expand(ex, tok->next, tail, depth, &stopped);
	ex->nesting--;
	if (c.version_tested && *tail != first)
		(*first)->version_dependent = true;
	else if (c.version_tested)
		ex->mark_next = true;
	if (!token_is(tok, "%)")) {
		if (token_is(tok, "%:"))
			pp_error(ex, tok, "invalid conditional - duplicate '%%:'");
		else
			pp_error(ex, open, "incomplete conditional at end of file");
		return tok;
	}
	return tok->next;
}

/* The tokens of TEXT (a script argument's), located at TOK, to *TAIL. */
static void argument_tokens(struct expander *ex, struct token *tok, char *text,
			    struct token ***tail)
{
	struct source_file *src = xcalloc(1, sizeof(*src));

	src->name = tok->file->name;
	src->text = text;
	for (struct token *sub = tokenize(src, &ex->errors); !is_eof(sub); sub = sub->next) {
		/* an argument is not expanded again: its own $N, @N, $#, @# are refused */
		if (sub->kind == TOK_IDENT && (sub->text[0] == '$' || sub->text[0] == '@') &&
		    (isdigit((unsigned char)sub->text[1]) || strcmp(sub->text + 1, "#") == 0)) {
			pp_error(ex, tok, "invalid nested substitution of command line arguments");
			return;
		}
		sub->file = tok->file;
		sub->line = tok->line;
		sub->column = tok->column;
		sub->expanded_from = tok->expanded_from;
		emit(ex, tail, copy_token(sub));
	}
}

/* $N, @N, $#, @# -- true if TOK was one (and was replaced in the output). */
static bool script_argument(struct expander *ex, struct token *tok, struct token ***tail)
{
	struct strlist *args = &ex->pp->session->script_args;
	const char *t = tok->text;
	struct token *out;
	long index;
	char *end;

	if (!ex->script_args || tok->kind != TOK_IDENT || (t[0] != '$' && t[0] != '@'))
		return false;
	out = copy_token(tok);
	if (strcmp(t + 1, "#") == 0) {
		out->kind = t[0] == '$' ? TOK_NUMBER : TOK_STRING;
		out->number = args->count;
		out->text = xasprintf("%d", args->count);
		out->raw = out->text;
		emit(ex, tail, out);
		return true;
	}
	if (!isdigit((unsigned char)t[1]))
		return false;
	/* the digits are the number; what follows them is read after the argument, as
	 * stap reads "$1A3" with $1 "a" as the identifier aA3, and @1A3 as "a" A3 */
	index = strtol(t + 1, &end, 10);
	if (index < 1 || index > args->count) {
		/* stap's lexer makes it a junk token, and its parser's error skips to the
		 * next declaration (an error there too is alike: counted, not shown) */
		if (!ex->argument_failed) {
			struct token *junk = copy_token(tok);

			junk->kind = TOK_JUNK;
			junk->text = "";
			pp_error(ex, junk, "command line argument out of range [1-%d]",
				 args->count);
		}
		ex->argument_failed = true;
		return true;
	}
	if (t[0] == '@') {
		struct strbuf raw = { 0 };

		/* as if written "...": stap keeps backslashes, and a quote needs one */
		for (const char *p = args->items[index - 1]; *p; p++) {
			if (*p == '\\')
				sb_putc(&raw, '\\');
			sb_putc(&raw, *p);
		}
		out->kind = TOK_STRING;
		out->text = args->items[index - 1];
		out->raw = sb_steal(&raw);
		emit(ex, tail, out);
		if (*end)
			argument_tokens(ex, tok, xstrdup(end), tail);
		return true;
	}
	/* $N: the argument's own tokens, located at $N */
	argument_tokens(ex, tok, xasprintf("%s%s", args->items[index - 1], end), tail);
	return true;
}

/*
 * Copies TOK... to *TAIL, expanding as it goes, until the end or a %: or %) of the
 * enclosing conditional (returned, with *STOPPED set).
 */
static struct token *expand(struct expander *ex, struct token *tok, struct token ***tail,
			    int depth, bool *stopped)
{
	*stopped = false;
	while (!is_eof(tok)) {
		struct macro *m;

		if (token_is(tok, "%:") || token_is(tok, "%)")) {
			*stopped = true;
			return tok;
		}
		if (token_is(tok, "%(")) {
			tok = conditional(ex, tok, tail, depth);
			continue;
		}
		if (token_is(tok, "%?")) {	/* a condition's end outside of one */
			pp_error(ex, tok, "incomplete conditional - missing '%%('");
			tok = tok->next;
			continue;
		}
		if (tok->kind == TOK_IDENT && strcmp(tok->text, "@define") == 0) {
			tok = define_macro(ex, tok);
			continue;
		}
		if (tok->kind == TOK_KEYWORD && (token_is(tok, "probe") || token_is(tok, "function") ||
						 token_is(tok, "global") || token_is(tok, "private")))
			ex->argument_failed = false;	/* the next declaration */
		if (script_argument(ex, tok, tail)) {
			tok = tok->next;
			continue;
		}
		if (tok->kind == TOK_IDENT && tok->text[0] == '@' &&
		    (m = lookup_macro(ex, tok->text + 1))) {
			struct argument *args = xcalloc(m->nparams + 1, sizeof(*args));
			struct token *after = m->nparams ? macro_arguments(ex, m, tok, args) : tok->next;
			struct token *body;
			bool inner_stopped;

			if (!after) {
				free(args);
				tok = tok->next;
				continue;
			}
			if (ex->overflowed) {
				free(args);
				tok = after;
				continue;
			}
			if (depth >= MAX_EXPANSION_DEPTH) {
				pp_error(ex, tok, "macro expansion nested too deeply (more than %d)",
					 MAX_EXPANSION_DEPTH);
				free(args);
				tok = after;
				continue;
			}
			body = substitute(m, args, tok);
			free(args);
			for (struct token *t = body; !is_eof(t); t = t->next)
				ex->expanded++;
			if (ex->expanded > MAX_EXPANDED_TOKENS) {
				if (!ex->overflowed)
					pp_error(ex, tok, "macro expansion makes more than %d tokens",
						 MAX_EXPANDED_TOKENS);
				ex->overflowed = true;
				tok = after;
				continue;
			}
			body = expand(ex, body, tail, depth + 1, &inner_stopped);
			if (inner_stopped)
				pp_error(ex, body, "unbalanced '%s' in the expansion of macro @%s",
					 body->text, m->name);
			tok = after;
			continue;
		}
		emit(ex, tail, copy_token(tok));
		tok = tok->next;
	}
	return tok;
}

struct token *preprocess(struct preprocessor *pp, struct token *tokens, bool script_args,
			 struct macro **file_macros, int *errors)
{
	struct expander ex = { .pp = pp, .file_macros = file_macros, .script_args = script_args };
	struct token head = { 0 }, **tail = &head.next;
	struct token *end;
	bool stopped;

	end = expand(&ex, tokens, &tail, 0, &stopped);
	while (stopped) {	/* a stray %: or %) outside any conditional */
		pp_error(&ex, end, "incomplete conditional - missing '%%('");	/* stap's words */
		end = expand(&ex, end->next, &tail, 0, &stopped);
	}
	*tail = end;		/* the EOF */
	*errors += ex.errors;
	return head.next;
}

/* A file of the macro library; a macro defined twice in the library is an error, as is
 * anything but @define, and then none of the file's macros are used. */
bool load_macro_library(struct preprocessor *pp, struct source_file *file, int *errors,
			struct strlist *names)
{
	struct macro *mine = NULL, *next, *first;
	int before = *errors;
	bool config_tested = pp->config_tested, cacheable;
	struct token *rest;

	pp->config_tested = false;
	rest = preprocess(pp, tokenize(file, errors), false, &mine, errors);
	if (!is_eof(rest)) {
		diag_at("parse error", rest, "a macro library (*.stpm) may only hold @define");
		(*errors)++;
	}
	for (struct macro *m = mine; m; m = m->next) {
		if ((first = library_macro(pp, m->name, errors))) {
			diag_at("parse error", m->tok->next,
				"duplicate definition of library macro '@%s'", m->name);
			diag_at("parse error", first->tok->next, "macro '@%s' first defined here",
				m->name);
			(*errors)++;
		}
	}
	if (*errors != before) {
		diag_system_warning("macro tapset \"%s\" has errors, and will be skipped.",
				    file->name);
		pp->config_tested |= config_tested;
		return false;
	}
	for (struct macro *m = mine; m; m = next) {
		next = m->next;
		if (names)
			strlist_add(names, m->name);
		m->next = pp->library;
		pp->library = m;
	}
	cacheable = !pp->config_tested;
	pp->config_tested |= config_tested;
	return cacheable;
}

void defer_macro_library(struct preprocessor *pp, const char *path,
			 const struct strlist *names, int *errors)
{
	struct deferred_library *d, **tail = &pp->deferred;

	/* Against the files read: two deferred ones cannot clash, as both were clean in one
	 * run (with this search path) and neither changed since. */
	for (int i = 0; pp->library && i < names->count; i++)
		if (find_macro(pp->library, names->items[i])) {
			struct deferred_library now = { .path = (char *)path };

			read_deferred(pp, &now, errors);	/* the duplicate told as always */
			return;
		}
	while (*tail)
		tail = &(*tail)->next;
	d = xcalloc(1, sizeof(*d));
	d->path = xstrdup(path);
	for (int i = 0; i < names->count; i++)
		strlist_add(&d->names, names->items[i]);
	*tail = d;
}
