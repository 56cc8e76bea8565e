/*
 * dwarf_pattern.c - probe point patterns (func@file:N...) and what they match.
 *
 * A pattern is func[@file[:N | :N-M | :N,M-O | :* | +N]] (stapprobes(3stap)): the
 * function is a glob; the file a glob matched as is or after any leading folders
 * ("read_write.c" matches fs/read_write.c); lines are absolute, or relative to the
 * function's declaration with '+'.
 */
#include "dw.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

static bool parse_line_number(const char **p, int *out)
{
	char *end;
	long n = strtol(*p, &end, 10);

	if (end == *p || n < 0 || n > 100000000)
		return false;
	*out = (int)n;
	*p = end;
	return true;
}

/* ":N", ":N-M", ":N,M-O", ":*" after the file; "+N" relative to the declaration */
static bool parse_lines(struct dw_pattern *pat, const char *p)
{
	if (*p == '+') {
		pat->lines = DW_LINES_RELATIVE;
		pat->ranges = xcalloc(1, sizeof(*pat->ranges));
		pat->nranges = 1;
		p++;
		return parse_line_number(&p, &pat->ranges[0][0]) && !*p;
	}
	p++;	/* ':' */
	if (strcmp(p, "*") == 0) {
		pat->lines = DW_LINES_ALL;
		return true;
	}
	pat->lines = DW_LINES_ABSOLUTE;
	for (;;) {
		int from, to;

		if (!parse_line_number(&p, &from))
			return false;
		to = from;
		if (*p == '-') {
			p++;
			if (!parse_line_number(&p, &to) || to < from)
				return false;
		}
		pat->ranges = xrealloc(pat->ranges, (pat->nranges + 1) * sizeof(*pat->ranges));
		pat->ranges[pat->nranges][0] = from;
		pat->ranges[pat->nranges][1] = to;
		pat->nranges++;
		if (!*p)
			return true;
		if (*p++ != ',')
			return false;
	}
}

struct dw_pattern *dw_parse_pattern(const char *text, char **error)
{
	struct dw_pattern *pat = xcalloc(1, sizeof(*pat));
	const char *at = strchr(text, '@');
	const char *lines;

	*error = NULL;
	pat->function = at ? xstrndup(text, at - text) : xstrdup(text);
	if (!at)
		return pat;
	/* the line part starts at the last ':' or '+' followed by a number or '*' */
	lines = NULL;
	for (const char *p = at + 1; *p; p++)
		if ((*p == ':' || *p == '+') &&
		    ((p[1] >= '0' && p[1] <= '9') || (*p == ':' && p[1] == '*')))
			lines = p;
	pat->file = lines ? xstrndup(at + 1, lines - at - 1) : xstrdup(at + 1);
	if (!*pat->function)
		*error = xasprintf("invalid function pattern '%s'", text);
	else if (lines && !parse_lines(pat, lines))
		*error = xasprintf("invalid line number in '%s'", text);
	else if (!lines && strpbrk(at + 1, ":+") && strpbrk(at + 1, ":+")[1])
		*error = xasprintf("invalid line number in '%s'", text);
	return pat;
}

bool dw_file_matches(const char *pattern, const char *file)
{
	char *anywhere;
	bool match;

	if (!file)
		return false;
	if (fnmatch(pattern, file, 0) == 0)
		return true;
	anywhere = xasprintf("*/%s", pattern);
	match = fnmatch(anywhere, file, 0) == 0;
	free(anywhere);
	return match;
}

bool dw_line_wanted(const struct dw_pattern *pat, int line, int decl_line)
{
	switch (pat->lines) {
	case DW_LINES_NONE:
	case DW_LINES_ALL:
		return true;
	case DW_LINES_RELATIVE:
		return line == decl_line + pat->ranges[0][0];
	case DW_LINES_ABSOLUTE:
		for (int i = 0; i < pat->nranges; i++)
			if (pat->ranges[i][0] <= line && line <= pat->ranges[i][1])
				return true;
		return false;
	}
	return false;
}
