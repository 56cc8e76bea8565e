/*
 * tokenize.c - pass 1, part 1: script text to a list of tokens.
 *
 * Comments (#, //, / * * /), numbers (decimal, octal, hex), strings with C escapes,
 * identifiers (also $name, @name, $1, $#, $var$$), keywords, every operator, and
 * embedded C %{ %}.  Every token keeps its file, line and column, and whether space
 * came before it (probe point components like sys*call are written without).
 */
#include "stap.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const char *const keywords[] = {
	"probe", "global", "function", "private", "if", "else", "for", "foreach", "in",
	"limit", "return", "delete", "while", "break", "continue", "next", "string",
	"long", "try", "catch", NULL,
};

/* Longest first within a common prefix: the scanner takes the first match. */
static const char *const operators[] = {
	"<<<", ">>>", "<<=", ">>=",
	"%{", "%}", "%(", "%)", "%?", "%:",
	"=~", "!~", "++", "--", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", ".=",
	"<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "->",
	"{", "}", "(", ")", "[", "]", ",", ";", ":", "?",
	"+", "-", "*", "/", "%", "&", "|", "^", "~", "!", "=", "<", ">", ".",
	NULL,
};

/* The operators that begin with C, in the order of operators[] (longest first). */
static const char *const *operators_from(unsigned char c)
{
	static const char *by_first[256][10];	/* 8 share "%", and a NULL ends each */
	static bool made;

	if (!made) {
		for (int i = 0; operators[i]; i++) {
			const char **list = by_first[(unsigned char)operators[i][0]];
			int n = 0;

			while (list[n])
				n++;
			list[n] = operators[i];
		}
		made = true;
	}
	return by_first[c];
}

struct lexer {
	struct source_file *file;
	const char *p;
	int line, column;
	int errors;
	bool space;		/* whitespace or a comment since the last token */
	bool comment;		/* a comment since the last token */
	struct token head, *tail;
};

bool token_is(struct token *tok, const char *text)
{
	return (tok->kind == TOK_OPERATOR || tok->kind == TOK_KEYWORD) &&
	       strcmp(tok->text, text) == 0;
}

/*
 * Tokens live as long as the run (nothing frees one), so they and the spellings of names
 * and operators are cut from large blocks: a script with its macro library makes thousands,
 * and one allocation each was a fifth of a hello world's passes 1-2.
 */
static void *token_memory(size_t size)
{
#ifdef STAP_FUZZING
	return xmalloc(size);	/* xfree_all() frees every allocation after each input */
#else
	static char *block;
	static size_t left;
	void *p;

	size = (size + 7) & ~(size_t)7;
	if (size > left) {
		left = size > 32768 ? size : 32768;
		block = xmalloc(left);	/* each user fills what it takes */
	}
	p = block;
	block += size;
	left -= size;
	return p;
#endif
}

static char *token_text(const char *s, size_t n)
{
	char *text = token_memory(n + 1);

	memcpy(text, s, n);
	text[n] = '\0';
	return text;
}

struct token *copy_token(struct token *tok)
{
	struct token *copy = token_memory(sizeof(*copy));

	*copy = *tok;
	copy->next = NULL;
	return copy;
}

static void advance(struct lexer *lx, size_t n)
{
	while (n-- && *lx->p) {
		if (*lx->p == '\n') {
			lx->line++;
			lx->column = 1;
		} else {
			lx->column++;
		}
		lx->p++;
	}
}

static struct token *new_token(struct lexer *lx, enum token_kind kind, int line, int column)
{
	struct token *tok = token_memory(sizeof(*tok));

	*tok = (struct token){ 0 };
	tok->kind = kind;
	tok->file = lx->file;
	tok->line = line;
	tok->column = column;
	tok->space_before = lx->space;
	tok->comment_before = lx->comment;
	lx->space = lx->comment = false;
	lx->tail->next = tok;
	lx->tail = tok;
	return tok;
}

static void lex_error(struct lexer *lx, struct token *tok, const char *msg)
{
	diag_at("parse error", tok, "%s", msg);
	lx->errors++;
}

/* Skips blanks and comments (an unterminated comment ends with the file, as in stap). */
static void skip_space(struct lexer *lx)
{
	for (;;) {
		if (isspace((unsigned char)*lx->p)) {
			advance(lx, 1);
		} else if (*lx->p == '#' || (lx->p[0] == '/' && lx->p[1] == '/')) {
			while (*lx->p && *lx->p != '\n')
				advance(lx, 1);
			lx->comment = true;
		} else if (lx->p[0] == '/' && lx->p[1] == '*') {
			lx->comment = true;
			advance(lx, 2);
			while (*lx->p && !(lx->p[0] == '*' && lx->p[1] == '/'))
				advance(lx, 1);
			if (*lx->p)
				advance(lx, 2);
		} else {
			return;
		}
		lx->space = true;
	}
}

static int hex_value(char c)
{
	if (isdigit((unsigned char)c))
		return c - '0';
	return tolower((unsigned char)c) - 'a' + 10;
}

/*
 * TEXT gets the value with C escapes decoded; RAW the string as stap keeps and prints it:
 * the escapes C knows left for the compiler, other backslashes dropped (\" is ").
 */
static void lex_string(struct lexer *lx, struct token *tok)
{
	struct strbuf text = { 0 }, raw = { 0 };

	advance(lx, 1);		/* opening quote */
	while (*lx->p && *lx->p != '"') {
		char c = *lx->p;

		if (c != '\\') {
			sb_putc(&text, c);
			sb_putc(&raw, c);
			advance(lx, 1);
			continue;
		}
		advance(lx, 1);
		c = *lx->p;
		/* stap keeps the escapes C knows for the compiler, and drops other backslashes */
		if (c && strchr("abfnrtv\\x01234567", c))
			sb_putc(&raw, '\\');
		if (c)
			sb_putc(&raw, c);
		switch (c) {
		case 'n': sb_putc(&text, '\n'); break;
		case 't': sb_putc(&text, '\t'); break;
		case 'r': sb_putc(&text, '\r'); break;
		case 'a': sb_putc(&text, '\a'); break;
		case 'b': sb_putc(&text, '\b'); break;
		case 'f': sb_putc(&text, '\f'); break;
		case 'v': sb_putc(&text, '\v'); break;
		case '\\': case '"': case '\'': case '?': sb_putc(&text, c); break;
		case 'x': {
			int v = 0, digits = 0;

			while (digits < 2 && isxdigit((unsigned char)lx->p[1])) {
				advance(lx, 1);
				sb_putc(&raw, *lx->p);
				v = v * 16 + hex_value(*lx->p);
				digits++;
			}
			sb_putc(&text, (char)v);
			break;
		}
		case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': {
			int v = c - '0', digits = 1;

			while (digits < 3 && lx->p[1] >= '0' && lx->p[1] <= '7') {
				advance(lx, 1);
				sb_putc(&raw, *lx->p);
				v = v * 8 + (*lx->p - '0');
				digits++;
			}
			sb_putc(&text, (char)v);
			break;
		}
		case '\0':
			continue;
		default:
			sb_putc(&text, c);	/* \. is ., as in the raw form */
		}
		advance(lx, 1);
	}
	if (!*lx->p) {
		tok->kind = TOK_JUNK;
		tok->text = xstrdup("");
		lex_error(lx, tok, "Could not find matching closing quote");
		sb_free(&text);
		sb_free(&raw);
		return;
	}
	advance(lx, 1);		/* closing quote */
	tok->text = sb_steal(&text);
	tok->raw = sb_steal(&raw);
}

/* Integers are 64-bit; values above 2^63 are accepted and wrap, as in SystemTap. */
static void lex_number(struct lexer *lx, struct token *tok)
{
	const char *start = lx->p, *digits = start, *end = start;
	unsigned long long v = 0;
	bool bad = false;
	int base = 10;

	if (start[0] == '0' && (start[1] == 'x' || start[1] == 'X')) {
		base = 16;
		digits = end = start + 2;
	} else if (start[0] == '0') {
		base = 8;
	}
	while (isalnum((unsigned char)*end) || *end == '_')
		end++;		/* the whole word, so the error names it */
	bad = end == digits;
	for (const char *p = digits; p < end && !bad; p++) {
		int d = isdigit((unsigned char)*p) ? *p - '0' :
			isalpha((unsigned char)*p) ? hex_value(*p) : 99;

		if (d >= base || v > (~0ULL - d) / base)
			bad = true;
		else
			v = v * base + d;
	}
	tok->text = xstrndup(start, end - start);
	tok->number = (int64_t)v;
	advance(lx, end - start);
	if (bad)
		lex_error(lx, tok, "number invalid or out of range");
}

static bool is_ident_start(char c)
{
	return isalpha((unsigned char)c) || c == '_' || c == '$' || c == '@';
}

static bool is_ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '$';
}

static void lex_embedded(struct lexer *lx, struct token *tok)
{
	const char *start;

	advance(lx, 2);		/* %{ */
	start = lx->p;
	while (*lx->p && !(lx->p[0] == '%' && lx->p[1] == '}'))
		advance(lx, 1);
	if (!*lx->p) {
		tok->kind = TOK_JUNK;
		tok->text = xstrdup("");
		lex_error(lx, tok, "Could not find matching '%}' to close embedded function block");
		return;
	}
	tok->text = xstrndup(start, lx->p - start);
	advance(lx, 2);		/* %} */
}

struct token *tokenize(struct source_file *file, int *errors)
{
	struct lexer lx = { .file = file, .p = file->text, .line = 1, .column = 1 };

	lx.tail = &lx.head;
	for (skip_space(&lx); *lx.p; skip_space(&lx)) {
		struct token *tok = new_token(&lx, TOK_OPERATOR, lx.line, lx.column);
		char c = *lx.p;

		if (c == '"') {
			tok->kind = TOK_STRING;
			lex_string(&lx, tok);
		} else if (isdigit((unsigned char)c)) {
			tok->kind = TOK_NUMBER;
			lex_number(&lx, tok);
		} else if ((c == '$' || c == '@') && lx.p[1] == '#') {
			tok->kind = TOK_IDENT;
			tok->text = xstrndup(lx.p, 2);
			advance(&lx, 2);
		} else if (is_ident_start(c)) {
			const char *start = lx.p;
			size_t n = 1;

			while (is_ident_char(start[n]))
				n++;
			tok->kind = TOK_IDENT;
			tok->text = token_text(start, n);
			advance(&lx, n);
			for (int i = 0; keywords[i]; i++)
				if (keywords[i][0] == c && strcmp(tok->text, keywords[i]) == 0)
					tok->kind = TOK_KEYWORD;
		} else if (c == '%' && lx.p[1] == '{') {
			tok->kind = TOK_EMBEDDED;
			lex_embedded(&lx, tok);
		} else {
			const char *const *ops = operators_from((unsigned char)c);

			for (int i = 0; ops[i]; i++) {
				const char *op = ops[i];

				if (!op[1] || (op[1] == lx.p[1] && (!op[2] || op[2] == lx.p[2]))) {
					tok->text = token_text(op, strlen(op));
					break;
				}
			}
			if (!tok->text)	/* any other character is an operator of its own, as
					 * in stap: the parser says what it expected instead */
				tok->text = xstrndup(lx.p, 1);
			advance(&lx, strlen(tok->text));
		}
		if (lx.errors > 0 && tok->kind == TOK_JUNK)
			break;	/* an unterminated string or comment ate the rest */
	}
	new_token(&lx, TOK_EOF, lx.line, lx.column)->text = xstrdup("");
	*errors += lx.errors;
	return lx.head.next;
}
