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
 * Errors end with a blank line, warnings do not.  -w silences warnings about the script,
 * -W makes them errors.  Pass 2's messages are shown once each: alike ones after the
 * first are counted (-v shows them all), and the count comes last (diag_summary).  The
 * elaborator counts its errors here too, and a probe point being resolved is named once
 * before the first error it causes.
 */
#include "stap.h"
#include "elaborate.h"

#include <stdlib.h>
#include <string.h>

int diag_quiet;

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

/* "identifier 'x' at FILE:L:C" (stap shows keywords by kind only, strings as it keeps
 * them: "string 'a\12b'") */
static void put_token(struct strbuf *sb, struct token *tok)
{
	sb_puts(sb, token_kind_text(tok));
	if (tok->kind != TOK_EOF && tok->kind != TOK_EMBEDDED && tok->kind != TOK_KEYWORD)
		sb_printf(sb, " '%s'", tok->kind == TOK_STRING && tok->raw ? tok->raw : tok->text);
	sb_printf(sb, " at %s:%d:%d\n", tok->file->name, tok->line, tok->column);
}

/* "source: LINE" and a caret under the token's column (tabs stay tabs so it lines up). */
static void put_source(struct strbuf *sb, int width, struct token *tok)
{
	char *line = source_line(tok->file, tok->line);

	sb_printf(sb, "%*s: %s\n", width, "source", line);
	sb_printf(sb, "%*s  ", width, "");
	for (int i = 1; i < tok->column && line[i - 1]; i++)
		sb_putc(sb, line[i - 1] == '\t' ? '\t' : ' ');
	sb_puts(sb, "^\n");
	free(line);
}

/*
 * KIND: MESSAGE: TOKEN, its source line, the macros it came through; then RELATED (the
 * other place a message names, as in "Expecting lvalue"), if any.  A parse error names
 * the token on a line of its own ("saw: ..."); the others after the message.
 */
void diag_vat(const char *kind, struct token *tok, struct token *related, const char *fmt,
	      va_list ap)
{
	struct strbuf sb = { 0 };
	int width = (int)strlen(kind);	/* labels align under the end of KIND */
	bool own_line = strcmp(kind, "parse error") == 0;

	if (diag_quiet)
		return;
	sb_printf(&sb, "%s: ", kind);
	sb_vprintf(&sb, fmt, ap);
	if (tok) {
		if (own_line)
			sb_printf(&sb, "\n%*s: ", width, tok->kind == TOK_EOF ? "at" : "saw");
		else
			sb_puts(&sb, ": ");
		put_token(&sb, tok);
		put_source(&sb, width, tok);
		/* a token from a macro: where each enclosing macro was invoked */
		int shown = 0, more = 0;

		for (struct token *site = tok->expanded_from; site; site = site->expanded_from) {
			if (shown++ >= MAX_EXPANSIONS_SHOWN) {
				more++;
				continue;
			}
			sb_puts(&sb, "\tin expansion of macro: ");
			put_token(&sb, site);
			put_source(&sb, width, site);
		}
		if (more)
			sb_printf(&sb, "\t(and %d more expansions)\n", more);
		if (related) {
			put_token(&sb, related);
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

void diag_summary(void)
{
	if (diag.suppressed_errors)
		fprintf(stderr, "Number of similar error messages suppressed: %d.\n",
			diag.suppressed_errors);
	if (diag.suppressed_warnings)
		fprintf(stderr, "Number of similar warning messages suppressed: %d.\n",
			diag.suppressed_warnings);
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
		return;
	}
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

void semantic_error_related(struct elaborator *el, struct token *tok, struct token *related,
			    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diagnose_v(el, true, tok, related, fmt, fmt, ap);
	va_end(ap);
}

void semantic_warning(struct elaborator *el, struct token *tok, const char *fmt, ...)
{
	va_list ap;

	if (diag.suppress_warnings && !diag.warnings_as_errors)
		return;
	if (tok && tok->file && tok->file->is_tapset)
		return;		/* about the library, not the user's script: stap says nothing */
	va_start(ap, fmt);
	diagnose_v(el, false, tok, NULL, NULL, fmt, ap);
	va_end(ap);
	if (diag.warnings_as_errors)
		el->errors++;
}
