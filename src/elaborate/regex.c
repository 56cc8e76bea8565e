/*
 * regex.c - regular expressions (str =~ "re", str !~ "re"), compiled when the script is
 * translated into the tables runtime/regex.c matches with: pass 2 reports a bad regex,
 * pass 3 writes the tables into the module.
 *
 * The language is POSIX's extended one (egrep's) over bytes, without back-references:
 * alternation |, groups ( ), the closures * + ? {m} {m,} {m,n} (stacked ones apply in
 * turn: a{2}{3} is a{6}), bracket expressions with ranges, negation and the classes
 * [:alpha:] ... (ASCII), [.c.] and [=c=] of one character, . (any byte), and the anchors
 * ^ and $ (of the whole string: no newline mode).  The pattern is read from the string
 * literal as stap keeps it (its raw text): string escapes (\n, \t, \xHH with two hex
 * digits, \ooo with three octal digits, \\) are decoded first, then a backslash makes
 * the next character literal.  Error positions count bytes of that raw text, as stap's
 * "regex compilation error (at position N)" does.
 *
 * What a match is: the leftmost one, and of those starting there the longest (POSIX);
 * its groups are those of the first way of matching exactly that text in the order of
 * preference of a backtracking matcher (the left alternative before the right, a
 * closure taking one more turn before stopping, the last turn's group kept).  That is
 * what Debian's stap 4.8 gives too ("abcd" =~ "(a|ab)(c|bcd)(d*)" has groups "a", "bcd",
 * ""), which is not POSIX's rule for groups (longest first group).
 *
 * How the runtime finds it without backtracking, in time bounded per byte:
 *   1. a DFA of the reversed expression, unanchored, read from the string's end to its
 *      start: the last position where it accepts is where the leftmost match starts
 *      (not needed, and not made, when a match can only start at the string's start);
 *   2. a DFA of the expression, anchored there, read forward: the last position where it
 *      accepts is where the longest match ends;
 *   3. only when the expression has groups: a Pike VM (the forward program's threads in
 *      order of preference, one per instruction, with fixed arrays) over that span, made
 *      to end exactly at its end, gives the groups.
 * Both DFAs are built here by the subset construction, each capped at REGEX_MAX_STATES
 * states (and a bounded amount of work); the runtime needs no allocation: the scratch
 * space of step 3 lives in the probe's context, sized here.
 */
#include "stap.h"

#include <string.h>

#define REGEX_MAX_STATES 2000	/* of each DFA */
#define REGEX_MAX_REPEAT 1000	/* the largest m or n of {m,n} */
#define REGEX_MAX_INSTS 30000	/* program instructions (u16 in the runtime) */
#define REGEX_MAX_DEPTH 100	/* nested groups */
#define REGEX_MAX_CLOSURES 16	/* closures in a row: a*+?{2} is 4 (the nesting bounds the
				 * recursion of compiling) */
#define REGEX_MAX_SCRATCH 32768	/* words of the runtime's scratch space (step 3) */
#define REGEX_WORK_BUDGET 40000000L	/* steps of the DFA construction */

/* ---- the pattern ---- */

/* A character of the decoded pattern and where it starts in the raw text. */
struct rx_char {
	int c;			/* 0..255 */
	int pos;
};

enum rx_kind { RX_EMPTY, RX_SET, RX_CAT, RX_ALT, RX_REPEAT, RX_GROUP, RX_BOL, RX_EOL };

struct rx_node {
	enum rx_kind kind;
	struct rx_node *a;	/* RX_REPEAT, RX_GROUP */
	struct rx_node **kids;	/* RX_CAT, RX_ALT: two or more */
	int nkids;
	int set;		/* RX_SET: index in the set table */
	int min, max;		/* RX_REPEAT: max -1 is no bound */
	int group;		/* RX_GROUP: 1.. */
};

struct rx_set {
	uint32_t bits[8];
};

/* Instructions, shared with runtime/regex.c (enum stp_regex_op). */
enum rx_op { OP_SET, OP_SPLIT, OP_JMP, OP_SAVE, OP_BOL, OP_EOL, OP_MATCH };

struct rx_inst {
	enum rx_op op;
	int x, y;		/* SET: set; SPLIT: x preferred, y; JMP: x; SAVE: slot */
};

struct rx_prog {
	struct rx_inst *inst;
	int n, cap;
};

struct rx_dfa {
	int nstates;		/* state 0 is dead */
	int start[2];		/* away from the string's start, at it */
	uint16_t *next;		/* [state * nclasses + class] */
	uint8_t *accept;	/* bit 0: here, bit 1: here at the string's end */
};

struct regex {
	int ngroups;		/* with group 0 */
	struct rx_set *sets;
	int nsets;
	uint8_t classes[256];	/* byte -> class: bytes no set tells apart share one */
	int nclasses;
	struct rx_prog prog;	/* forward, with the groups' SAVEs: step 3 */
	int nthreads;		/* its SET and MATCH instructions */
	struct rx_dfa fwd, rev;
};

struct rx_parser {
	const char *raw;
	int rawlen;
	struct rx_char *s;
	int n, i;
	int depth;
	struct regex *re;
	struct rx_node **nodes;	/* every node, to free them */
	int nnodes, nodes_cap;
	char *error;
};

static void rx_fail(struct rx_parser *p, int pos, const char *fmt, ...) PRINTF_LIKE(3, 4);

static void rx_fail(struct rx_parser *p, int pos, const char *fmt, ...)
{
	struct strbuf sb = { 0 };
	va_list ap;

	if (p->error)
		return;
	if (pos >= 0)
		sb_printf(&sb, "regex compilation error (at position %d): ", pos);
	else
		sb_puts(&sb, "regex compilation error: ");
	va_start(ap, fmt);
	sb_vprintf(&sb, fmt, ap);
	va_end(ap);
	p->error = sb_steal(&sb);
}

/* Where decoded character K starts in the raw text (the end for K == n). */
static int rx_pos(struct rx_parser *p, int k)
{
	return k < p->n ? p->s[k].pos : p->rawlen;
}

static int rx_last_pos(struct rx_parser *p)
{
	return p->n ? p->s[p->n - 1].pos : 0;
}

static int hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The raw text's string escapes decoded, each character with its raw position. */
static bool rx_decode(struct rx_parser *p)
{
	const char *r = p->raw;
	int i = 0;

	p->s = xcalloc(p->rawlen + 1, sizeof(*p->s));
	while (i < p->rawlen) {
		int start = i, c = (unsigned char)r[i];

		if (c != '\\' || i + 1 >= p->rawlen) {
			i++;
		} else {
			int e = (unsigned char)r[i + 1];
			const char *ctl = strchr("ntrabfv", e);

			if (e && ctl) {
				c = "\n\t\r\a\b\f\v"[ctl - "ntrabfv"];
				i += 2;
			} else if (e == '\\') {
				c = '\\';
				i += 2;
			} else if (e == 'x') {
				int h1 = i + 2 < p->rawlen ? hex_digit(r[i + 2]) : -1;
				int h2 = i + 3 < p->rawlen ? hex_digit(r[i + 3]) : -1;

				if (h1 < 0 || h2 < 0) {
					rx_fail(p, i + 1, "two hex digits required in escape sequence");
					return false;
				}
				c = h1 * 16 + h2;
				i += 4;
			} else if (e >= '0' && e <= '7') {
				int k = 0, v = 0;

				while (k < 3 && i + 1 + k < p->rawlen && r[i + 1 + k] >= '0' &&
				       r[i + 1 + k] <= '7')
					v = v * 8 + (r[i + 1 + k++] - '0');
				if (k < 3) {
					rx_fail(p, i + k, "three octal digits required in escape sequence");
					return false;
				}
				c = v & 0xff;
				i += 4;
			} else {
				i++;	/* not a string escape: the backslash is the regex's */
			}
		}
		p->s[p->n].c = c;
		p->s[p->n].pos = start;
		p->n++;
	}
	return true;
}

/* ---- sets of bytes ---- */

static void set_add(struct rx_set *s, int c)
{
	s->bits[c >> 5] |= 1u << (c & 31);
}

static bool set_has(const struct rx_set *s, int c)
{
	return s->bits[c >> 5] >> (c & 31) & 1;
}

/* The set's index in the table (one entry per distinct set). */
static int set_intern(struct regex *re, const struct rx_set *s)
{
	for (int i = 0; i < re->nsets; i++)
		if (memcmp(&re->sets[i], s, sizeof(*s)) == 0)
			return i;
	re->sets = xrealloc(re->sets, (re->nsets + 1) * sizeof(*re->sets));
	re->sets[re->nsets] = *s;
	return re->nsets++;
}

static const struct {
	const char *name;
	const char *ranges;	/* pairs of first and last byte */
} char_classes[] = {
	{ "alpha", "AZaz" }, { "digit", "09" }, { "alnum", "09AZaz" },
	{ "upper", "AZ" }, { "lower", "az" }, { "space", "\t\r  " }, { "blank", "\t\t  " },
	{ "punct", "!/:@[`{~" }, { "print", " ~" }, { "graph", "!~" },
	{ "cntrl", "\001\037\177\177" }, { "xdigit", "09AFaf" },
};

static bool class_add(struct rx_set *s, const char *name, int len)
{
	for (size_t i = 0; i < sizeof(char_classes) / sizeof(char_classes[0]); i++) {
		const char *r = char_classes[i].ranges;

		if ((int)strlen(char_classes[i].name) != len ||
		    strncmp(char_classes[i].name, name, len) != 0)
			continue;
		for (; *r; r += 2)
			for (int c = (unsigned char)r[0]; c <= (unsigned char)r[1]; c++)
				set_add(s, c);
		if (strcmp(char_classes[i].name, "cntrl") == 0)
			set_add(s, 0);
		return true;
	}
	return false;
}

/* ---- parsing ---- */

static struct rx_node *rx_node(struct rx_parser *p, enum rx_kind kind)
{
	struct rx_node *nd = xcalloc(1, sizeof(*nd));

	if (p->nnodes == p->nodes_cap) {
		p->nodes_cap = p->nodes_cap ? 2 * p->nodes_cap : 32;
		p->nodes = xrealloc(p->nodes, p->nodes_cap * sizeof(*p->nodes));
	}
	p->nodes[p->nnodes++] = nd;
	nd->kind = kind;
	return nd;
}

/* A joined to B by a concatenation or alternation (KIND): a list, so no tree is deep. */
static struct rx_node *rx_join(struct rx_parser *p, enum rx_kind kind, struct rx_node *a,
			       struct rx_node *b)
{
	struct rx_node *nd = a;

	if (a->kind != kind) {
		nd = rx_node(p, kind);
		nd->kids = xmalloc(2 * sizeof(*nd->kids));
		nd->kids[nd->nkids++] = a;
	} else if ((nd->nkids & (nd->nkids - 1)) == 0) {	/* full at a power of two */
		nd->kids = xrealloc(nd->kids, 2 * nd->nkids * sizeof(*nd->kids));
	}
	nd->kids[nd->nkids++] = b;
	return nd;
}

static struct rx_node *rx_set_node(struct rx_parser *p, const struct rx_set *s)
{
	struct rx_node *nd = rx_node(p, RX_SET);

	nd->set = set_intern(p->re, s);
	return nd;
}

static bool at(struct rx_parser *p, int c)
{
	return p->i < p->n && p->s[p->i].c == c;
}

static struct rx_node *parse_alternation(struct rx_parser *p);

/*
 * [.c.] or [=c=] at p->i (which is at the '['): C, or -1 after an error.  Only single
 * characters are collating elements here.
 */
static int parse_collating(struct rx_parser *p)
{
	int kind = p->s[p->i + 1].c, start = p->i, end;

	for (end = p->i + 2; end + 1 < p->n; end++)
		if (p->s[end].c == kind && p->s[end + 1].c == ']')
			break;
	if (end + 1 >= p->n) {
		rx_fail(p, rx_last_pos(p), "unclosed character class");
		return -1;
	}
	if (end != start + 3) {
		rx_fail(p, rx_pos(p, start), "only single characters are supported in [%c%c]",
			kind, kind);
		return -1;
	}
	p->i = end + 2;
	return p->s[start + 2].c;
}

/* A character of a bracket expression, or an end of a range: [.c.], [=c=] or a byte at
 * p->i; -1 after an error. */
static int range_end(struct rx_parser *p)
{
	if (at(p, '[') && p->i + 1 < p->n &&
	    (p->s[p->i + 1].c == '.' || p->s[p->i + 1].c == '='))
		return parse_collating(p);
	return p->s[p->i++].c;
}

/* bracket = "[" "^"? "]"? (char ("-" char)? | "[:" class ":]" | "[." c ".]" | "[=" c "=]")* "]" */
static struct rx_node *parse_bracket(struct rx_parser *p)
{
	struct rx_set set = { { 0 } };
	bool negate = false, first = true;

	p->i++;
	if (at(p, '^')) {
		negate = true;
		p->i++;
	}
	for (;;) {
		int lo, hi;

		if (p->i >= p->n) {
			rx_fail(p, rx_last_pos(p), "unclosed character class");
			return NULL;
		}
		if (at(p, ']') && !first) {
			p->i++;
			break;
		}
		first = false;
		if (at(p, '[') && p->i + 1 < p->n && p->s[p->i + 1].c == ':') {
			int start = p->i + 2, end;

			for (end = start; end + 1 < p->n; end++)
				if (p->s[end].c == ':' && p->s[end + 1].c == ']')
					break;
			if (end + 1 >= p->n) {
				rx_fail(p, rx_last_pos(p), "unclosed character class");
				return NULL;
			}
			char name[16];
			int len = end - start;

			for (int k = 0; k < len && k < (int)sizeof(name) - 1; k++)
				name[k] = (char)p->s[start + k].c;
			name[len < (int)sizeof(name) - 1 ? len : (int)sizeof(name) - 1] = '\0';
			if (len >= (int)sizeof(name) || !class_add(&set, name, len)) {
				struct strbuf sb = { 0 };

				for (int k = start; k < end; k++)
					sb_putc(&sb, (char)p->s[k].c);
				rx_fail(p, -1, "unknown character class '%s'", sb.data ? sb.data : "");
				sb_free(&sb);
				return NULL;
			}
			p->i = end + 2;
			continue;
		}
		lo = hi = range_end(p);
		if (lo < 0)
			return NULL;
		if (at(p, '-') && p->i + 1 < p->n && p->s[p->i + 1].c != ']') {
			p->i++;
			hi = range_end(p);
			if (hi < 0)
				return NULL;
			if (hi < lo) {
				rx_fail(p, rx_pos(p, p->i), "Inverted character range %c-%c", lo, hi);
				return NULL;
			}
		}
		for (int c = lo; c <= hi; c++)
			set_add(&set, c);
	}
	if (negate)
		for (int w = 0; w < 8; w++)
			set.bits[w] = ~set.bits[w];
	return rx_set_node(p, &set);
}

/* A number of a {m,n}: its value (at most REGEX_MAX_REPEAT + 1) and its digits. */
static int parse_count(struct rx_parser *p, struct strbuf *digits)
{
	int v = 0;

	while (p->i < p->n && p->s[p->i].c >= '0' && p->s[p->i].c <= '9') {
		v = v * 10 + (p->s[p->i].c - '0');
		if (v > REGEX_MAX_REPEAT)
			v = REGEX_MAX_REPEAT + 1;
		sb_putc(digits, (char)p->s[p->i].c);
		p->i++;
	}
	return v;
}

static bool is_digit_at(struct rx_parser *p)
{
	return p->i < p->n && p->s[p->i].c >= '0' && p->s[p->i].c <= '9';
}

/* "{" m ("}" | "," "}" | "," n "}"), p->i at the "{": false after an error */
static bool parse_braces(struct rx_parser *p, int *min, int *max)
{
	struct strbuf m = { 0 }, n = { 0 };
	bool ok = false;

	p->i++;
	if (!is_digit_at(p)) {
		rx_fail(p, rx_pos(p, p->i < p->n ? p->i + 1 : p->n), "expected number");
		return false;
	}
	*min = *max = parse_count(p, &m);
	if (p->i >= p->n) {
		rx_fail(p, p->rawlen, "unexpected end of regex");
	} else if (at(p, '}')) {
		p->i++;
		ok = true;
	} else if (at(p, ',')) {
		p->i++;
		if (p->i >= p->n) {
			rx_fail(p, p->rawlen, "expected '}' or number");
		} else if (at(p, '}')) {
			p->i++;
			*max = -1;
			ok = true;
		} else if (is_digit_at(p)) {
			*max = parse_count(p, &n);
			if (p->i >= p->n)
				rx_fail(p, rx_last_pos(p), "expected }, found end of regex");
			else if (!at(p, '}'))
				rx_fail(p, rx_pos(p, p->i), "expected }, found %c", p->s[p->i].c);
			else
				ok = true;
			p->i++;
		} else {
			rx_fail(p, rx_pos(p, p->i), "expected '}' or number");
		}
	} else {
		rx_fail(p, rx_pos(p, p->i), "expected }, found %c", p->s[p->i].c);
	}
	if (ok && *min > REGEX_MAX_REPEAT) {
		rx_fail(p, rx_pos(p, p->i), "%s is too large", m.data);
		ok = false;
	} else if (ok && *max > REGEX_MAX_REPEAT) {
		rx_fail(p, rx_pos(p, p->i), "%s is too large", n.data);
		ok = false;
	} else if (ok && *max >= 0 && *max < *min) {
		rx_fail(p, rx_pos(p, p->i), "inverted repetition range {%d,%d}", *min, *max);
		ok = false;
	}
	sb_free(&m);
	sb_free(&n);
	return ok;
}

static bool is_closure(int c)
{
	return c == '*' || c == '+' || c == '?' || c == '{';
}

/* atom = "(" alternation ")" | bracket | "." | "^" | "$" | "\" char | char */
static struct rx_node *parse_atom(struct rx_parser *p)
{
	struct rx_set set = { { 0 } };
	struct rx_node *nd;
	int c = p->s[p->i].c;

	switch (c) {
	case '(':
		if (p->depth >= REGEX_MAX_DEPTH) {
			rx_fail(p, rx_pos(p, p->i), "more than %d nested groups", REGEX_MAX_DEPTH);
			return NULL;
		}
		p->i++;
		p->depth++;
		nd = rx_node(p, RX_GROUP);
		nd->group = p->re->ngroups++;
		nd->a = parse_alternation(p);
		p->depth--;
		if (p->error)
			return NULL;
		if (p->i >= p->n) {
			rx_fail(p, rx_last_pos(p), "expected ), found end of regex");
			return NULL;
		}
		p->i++;		/* ')' */
		return nd;
	case '[':
		return parse_bracket(p);
	case '.':
		p->i++;
		memset(&set, 0xff, sizeof(set));
		return rx_set_node(p, &set);
	case '^':
		p->i++;
		return rx_node(p, RX_BOL);
	case '$':
		p->i++;
		return rx_node(p, RX_EOL);
	case '\\':
		if (p->i + 1 >= p->n) {
			rx_fail(p, p->rawlen, "unexpected end of regex");
			return NULL;
		}
		p->i++;
		c = p->s[p->i].c;
		break;
	}
	p->i++;
	set_add(&set, c);
	return rx_set_node(p, &set);
}

/* closed = atom ("*" | "+" | "?" | "{" m [","[n]] "}")* */
static struct rx_node *parse_closed(struct rx_parser *p)
{
	struct rx_node *nd;

	if (is_closure(p->s[p->i].c)) {
		rx_fail(p, rx_pos(p, p->i), "unexpected '%c'", p->s[p->i].c);
		return NULL;
	}
	nd = parse_atom(p);
	for (int count = 0; nd && p->i < p->n && is_closure(p->s[p->i].c); count++) {
		int c = p->s[p->i].c, min, max;
		struct rx_node *rep;

		if (count == REGEX_MAX_CLOSURES) {
			rx_fail(p, rx_pos(p, p->i), "more than %d closures in a row",
				REGEX_MAX_CLOSURES);
			return NULL;
		}

		if (nd->kind == RX_BOL || nd->kind == RX_EOL) {
			rx_fail(p, rx_pos(p, p->i),
				"postfix closure '%c' applied to anchoring operator", c);
			return NULL;
		}
		if (c == '{') {
			if (!parse_braces(p, &min, &max))
				return NULL;
		} else {
			p->i++;
			min = c == '+';
			max = c == '?' ? 1 : -1;
		}
		rep = rx_node(p, RX_REPEAT);
		rep->a = nd;
		rep->min = min;
		rep->max = max;
		nd = rep;
	}
	return nd;
}

/* concatenation = closed*  (up to "|", ")" or the end) */
static struct rx_node *parse_concatenation(struct rx_parser *p)
{
	struct rx_node *result = rx_node(p, RX_EMPTY);

	while (!p->error && p->i < p->n && !at(p, '|')) {
		struct rx_node *nd;

		if (at(p, ')')) {
			if (p->depth > 0)
				break;
			rx_fail(p, rx_pos(p, p->i + 1), "unbalanced ')'");
			return NULL;
		}
		nd = parse_closed(p);
		if (!nd)
			return NULL;
		result = result->kind == RX_EMPTY ? nd : rx_join(p, RX_CAT, result, nd);
	}
	return result;
}

/* alternation = concatenation ("|" concatenation)* */
static struct rx_node *parse_alternation(struct rx_parser *p)
{
	struct rx_node *result = parse_concatenation(p);

	while (result && !p->error && at(p, '|')) {
		struct rx_node *right;

		p->i++;
		right = parse_concatenation(p);
		if (!right)
			return NULL;
		result = rx_join(p, RX_ALT, result, right);
	}
	return p->error ? NULL : result;
}

/* ---- programs ---- */

/* Instructions ND compiles to, at most REGEX_MAX_INSTS + 1. */
static long rx_size(struct rx_node *nd)
{
	long a, size;

	switch (nd->kind) {
	case RX_EMPTY:
		return 0;
	case RX_SET: case RX_BOL: case RX_EOL:
		return 1;
	case RX_CAT:
	case RX_ALT:
		size = nd->kind == RX_ALT ? 2 * (nd->nkids - 1) : 0;
		for (int k = 0; k < nd->nkids && size <= REGEX_MAX_INSTS; k++)
			size += rx_size(nd->kids[k]);
		break;
	case RX_GROUP:
		size = rx_size(nd->a) + 2;
		break;
	case RX_REPEAT:
		a = rx_size(nd->a);
		if (nd->max < 0)
			size = a * (nd->min + 1) + 2;
		else
			size = a * nd->max + (nd->max - nd->min);
		break;
	default:
		return 0;
	}
	return size > REGEX_MAX_INSTS ? REGEX_MAX_INSTS + 1 : size;
}

static int add_inst(struct rx_prog *pg, enum rx_op op, int x, int y)
{
	if (pg->n == pg->cap) {
		pg->cap = pg->cap ? 2 * pg->cap : 64;
		pg->inst = xrealloc(pg->inst, pg->cap * sizeof(*pg->inst));
	}
	pg->inst[pg->n].op = op;
	pg->inst[pg->n].x = x;
	pg->inst[pg->n].y = y;
	return pg->n++;
}

/*
 * ND's instructions; REVERSED matches the reversed text (concatenations backwards, ^ and
 * $ swapped, no SAVEs).  A SPLIT's x is the preferred branch: the left alternative, one
 * more turn of a closure.
 */
static void compile_node(struct rx_prog *pg, struct rx_node *nd, bool reversed)
{
	int split, loop, first;

	switch (nd->kind) {
	case RX_EMPTY:
		break;
	case RX_SET:
		add_inst(pg, OP_SET, nd->set, 0);
		break;
	case RX_BOL:
		add_inst(pg, reversed ? OP_EOL : OP_BOL, 0, 0);
		break;
	case RX_EOL:
		add_inst(pg, reversed ? OP_BOL : OP_EOL, 0, 0);
		break;
	case RX_CAT:
		for (int k = 0; k < nd->nkids; k++)
			compile_node(pg, nd->kids[reversed ? nd->nkids - 1 - k : k], reversed);
		break;
	case RX_ALT:
		/* split x=kid0 y=(split x=kid1 y=(... kidN)); each kid but the last jumps to
		 * the end (its JMP's x is -1 until then) */
		first = pg->n;
		for (int k = 0; k < nd->nkids - 1; k++) {
			split = add_inst(pg, OP_SPLIT, pg->n + 1, 0);
			compile_node(pg, nd->kids[k], reversed);
			add_inst(pg, OP_JMP, -1, 0);
			pg->inst[split].y = pg->n;
		}
		compile_node(pg, nd->kids[nd->nkids - 1], reversed);
		for (int k = first; k < pg->n; k++)
			if (pg->inst[k].op == OP_JMP && pg->inst[k].x == -1)
				pg->inst[k].x = pg->n;
		break;
	case RX_GROUP:
		if (!reversed)
			add_inst(pg, OP_SAVE, 2 * nd->group, 0);
		compile_node(pg, nd->a, reversed);
		if (!reversed)
			add_inst(pg, OP_SAVE, 2 * nd->group + 1, 0);
		break;
	case RX_REPEAT:
		for (int k = 0; k < nd->min; k++)
			compile_node(pg, nd->a, reversed);
		if (nd->max < 0) {
			loop = add_inst(pg, OP_SPLIT, 0, 0);
			pg->inst[loop].x = pg->n;
			compile_node(pg, nd->a, reversed);
			add_inst(pg, OP_JMP, loop, 0);
			pg->inst[loop].y = pg->n;
		} else {
			first = pg->n;
			/* (a(a(a)?)?)?: each optional turn's SPLIT skips to the end */
			for (int k = nd->min; k < nd->max; k++) {
				add_inst(pg, OP_SPLIT, pg->n + 1, -1);
				compile_node(pg, nd->a, reversed);
			}
			for (int k = first; k < pg->n; k++)
				if (pg->inst[k].op == OP_SPLIT && pg->inst[k].y == -1)
					pg->inst[k].y = pg->n;
		}
		break;
	}
}

/* ---- DFAs ---- */

struct dfa_builder {
	const struct regex *re;
	const struct rx_prog *pg;
	bool unanchored;	/* a match may start anywhere: the start joins every state */
	struct rx_dfa *dfa;
	int **kernels;		/* per state: its sorted instructions (SET, MATCH, EOL) */
	int *nkernel;
	bool *bol;
	int cap;
	int *table;		/* hash of the states, -1 empty */
	int table_size;
	int *mark, stamp;
	int *stack, *list;
	long work;
	bool too_big;
};

static int compare_ints(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/*
 * The instructions reachable from FROM (N of them) without reading a byte, given whether
 * the position is the string's start (BOL) and end (EOL), that read a byte or end the
 * match, or wait for the end ($ away from it): into b->list, sorted; their number.
 */
static int closure(struct dfa_builder *b, const int *from, int n, bool bol, bool eol)
{
	const struct rx_inst *in = b->pg->inst;
	int sp = 0, count = 0;

	b->stamp++;
	for (int k = n - 1; k >= 0; k--)
		b->stack[sp++] = from[k];
	while (sp > 0) {
		int pc = b->stack[--sp];

		b->work++;
		if (b->mark[pc] == b->stamp)
			continue;
		b->mark[pc] = b->stamp;
		switch (in[pc].op) {
		case OP_JMP:
			b->stack[sp++] = in[pc].x;
			break;
		case OP_SPLIT:
			b->stack[sp++] = in[pc].y;
			b->stack[sp++] = in[pc].x;
			break;
		case OP_SAVE:
			b->stack[sp++] = pc + 1;
			break;
		case OP_BOL:
			if (bol)
				b->stack[sp++] = pc + 1;
			break;
		case OP_EOL:
			if (eol)
				b->stack[sp++] = pc + 1;
			else
				b->list[count++] = pc;
			break;
		case OP_SET: case OP_MATCH:
			b->list[count++] = pc;
			break;
		}
	}
	qsort(b->list, count, sizeof(int), compare_ints);
	return count;
}

static unsigned state_hash(const int *kernel, int n, bool bol)
{
	uint64_t h = hash64(kernel, n * sizeof(int), bol);

	return (unsigned)(h ^ (h >> 32));
}

/* The state of b->list[0..N) (BOL: the string's start), made if new; 0 when empty. */
static int state_of(struct dfa_builder *b, int n, bool bol)
{
	unsigned h = state_hash(b->list, n, bol) & (b->table_size - 1);
	int id;

	if (n == 0)
		return 0;
	for (;; h = (h + 1) & (b->table_size - 1)) {
		id = b->table[h];
		if (id < 0)
			break;
		if (b->nkernel[id] == n && b->bol[id] == bol &&
		    memcmp(b->kernels[id], b->list, n * sizeof(int)) == 0)
			return id;
	}
	if (b->dfa->nstates > REGEX_MAX_STATES) {
		b->too_big = true;
		return 0;
	}
	id = b->dfa->nstates++;
	b->table[h] = id;
	b->kernels[id] = xmalloc((n ? n : 1) * sizeof(int));
	memcpy(b->kernels[id], b->list, n * sizeof(int));
	b->nkernel[id] = n;
	b->bol[id] = bol;
	return id;
}

/* Whether a state accepts here, and at the string's end ($ and what follows it). */
static int state_accept(struct dfa_builder *b, int id)
{
	int flags = 0, n;

	for (int k = 0; k < b->nkernel[id]; k++)
		if (b->pg->inst[b->kernels[id][k]].op == OP_MATCH)
			flags = 3;
	if (flags)
		return flags;
	n = closure(b, b->kernels[id], b->nkernel[id], b->bol[id], true);
	for (int k = 0; k < n; k++)
		if (b->pg->inst[b->list[k]].op == OP_MATCH)
			return 2;
	return 0;
}

/* PG's DFA into DFA; false when it has too many states (or takes too long to build). */
static bool build_dfa(const struct regex *re, const struct rx_prog *pg, bool unanchored,
		      struct rx_dfa *dfa)
{
	struct dfa_builder b = { .re = re, .pg = pg, .unanchored = unanchored, .dfa = dfa };
	int nc = re->nclasses, representative[256], *moves;
	int start = 0;
	bool ok = true;

	b.cap = REGEX_MAX_STATES + 2;
	b.kernels = xcalloc(b.cap, sizeof(*b.kernels));
	b.nkernel = xcalloc(b.cap, sizeof(*b.nkernel));
	b.bol = xcalloc(b.cap, sizeof(*b.bol));
	for (b.table_size = 1; b.table_size < 2 * b.cap; b.table_size *= 2)
		;
	b.table = xmalloc(b.table_size * sizeof(int));
	memset(b.table, 0xff, b.table_size * sizeof(int));
	b.mark = xcalloc(pg->n, sizeof(int));
	b.stack = xmalloc((3 * pg->n + 4) * sizeof(int));	/* what it starts from, and two
								 * per instruction visited */
	b.list = xmalloc((pg->n + 1) * sizeof(int));
	moves = xmalloc((pg->n + 1) * sizeof(int));
	for (int c = 255; c >= 0; c--)
		representative[re->classes[c]] = c;

	dfa->nstates = 1;	/* 0: dead */
	dfa->start[0] = state_of(&b, closure(&b, &start, 1, false, false), false);
	dfa->start[1] = state_of(&b, closure(&b, &start, 1, true, false), true);
	dfa->next = xcalloc((size_t)b.cap * nc, sizeof(*dfa->next));	/* state 0: dead */
	for (int id = 1; id < dfa->nstates && !b.too_big; id++) {
		for (int k = 0; k < nc; k++) {
			int nmoves = 0, c = representative[k];

			for (int j = 0; j < b.nkernel[id]; j++) {
				const struct rx_inst *in = &pg->inst[b.kernels[id][j]];

				b.work++;
				if (in->op == OP_SET && set_has(&re->sets[in->x], c))
					moves[nmoves++] = b.kernels[id][j] + 1;
			}
			if (unanchored)
				moves[nmoves++] = 0;
			dfa->next[(size_t)id * nc + k] =
				(uint16_t)state_of(&b, closure(&b, moves, nmoves, false, false), false);
			if (b.work > REGEX_WORK_BUDGET)
				b.too_big = true;
		}
	}
	if (b.too_big) {
		ok = false;
	} else {
		dfa->next = xrealloc(dfa->next, (size_t)dfa->nstates * nc * sizeof(*dfa->next));
		dfa->accept = xcalloc(dfa->nstates, 1);
		for (int id = 1; id < dfa->nstates; id++)
			dfa->accept[id] = (uint8_t)state_accept(&b, id);
	}
	for (int id = 0; id < dfa->nstates; id++)
		free(b.kernels[id]);
	free(b.kernels);
	free(b.nkernel);
	free(b.bol);
	free(b.table);
	free(b.mark);
	free(b.stack);
	free(b.list);
	free(moves);
	return ok;
}

/* Bytes that no set of the expression tells apart share a class: the DFAs' columns. */
static void byte_classes(struct regex *re)
{
	memset(re->classes, 0, sizeof(re->classes));
	re->nclasses = 1;
	for (int s = 0; s < re->nsets; s++) {
		int remap[256][2], n = 0;

		memset(remap, 0xff, sizeof(remap));
		for (int c = 0; c < 256; c++) {
			int in = set_has(&re->sets[s], c);

			if (remap[re->classes[c]][in] < 0)
				remap[re->classes[c]][in] = n++;
			re->classes[c] = (uint8_t)remap[re->classes[c]][in];
		}
		re->nclasses = n;
	}
}

/* ---- the interface (stap.h) ---- */

size_t regex_scratch_words(const struct regex *re)
{
	size_t ncap, words;

	if (re->ngroups <= 1)
		return 0;
	/* as runtime/regex.c lays it out: two thread lists (an instruction and the groups'
	 * positions each), a mark per instruction, the closure's stack, the positions being
	 * built */
	ncap = 2 * (size_t)(re->ngroups - 1);
	words = 2 * (size_t)re->nthreads * (1 + ncap) + re->prog.n +
		2 * (2 * (size_t)re->prog.n + 2) + ncap;
	return words;
}

int regex_groups(const struct regex *re)
{
	return re->ngroups;
}

void regex_free(struct regex *re)
{
	if (!re)
		return;
	free(re->sets);
	free(re->prog.inst);
	free(re->fwd.next);
	free(re->fwd.accept);
	free(re->rev.next);
	free(re->rev.accept);
	free(re);
}

struct regex *regex_compile(const char *pattern, char **error)
{
	struct rx_parser p = { .raw = pattern, .rawlen = (int)strlen(pattern) };
	struct regex *re = xcalloc(1, sizeof(*re));
	struct rx_node *root = NULL;
	struct rx_prog reversed = { 0 };

	*error = NULL;
	p.re = re;
	re->ngroups = 1;
	if (rx_decode(&p))
		root = parse_alternation(&p);
	if (root && rx_size(root) + 1 > REGEX_MAX_INSTS)
		rx_fail(&p, -1, "'%s' is too large (more than %d instructions)", pattern,
			REGEX_MAX_INSTS);
	if (!p.error) {
		compile_node(&re->prog, root, false);
		add_inst(&re->prog, OP_MATCH, 0, 0);
		compile_node(&reversed, root, true);
		add_inst(&reversed, OP_MATCH, 0, 0);
		for (int k = 0; k < re->prog.n; k++)
			if (re->prog.inst[k].op == OP_SET || re->prog.inst[k].op == OP_MATCH)
				re->nthreads++;
		byte_classes(re);
		/* a match that can only start at the string's start (^...) needs no search */
		if (!build_dfa(re, &re->prog, false, &re->fwd) ||
		    (re->fwd.start[0] && !build_dfa(re, &reversed, true, &re->rev)))
			rx_fail(&p, -1, "'%s' is too complex (its automaton needs more than %d "
				"states)", pattern, REGEX_MAX_STATES);
		else if (regex_scratch_words(re) > REGEX_MAX_SCRATCH)
			rx_fail(&p, -1, "'%s' is too complex (finding its %d groups needs more "
				"than %d bytes)", pattern, re->ngroups - 1, 4 * REGEX_MAX_SCRATCH);
	}
	for (int k = 0; k < p.nnodes; k++) {
		free(p.nodes[k]->kids);
		free(p.nodes[k]);
	}
	free(p.nodes);
	free(p.s);
	free(reversed.inst);
	if (p.error) {
		regex_free(re);
		*error = p.error;
		return NULL;
	}
	return re;
}

/* ---- the tables, as C ---- */

static void emit_numbers(struct strbuf *out, const char *decl, const void *data, size_t n,
			 int width)
{
	sb_printf(out, "%s = {", decl);
	for (size_t k = 0; k < n; k++) {
		unsigned v = width == 1 ? ((const uint8_t *)data)[k] :
			     width == 2 ? ((const uint16_t *)data)[k] : ((const uint32_t *)data)[k];

		sb_printf(out, "%s%u", k % 16 ? ", " : k ? ",\n\t" : "\n\t", v);
	}
	sb_puts(out, n ? "\n};\n" : " 0 };\n");
}

static void emit_dfa(struct strbuf *out, const struct regex *re, const struct rx_dfa *dfa,
		     const char *name, const char *which)
{
	char *decl = xasprintf("static const u16 %s_%s_next[%d]", name, which,
			       dfa->nstates * re->nclasses);

	emit_numbers(out, decl, dfa->next, (size_t)dfa->nstates * re->nclasses, 2);
	free(decl);
	decl = xasprintf("static const u8 %s_%s_accept[%d]", name, which, dfa->nstates);
	emit_numbers(out, decl, dfa->accept, dfa->nstates, 1);
	free(decl);
}

void regex_emit(struct strbuf *out, const struct regex *re, const char *name)
{
	static const char *const ops[] = {
		"STP_REGEX_SET", "STP_REGEX_SPLIT", "STP_REGEX_JMP", "STP_REGEX_SAVE",
		"STP_REGEX_BOL", "STP_REGEX_EOL", "STP_REGEX_MATCH",
	};
	char *decl = xasprintf("static const u8 %s_classes[256]", name);

	emit_numbers(out, decl, re->classes, 256, 1);
	free(decl);
	emit_dfa(out, re, &re->fwd, name, "fwd");
	if (re->rev.nstates)
		emit_dfa(out, re, &re->rev, name, "rev");
	if (re->ngroups > 1) {
		sb_printf(out, "static const u32 %s_sets[%d][8] = {\n", name, re->nsets);
		for (int s = 0; s < re->nsets; s++) {
			sb_puts(out, "\t{ ");
			for (int w = 0; w < 8; w++)
				sb_printf(out, "%s%#xu", w ? ", " : "", re->sets[s].bits[w]);
			sb_puts(out, " },\n");
		}
		sb_puts(out, "};\n");
		sb_printf(out, "static const struct stp_regex_inst %s_prog[%d] = {\n", name,
			  re->prog.n);
		for (int k = 0; k < re->prog.n; k++)
			sb_printf(out, "\t{ %s, %d, %d },\n", ops[re->prog.inst[k].op],
				  re->prog.inst[k].x, re->prog.inst[k].y);
		sb_puts(out, "};\n");
	}
	sb_printf(out, "static const struct stp_regex %s = {\n", name);
	sb_printf(out, "\t.classes = %s_classes, .nclasses = %d,\n", name, re->nclasses);
	sb_printf(out, "\t.fwd = { .next = %s_fwd_next, .accept = %s_fwd_accept, "
		  ".start = { %d, %d } },\n", name, name, re->fwd.start[0], re->fwd.start[1]);
	if (re->rev.nstates)	/* else anchored at the start: no search */
		sb_printf(out, "\t.rev = { .next = %s_rev_next, .accept = %s_rev_accept, "
			  ".start = { %d, %d } },\n", name, name, re->rev.start[0],
			  re->rev.start[1]);
	sb_printf(out, "\t.ngroups = %d,\n", re->ngroups);
	if (re->ngroups > 1)
		sb_printf(out, "\t.prog = %s_prog, .ninsts = %d, .nthreads = %d, .sets = %s_sets,\n",
			  name, re->prog.n, re->nthreads, name);
	sb_puts(out, "};\n\n");
}
