/*
 * diag.c - every message stap prints about the script or its own work goes through here.
 *
 * Two forms, as SystemTap prints them:
 *
 *   located (a pass's error or a warning about the script, at a token):
 *     parse error: expected ';'
 *             saw: identifier 'foo' at <input>:1:20
 *          source: probe begin { x foo }
 *                                  ^
 *   plain (about the system: files, programs, the cache):
 *     ERROR: cannot run make: No such file or directory
 *
 * After pass 1 a place names its file only when the place before it was in another file
 * ("at :3:20" for the script's second message), as stap's messages do.
 * Errors end with a blank line, warnings do not.  -w silences warnings about the script,
 * -W makes them errors.  Pass 2's messages are shown once each: alike ones after the
 * first are counted (-v shows them all), and the count comes last (diag_summary).  The
 * elaborator counts its errors here too, and a probe point being resolved is named once
 * before the first error it causes.
 *
 * On a terminal (--color), the located form is coloured as stap colours it: the KIND
 * label, the FILE:LINE:COLUMN, the token in the source line and its caret, and the counts
 * of similar messages; SYSTEMTAP_COLORS chooses the colours.  The plain form is not.
 */
#include "stap.h"
#include "elaborate/elaborate.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int diag_quiet;

/* The parts of a message that can be coloured: the keys of SYSTEMTAP_COLORS. */
enum colour_part { COLOUR_ERROR, COLOUR_WARNING, COLOUR_SOURCE, COLOUR_CARET, COLOUR_TOKEN,
		   COLOUR_PARTS };

static const char *const colour_keys[COLOUR_PARTS] = {
	"error", "warning", "source", "caret", "token"
};

/* stap(1)'s defaults: error=01;31:warning=00;33:source=00;34:caret=01:token=01 */
static const char *const default_colours[COLOUR_PARTS] = {
	"01;31", "00;33", "00;34", "01", "01"
};

static char *colours[COLOUR_PARTS];	/* SGR parameters of each part; NULL: not coloured */

static struct {
	bool verbose;			/* -v at pass 2: repeats are shown too */
	bool suppress_warnings;		/* -w */
	bool warnings_as_errors;	/* -W */
	struct strlist seen;		/* the keys of messages shown once */
	int suppressed_errors, suppressed_warnings;
} diag;

void diag_setup(struct session *s)
{
	diag.verbose = verbose_at(s, 2, 1);
	diag.suppress_warnings = s->suppress_warnings;
	diag.warnings_as_errors = s->warnings_as_errors;
}

/*
 * The SGR parameters SYSTEMTAP_COLORS gives KEY: its entries are KEY=SGR separated by
 * ':', and, as in stap, the first entry that is not of that form (no '=', an empty key or
 * value, a value of other than digits and ';') ends the list: KEY is then not coloured.
 */
static char *colour_setting(const char *setting, const char *key)
{
	const char *entry = setting;

	while (*entry) {
		size_t len = strcspn(entry, ":");
		const char *eq = memchr(entry, '=', len);
		size_t key_len = eq ? (size_t)(eq - entry) : 0;
		size_t value_len = eq ? len - key_len - 1 : 0;

		if (!eq || key_len == 0 || value_len == 0 ||
		    strspn(eq + 1, "0123456789;") < value_len)
			return NULL;
		if (key_len == strlen(key) && strncmp(entry, key, key_len) == 0)
			return xstrndup(eq + 1, value_len);
		entry += len + (entry[len] == ':');
	}
	return NULL;
}

/*
 * --color=WHEN: "always", "never", or "auto" (when standard error is a terminal whose
 * TERM is not "dumb"); NULL is auto.  False for a WHEN that is none of them.
 */
bool diag_set_colour(const char *when)
{
	const char *setting = getenv("SYSTEMTAP_COLORS");
	const char *term = getenv("TERM");
	bool on;

	if (!when || strcmp(when, "auto") == 0)
		on = isatty(STDERR_FILENO) && !(term && strcmp(term, "dumb") == 0);
	else if (strcmp(when, "always") == 0)
		on = true;
	else if (strcmp(when, "never") == 0)
		on = false;
	else
		return false;
	for (int i = 0; i < COLOUR_PARTS; i++) {
		free(colours[i]);
		colours[i] = NULL;
		if (on)
			colours[i] = setting ? colour_setting(setting, colour_keys[i])
					     : xstrdup(default_colours[i]);
	}
	return true;
}

/* TEXT (its first N bytes) in PART's colour, the way stap (and gcc) write it */
static void put_coloured(struct strbuf *sb, enum colour_part part, const char *text, size_t n)
{
	if (colours[part])
		sb_printf(sb, "\033[%sm\033[K", colours[part]);
	sb_putn(sb, text, n);
	if (colours[part])
		sb_puts(sb, "\033[m\033[K");
}

/* The colour of a message's KIND label: warnings', or errors' */
static enum colour_part kind_colour(const char *kind)
{
	return strcmp(kind, "WARNING") == 0 ? COLOUR_WARNING : COLOUR_ERROR;
}

const char *token_kind_name(enum token_kind kind)
{
	switch (kind) {
	case TOK_IDENT: return "identifier";
	case TOK_KEYWORD: return "keyword";
	case TOK_NUMBER: return "number";
	case TOK_STRING: return "string";
	case TOK_OPERATOR: return "operator";
	case TOK_EMBEDDED: return "embedded-code";
	case TOK_JUNK: return "junk";
	case TOK_EOF: return "end of input";
	}
	return "token";
}

const char *token_kind_text(const struct token *tok)
{
	if (tok->kind == TOK_IDENT && tok->text[0] == '@')
		return "operator";	/* @cast, @entry, a macro's @name: as stap says */
	return token_kind_name(tok->kind);
}

/* ---- the located form ---- */

/* The text of line LINE (1-based) of FILE, without its newline. */
static char *source_line(struct source_file *file, int line)
{
	const char *p = file->text;
	const char *end;

	for (int i = 1; i < line && p; i++) {
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	if (!p)
		return xstrdup("");
	end = strchr(p, '\n');
	return xstrndup(p, end ? (size_t)(end - p) : strlen(p));
}

#define MAX_EXPANSIONS_SHOWN 5

/* "identifier 'x'", "keyword": stap shows keywords by kind only, strings as it keeps
 * them ("string 'a\12b'"); so do its run-time error locations. */
char *token_description(const struct token *tok)
{
	if (tok->kind == TOK_EOF || tok->kind == TOK_EMBEDDED || tok->kind == TOK_KEYWORD)
		return xstrdup(token_kind_text(tok));
	return xasprintf("%s '%s'", token_kind_text(tok),
			 tok->kind == TOK_STRING && tok->raw ? tok->raw : tok->text);
}

/* The file of the last place a message named (parse errors aside). */
static const struct source_file *last_named_file;

/*
 * "identifier 'x' at FILE:L:C".  After pass 1 (ELIDE) stap names a file only when the
 * place before was in another one: "at :3:20" for the script's second message.
 */
static void put_token(struct strbuf *sb, struct token *tok, bool elide)
{
	char *what = token_description(tok);
	const char *file = tok->file->name;

	if (elide) {
		if (tok->file == last_named_file)
			file = "";
		last_named_file = tok->file;
	}
	sb_puts(sb, what);
	free(what);
	sb_puts(sb, " at ");
	char *where = xasprintf("%s:%d:%d", file, tok->line, tok->column);

	put_coloured(sb, COLOUR_SOURCE, where, strlen(where));
	sb_putc(sb, '\n');
	free(where);
}

/* How many bytes of LINE, from FROM, TOK was written as (for its colour). */
static size_t token_source_length(struct token *tok, const char *from)
{
	size_t n = 0;

	switch (tok->kind) {
	case TOK_EOF:
		return 0;
	case TOK_STRING:	/* "...", its escapes as written */
		if (*from != '"')
			break;
		for (n = 1; from[n] && from[n] != '"'; n++)
			if (from[n] == '\\' && from[n + 1])
				n++;
		return from[n] ? n + 1 : n;
	case TOK_EMBEDDED:	/* %{ ... %}, or its first line */
		n = strlen(from);
		if (strstr(from, "%}"))
			n = strstr(from, "%}") + 2 - from;
		return n;
	default:
		break;
	}
	n = strlen(tok->text);
	return strncmp(from, tok->text, n) == 0 ? n : 0;
}

/* "source: LINE" and a caret under the token's column (tabs stay tabs so it lines up). */
static void put_source(struct strbuf *sb, int width, struct token *tok)
{
	char *line = source_line(tok->file, tok->line);

	size_t at = 0, len;

	while ((int)at < tok->column - 1 && line[at])
		at++;
	len = token_source_length(tok, line + at);
	sb_printf(sb, "%*s: ", width, "source");
	sb_putn(sb, line, at);
	put_coloured(sb, COLOUR_TOKEN, line + at, len);
	sb_printf(sb, "%s\n", line + at + len);
	sb_printf(sb, "%*s  ", width, "");
	for (int i = 1; i < tok->column && line[i - 1]; i++)
		sb_putc(sb, line[i - 1] == '\t' ? '\t' : ' ');
	put_coloured(sb, COLOUR_CARET, "^", 1);
	sb_putc(sb, '\n');
	free(line);
}

/* The preprocessor's parse errors name their token after "at:", as stap's do (and a few
 * of the parser's, which stap raises at a token it has read: "not more than 1 ..."). */
static bool preprocessor_label;
static bool first_of_its_kind(const char *key);

/*
 * KIND: MESSAGE: TOKEN, its source line, the macros it came through; then RELATED (the
 * other place a message names, as in "Expecting lvalue"), if any.  A parse error names
 * the token on a line of its own ("saw: ..."); the others after the message.
 */
/* A parse error alike one shown before (KEY) is counted, not shown, as stap's are. */
static bool parse_error_shown_before(const char *key)
{
	if (first_of_its_kind(key))
		return false;
	diag.suppressed_errors++;
	return true;
}

static void put_located(const char *kind, struct token *tok, struct token *related,
			const char *message);

void diag_vat(const char *kind, struct token *tok, struct token *related, const char *fmt,
	      va_list ap)
{
	struct strbuf message = { 0 };

	if (diag_quiet)
		return;
	sb_vprintf(&message, fmt, ap);
	if (strcmp(kind, "parse error") != 0 || !parse_error_shown_before(message.data))
		put_located(kind, tok, related, message.data);
	sb_free(&message);
}

void diag_parse_error_keyed(struct token *tok, const char *key, bool at, const char *message)
{
	if (diag_quiet || parse_error_shown_before(key))
		return;
	preprocessor_label = at;
	put_located("parse error", tok, NULL, message);
	preprocessor_label = false;
}

static void put_located(const char *kind, struct token *tok, struct token *related,
			const char *message)
{
	struct strbuf sb = { 0 };
	int width = (int)strlen(kind);	/* labels align under the end of KIND */
	bool own_line = strcmp(kind, "parse error") == 0;
	char *label = xasprintf("%s:", kind);	/* the colon is inside the colour */

	put_coloured(&sb, kind_colour(kind), label, strlen(label));
	free(label);
	sb_putc(&sb, ' ');
	sb_puts(&sb, message);
	if (tok && own_line && tok->kind == TOK_EOF) {
		/* the end of a file has no source line: "saw: FILE EOF", as stap says */
		sb_printf(&sb, "\n%*s: %s EOF\n\n", width, "saw", tok->file->name);
		fputs(sb.data, stderr);
		sb_free(&sb);
		return;
	}
	if (tok) {
		/* what the lexer could not read ("junk"), and the preprocessor's token, are
		 * "at:"; the token the parser did not expect, "saw:" */
		if (own_line)
			sb_printf(&sb, "\n%*s: ", width,
				  tok->kind == TOK_JUNK || preprocessor_label ? "at" : "saw");
		else
			sb_puts(&sb, ": ");
		put_token(&sb, tok, !own_line);
		put_source(&sb, width, tok);
		/* a token from a macro: where each enclosing macro was invoked */
		int shown = 0, more = 0;

		for (struct token *site = tok->expanded_from; site; site = site->expanded_from) {
			if (shown++ >= MAX_EXPANSIONS_SHOWN) {
				more++;
				continue;
			}
			sb_puts(&sb, "\tin expansion of macro: ");
			put_token(&sb, site, false);
			put_source(&sb, width, site);
		}
		if (more)
			sb_printf(&sb, "\t(and %d more expansions)\n", more);
		if (related) {
			put_token(&sb, related, !own_line);
			put_source(&sb, width, related);
		}
	} else {
		sb_putc(&sb, '\n');
	}
	if (strcmp(kind, "WARNING") != 0)
		sb_putc(&sb, '\n');
	fputs(sb.data, stderr);
	sb_free(&sb);
}

void diag_preprocessor(struct token *tok, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	preprocessor_label = true;
	diag_vat("parse error", tok, NULL, fmt, ap);
	preprocessor_label = false;
	va_end(ap);
}

void diag_at(const char *kind, struct token *tok, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vat(kind, tok, NULL, fmt, ap);
	va_end(ap);
}

void diag_related(const char *kind, struct token *tok, struct token *related, const char *fmt,
		  ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vat(kind, tok, related, fmt, ap);
	va_end(ap);
}

/* ---- the plain form ---- */

/* "LABEL: MESSAGE" on a line */
static void plain(const char *label, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", label);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void diag_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	plain("ERROR", fmt, ap);
	va_end(ap);
}

void diag_system_warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	plain("WARNING", fmt, ap);
	va_end(ap);
}

void remove_tree_warning(const char *path)
{
	struct strlist failures = { 0 };

	remove_tree(path, &failures);
	for (int i = 0; i < failures.count; i++)
		diag_system_warning("%s", failures.items[i]);
	strlist_free(&failures);
}

bool diag_warning(const char *fmt, ...)
{
	va_list ap;

	if (diag.suppress_warnings && !diag.warnings_as_errors)
		return false;
	va_start(ap, fmt);
	plain(diag.warnings_as_errors ? "ERROR" : "WARNING", fmt, ap);
	va_end(ap);
	return diag.warnings_as_errors;
}

bool diag_warning_at(struct token *tok, const char *fmt, ...)
{
	va_list ap;

	if (diag.suppress_warnings && !diag.warnings_as_errors)
		return false;
	if (tok && tok->file && tok->file->is_tapset)
		return false;	/* about the library, not the user's script */
	va_start(ap, fmt);
	diag_vat(diag.warnings_as_errors ? "ERROR" : "WARNING", tok, NULL, fmt, ap);
	va_end(ap);
	return diag.warnings_as_errors;
}

void diag_pass_failed(int pass, const char *what)
{
	fprintf(stderr, "Pass %d: %s. " MAN_PAGE("error::pass%d") "\n", pass, what, pass);
}

/* "Number of similar KIND messages suppressed: N.", in KIND's colour */
static void put_suppressed_count(enum colour_part part, const char *kind, int count)
{
	struct strbuf sb = { 0 };
	char *text = xasprintf("Number of similar %s messages suppressed: %d.", kind, count);

	put_coloured(&sb, part, text, strlen(text));
	fprintf(stderr, "%s\n", sb.data);
	free(text);
	sb_free(&sb);
}

void diag_summary(void)
{
	if (diag.suppressed_errors)
		put_suppressed_count(COLOUR_ERROR, "error", diag.suppressed_errors);
	if (diag.suppressed_warnings)
		put_suppressed_count(COLOUR_WARNING, "warning", diag.suppressed_warnings);
	if (diag.suppressed_errors || diag.suppressed_warnings)
		fputs("Rerun with -v to see them.\n", stderr);
}

/* ---- pass 2: shown once, counted by the elaborator ---- */

/* True the first time a message's KEY is seen, or always with -v. */
static bool first_of_its_kind(const char *key)
{
	for (int i = 0; i < diag.seen.count; i++)
		if (strcmp(diag.seen.items[i], key) == 0)
			return diag.verbose;
	strlist_add(&diag.seen, key);
	return true;
}

static bool last_error_shown;	/* semantic_error_followup() follows it */

/*
 * Prints MESSAGE unless one alike was printed before (then it is counted).  Like stap,
 * errors are alike when raised for the same reason, which KEY names (the format, for
 * semantic_error), and warnings when their texts are the same.
 */
static void diagnose(struct elaborator *el, bool is_error, struct token *tok,
		     struct token *related, const char *key, const char *message)
{
	if (is_error)
		el->errors++;
	if (diag_quiet)
		return;
	if (!first_of_its_kind(is_error ? key : message)) {
		if (is_error)
			diag.suppressed_errors++;
		else
			diag.suppressed_warnings++;
		last_error_shown = false;
		return;
	}
	last_error_shown = true;
	/* an error in a probe point first says which point */
	if (is_error && el->resolving && !el->resolving_shown) {
		el->resolving_shown = true;
		diag_at("semantic error", el->resolving, "while resolving probe point");
	}
	if (related)
		diag_related("semantic error", tok, related, "%s", message);
	else
		diag_at(is_error ? "semantic error" : "WARNING", tok, "%s", message);
}

static void diagnose_v(struct elaborator *el, bool is_error, struct token *tok,
		       struct token *related, const char *key, const char *fmt, va_list ap)
{
	struct strbuf message = { 0 };

	sb_vprintf(&message, fmt, ap);
	diagnose(el, is_error, tok, related, key, message.data);
	sb_free(&message);
}

void semantic_error(struct elaborator *el, struct token *tok, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diagnose_v(el, true, tok, NULL, fmt, fmt, ap);
	va_end(ap);
}

void semantic_error_keyed(struct elaborator *el, struct token *tok, const char *key,
			  const char *message)
{
	diagnose(el, true, tok, NULL, key, message);
}

void semantic_error_followup(struct elaborator *el, struct token *tok, const char *fmt, ...)
{
	va_list ap;

	el->errors++;
	if (diag_quiet || !last_error_shown)
		return;
	va_start(ap, fmt);
	diag_vat("semantic error", tok, NULL, fmt, ap);
	va_end(ap);
}

void semantic_error_related(struct elaborator *el, struct token *tok, struct token *related,
			    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diagnose_v(el, true, tok, related, fmt, fmt, ap);
	va_end(ap);
}

static void warning_v(struct elaborator *el, bool about_library, struct token *tok,
		      const char *fmt, va_list ap)
{
	if (diag.suppress_warnings && !diag.warnings_as_errors)
		return;
	if (!about_library && tok && tok->file && tok->file->is_tapset)
		return;		/* about the library, not the user's script: stap says nothing */
	diagnose_v(el, false, tok, NULL, NULL, fmt, ap);
	if (diag.warnings_as_errors)
		el->errors++;
}

void semantic_warning(struct elaborator *el, struct token *tok, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	warning_v(el, false, tok, fmt, ap);
	va_end(ap);
}

void library_warning(struct elaborator *el, struct token *tok, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	warning_v(el, true, tok, fmt, ap);
	va_end(ap);
}
