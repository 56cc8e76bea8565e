/*
 * regex_test.c - regular expressions end to end in user space: the translator's compiler
 * (src/elaborate/regex.c) makes the automata, runtime/regex.c runs them.  Cases from the language
 * (with the groups Debian's stap 4.8 gives for them), stap's error messages, the whole
 * match against glibc's regexec() on random expressions, and pathological ones that
 * must stay fast.  Prints PASS/FAIL lines for testsuite/unit.sh.
 */
#define _GNU_SOURCE
#define MAXSTRINGLEN 1024
#define STP_REGEX_GROUPS 8	/* what pass 3 would define for these expressions */
#include "shim.h"

#include "regex.c"

#include "check.h"

/* the translator's side, with what it uses of util.c */
#include "../../src/util.c"
#include "../../src/elaborate/regex.c"

#include <regex.h>
#include <time.h>

void diag_system_warning(const char *fmt, ...)	/* diag.c's, for util.c */
{
	(void)fmt;
}

/* A compiled expression as the module sees it: the translator's tables, converted. */
struct compiled {
	struct regex *re;
	struct stp_regex rt;
	struct stp_regex_inst *prog;
	int *scratch;
};

static bool compile(const char *pattern, struct compiled *c, char **error)
{
	memset(c, 0, sizeof(*c));
	c->re = regex_compile(pattern, error);
	if (!c->re)
		return false;
	c->rt.classes = c->re->classes;
	c->rt.nclasses = c->re->nclasses;
	c->rt.fwd.next = c->re->fwd.next;
	c->rt.fwd.accept = c->re->fwd.accept;
	c->rt.fwd.start[0] = (u16)c->re->fwd.start[0];
	c->rt.fwd.start[1] = (u16)c->re->fwd.start[1];
	c->rt.rev.next = c->re->rev.next;
	c->rt.rev.accept = c->re->rev.accept;
	c->rt.rev.start[0] = (u16)c->re->rev.start[0];
	c->rt.rev.start[1] = (u16)c->re->rev.start[1];
	c->rt.ngroups = c->re->ngroups;
	c->prog = calloc(c->re->prog.n + 1, sizeof(*c->prog));
	for (int k = 0; k < c->re->prog.n; k++) {
		c->prog[k].op = (u16)c->re->prog.inst[k].op;
		c->prog[k].x = (u16)c->re->prog.inst[k].x;
		c->prog[k].y = (u16)c->re->prog.inst[k].y;
	}
	c->rt.prog = c->prog;
	c->rt.ninsts = c->re->prog.n;
	c->rt.nthreads = c->re->nthreads;
	c->rt.sets = (const u32 (*)[8])c->re->sets;
	/* exactly the size pass 3 gives the context: ASan sees an overrun */
	c->scratch = malloc((regex_scratch_words(c->re) + 1) * sizeof(int));
	return true;
}

static void release(struct compiled *c)
{
	regex_free(c->re);
	free(c->prog);
	free(c->scratch);
}

/* "nomatch", or each group as 'text' (or - when it took no part), space-separated */
static char *describe(const struct compiled *c, const char *s, int n, bool ok, const int *pos)
{
	struct strbuf sb = { 0 };

	if (!ok)
		return xstrdup("nomatch");
	for (int g = 0; g < c->rt.ngroups; g++) {
		if (g)
			sb_putc(&sb, ' ');
		if (pos[2 * g] < 0) {
			sb_putc(&sb, '-');
			continue;
		}
		if (pos[2 * g + 1] < pos[2 * g] || pos[2 * g + 1] > n) {
			sb_puts(&sb, "BAD");
			continue;
		}
		sb_putc(&sb, '\'');
		sb_putn(&sb, s + pos[2 * g], pos[2 * g + 1] - pos[2 * g]);
		sb_putc(&sb, '\'');
	}
	return sb_steal(&sb);
}

static char *run(const char *pattern, const char *s)
{
	struct compiled c;
	char *error, *out;
	int pos[2 * 64];
	bool ok;

	if (!compile(pattern, &c, &error))
		return error;
	if (c.rt.ngroups > 64) {
		release(&c);
		return xstrdup("too many groups for the test");
	}
	ok = stp_regex_exec(&c.rt, s, (int)strlen(s), pos, c.scratch);
	out = describe(&c, s, (int)strlen(s), ok, pos);
	release(&c);
	return out;
}

/* pattern (as in the script's literal), subject, expected */
static const char *const cases[][3] = {
	/* Debian's stap 4.8, run in the reference guest */
	{ "str(ing)", "an example string", "'string' 'ing'" },
	{ "(a|ab)(c|bcd)(d*)", "abcd", "'abcd' 'a' 'bcd' ''" },
	{ "(a|b)*", "xyz", "'' -" },
	{ "(a|b)*", "abab", "'abab' 'b'" },
	{ "(ab|a)(bab)?", "abab", "'abab' 'a' 'bab'" },
	{ "(a*)*", "aaa", "'aaa' 'aaa'" },
	{ "(a*)+", "aaa", "'aaa' 'aaa'" },
	{ "(a)|(b)", "ab", "'a' 'a' -" },
	{ "(a)|(b)", "b", "'b' - 'b'" },
	{ "a+b+", "zzaaabbb", "'aaabbb'" },
	{ "^b", "abc", "nomatch" },
	{ "c$", "abc", "'c'" },
	{ "^$", "", "''" },
	{ "a\\\\.b", "a.b", "'a.b'" },
	{ "a\\\\.b", "axb", "nomatch" },
	{ "([0-9]+)[a-z]([[:digit:]]{2,})", "a1b22c333", "'1b22' '1' '22'" },
	{ "([^=]*)=(.*)", "foo=bar", "'foo=bar' 'foo' 'bar'" },
	{ "(a|aXb)(Xb|X)?", "aXbX", "'aXbX' 'aXb' 'X'" },
	{ "(abc){2}", "abcabc", "'abcabc' 'abc'" },
	{ "(ab)+", "xababy", "'abab' 'ab'" },
	{ "abc", "ABC", "nomatch" },
	{ "a|b", "a|b", "'a'" },
	{ "\\t", "tab\there", "'\t'" },
	{ "()", "x", "'' ''" },
	{ "a()b", "ab", "'ab' ''" },
	{ "(a?)(a?)(a?)b", "aab", "'aab' 'a' 'a' ''" },
	{ "[]]", "a]b", "']'" },
	{ "[a-]+", "a-b", "'a-'" },
	{ "a^b", "a^b", "nomatch" },
	{ "a$b", "a$b", "nomatch" },
	{ "a|", "a", "'a'" },
	{ "a|", "b", "''" },
	{ "(a)|b|(c)", "abc", "'a' 'a' -" },
	{ "\\\\(x\\\\)", "(x)", "'(x)'" },
	{ "\\\\\\\\", "x\\y", "'\\'" },
	{ "l{2}", "hello", "'ll'" },
	{ "h.l", "h\xc3\xa9llo", "nomatch" },
	{ "h..l", "h\xc3\xa9llo", "'h\xc3\xa9l'" },
	{ "[[:upper:]]", "abc", "nomatch" },
	{ "[[:space:]]", "x y", "' '" },
	{ "b*", "abc", "''" },
	{ "a{0}", "aa", "''" },
	{ "a[^c]d", "abd", "'abd'" },
	{ "a.b", "a\nb", "'a\nb'" },
	{ "a[^x]b", "a\nb", "'a\nb'" },
	{ "(a|ab)(b*)", "zab", "'ab' 'a' 'b'" },
	{ "(x)(y)?(z)?", "xy", "'xy' 'x' 'y' -" },
	{ "(((a)b)c)", "abc", "'abc' 'abc' 'ab' 'a'" },
	{ "(a|b|c)*(ab)", "abcab", "'abcab' 'c' 'ab'" },
	/* more of the language */
	{ "", "abc", "''" },
	{ "", "", "''" },
	{ "x*", "", "''" },
	{ "^", "abc", "''" },
	{ "$", "abc", "''" },
	{ "^abc$", "abc", "'abc'" },
	{ "^abc$", "abcd", "nomatch" },
	{ "(^a|b)+", "aab", "'a' 'a'" },
	{ "(^|x)a", "za xa", "'xa' 'x'" },
	{ "(^|x)a", "ab", "'a' ''" },
	{ "a($|b)", "ac ab", "'ab' 'b'" },
	{ "a($|b)", "ac a", "'a' ''" },
	{ "(a$)|(a)", "aa", "'a' - 'a'" },
	{ "x+$", "xxaxx", "'xx'" },
	{ "b{2,3}", "abbbbc", "'bbb'" },
	{ "b{2,}", "abbbbc", "'bbbb'" },
	{ "b{,", "x", "regex compilation error (at position 3): expected number" },
	{ "(b{1,2}){2}", "bbbb", "'bbbb' 'bb'" },
	{ "(b{1,2}){2}", "bbb", "'bbb' 'b'" },
	{ "x{2}{3}", "xxxxxxx", "'xxxxxx'" },
	{ "a+?", "aaa", "'aaa'" },
	{ "a**", "baa", "''" },
	{ "[abc]+", "xxcabz", "'cab'" },
	{ "[^abc]+", "abxyzc", "'xyz'" },
	{ "[a-cx-z]+", "dbazyw", "'bazy'" },
	{ "[[:alpha:]_][[:alnum:]_]*", "  foo_1 = 2", "'foo_1'" },
	{ "[[:xdigit:]]+", "0xBeefG", "'0'" },
	{ "0x[[:xdigit:]]+", "0xBeefG", "'0xBeef'" },
	{ "[[:punct:]]+", "ab!?,cd", "'!?,'" },
	{ "[[:blank:]]", "a\tb", "'\t'" },
	{ "[[:cntrl:]]", "a\x01z", "'\x01'" },
	{ "[[:lower:]]+", "ABcdE", "'cd'" },
	{ "[[:print:]]+", "\x01 ab\x02", "' ab'" },
	{ "[[:graph:]]+", " ab c", "'ab'" },
	{ "[[:digit:]-]+", "a1-2b", "'1-2'" },
	{ "[[.a.]-c]+", "xabcd", "'abc'" },
	{ "[[=b=]]", "abc", "'b'" },
	{ "[\\\\]", "a\\b", "'\\'" },
	{ "[.]", "a.b", "'.'" },
	{ "[*+?{]+", "a*+?{b", "'*+?{'" },
	{ "\\\\*", "a*b", "'*'" },
	{ "\\\\|", "a|b", "'|'" },
	{ "\\\\[", "a[b", "'['" },
	{ "\\x41+", "zAAz", "'AA'" },
	{ "\\101+", "zAAz", "'AA'" },
	{ "\\n", "a\nb", "'\n'" },
	{ "(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)(k)", "abcdefghijk",
	  "'abcdefghijk' 'a' 'b' 'c' 'd' 'e' 'f' 'g' 'h' 'i' 'j' 'k'" },
	{ "(a(b)?)+", "aba", "'aba' 'a' 'b'" },
	{ "(a|(b))+", "ba", "'ba' 'a' 'b'" },
	{ "(a*)(a*)", "aaa", "'aaa' 'aaa' ''" },
	{ "(a*?)", "aaa", "'aaa' 'aaa'" },
	{ "(a|aa)*", "aaa", "'aaa' 'a'" },
	{ "(aa|a)*", "aaa", "'aaa' 'a'" },
	{ "(a*)*b", "xaab", "'aab' 'aa'" },
	{ "(.*)/(.*)", "/usr/lib/x.so", "'/usr/lib/x.so' '/usr/lib' 'x.so'" },
	{ "(\\\\.tar\\\\.(gz|bz2|xz)|\\\\.zip|\\\\.tgz|\\\\.tbz)$", "/tmp/a.tar.gz",
	  "'.tar.gz' '.tar.gz' 'gz'" },
	{ "(\\\\.tar\\\\.(gz|bz2|xz)|\\\\.zip|\\\\.tgz|\\\\.tbz)$", "/tmp/a.zip",
	  "'.zip' '.zip' -" },
	{ "(\\\\.tar\\\\.(gz|bz2|xz)|\\\\.zip|\\\\.tgz|\\\\.tbz)$", "/tmp/a.zip.txt",
	  "nomatch" },
	{ "\"quoted\"", "say \"quoted\"", "'\"quoted\"'" },
	/* anchored at the start: no reversed automaton, no search */
	{ "^.{3}(x|y)", "abcyd", "'abcy' 'y'" },
	{ "^.{3}(x|y)", "zabcyd", "nomatch" },
	{ "^(a|b)|^c", "cab", "'c' -" },
	{ "^.{900}x", "abc", "nomatch" },
};

/* pattern, the message stap gives (where it gives one), position and wording */
static const char *const errors[][2] = {
	{ "(", "regex compilation error (at position 0): expected ), found end of regex" },
	{ "((a)", "regex compilation error (at position 3): expected ), found end of regex" },
	{ "\\t(", "regex compilation error (at position 2): expected ), found end of regex" },
	{ "[", "regex compilation error (at position 0): unclosed character class" },
	{ "[a", "regex compilation error (at position 1): unclosed character class" },
	{ "[a-", "regex compilation error (at position 2): unclosed character class" },
	{ "[\\\\", "regex compilation error (at position 1): unclosed character class" },
	{ "[]", "regex compilation error (at position 1): unclosed character class" },
	{ "*a", "regex compilation error (at position 0): unexpected '*'" },
	{ "a(*b)", "regex compilation error (at position 2): unexpected '*'" },
	{ "a|*b", "regex compilation error (at position 2): unexpected '*'" },
	{ "+", "regex compilation error (at position 0): unexpected '+'" },
	{ "?", "regex compilation error (at position 0): unexpected '?'" },
	{ "{1}", "regex compilation error (at position 0): unexpected '{'" },
	{ "[[:foo:]]", "regex compilation error: unknown character class 'foo'" },
	{ "ab[[:foo:]]cd", "regex compilation error: unknown character class 'foo'" },
	{ "a{", "regex compilation error (at position 2): expected number" },
	{ "a{,3}", "regex compilation error (at position 3): expected number" },
	{ "a{x}", "regex compilation error (at position 3): expected number" },
	{ "a{1,2}{", "regex compilation error (at position 7): expected number" },
	{ "a{1", "regex compilation error (at position 3): unexpected end of regex" },
	{ "a{1,2", "regex compilation error (at position 4): expected }, found end of regex" },
	{ "a{1,2x", "regex compilation error (at position 5): expected }, found x" },
	{ "a{3,", "regex compilation error (at position 4): expected '}' or number" },
	{ "a{70000}", "regex compilation error (at position 8): 70000 is too large" },
	{ "a{1,70000}bb", "regex compilation error (at position 10): 70000 is too large" },
	{ "a{2,1}", "regex compilation error (at position 6): inverted repetition range {2,1}" },
	{ "x\\\\", "regex compilation error (at position 3): unexpected end of regex" },
	{ "[z-a]", "regex compilation error (at position 4): Inverted character range z-a" },
	{ "x[z-a]yy", "regex compilation error (at position 5): Inverted character range z-a" },
	{ "[a-\\\\", "regex compilation error (at position 5): Inverted character range a-\\" },
	{ "[a-[:digit:]]", "regex compilation error (at position 4): Inverted character range a-[" },
	{ "^*", "regex compilation error (at position 1): postfix closure '*' applied to "
		"anchoring operator" },
	{ "a$+", "regex compilation error (at position 2): postfix closure '+' applied to "
		 "anchoring operator" },
	{ "a)b", "regex compilation error (at position 2): unbalanced ')'" },
	{ ")a", "regex compilation error (at position 1): unbalanced ')'" },
	{ "a\\1", "regex compilation error (at position 2): three octal digits required in "
		  "escape sequence" },
	{ "a\\12b", "regex compilation error (at position 3): three octal digits required in "
		    "escape sequence" },
	{ "ab\\x4", "regex compilation error (at position 3): two hex digits required in "
		    "escape sequence" },
	{ "[[.ab.]]", "regex compilation error (at position 1): only single characters are "
		      "supported in [..]" },
	/* the automaton's cap */
	{ "(a|b)*a(a|b){12}", "regex compilation error: '(a|b)*a(a|b){12}' is too complex (its "
			      "automaton needs more than 2000 states)" },
};

/* S with its control characters as \ooo: a test's name stays on its line (the
 * patterns are as written in a script, so their backslashes stay as they are) */
static char *printable(const char *s)
{
	struct strbuf sb = { 0 };

	sb_puts(&sb, "");
	for (; *s; s++) {
		if ((unsigned char)*s < 0x20)
			sb_printf(&sb, "\\%03o", (unsigned char)*s);
		else
			sb_putc(&sb, *s);
	}
	return sb_steal(&sb);
}

static void test_cases(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = run(cases[i][0], cases[i][1]);
		char *p = printable(cases[i][0]), *s = printable(cases[i][1]);
		char *e = printable(cases[i][2]);
		char *name = xasprintf("regex \"%s\" on \"%s\" gives %s", p, s, e);

		CHECK(name, strcmp(got, cases[i][2]) == 0);
		if (strcmp(got, cases[i][2]) != 0)
			printf("    got: %s\n", got);
		free(name);
		free(got);
		free(p);
		free(s);
		free(e);
	}
}

static void test_errors(void)
{
	for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++) {
		char *got = run(errors[i][0], "");
		char *p = printable(errors[i][0]);
		char *name = xasprintf("regex \"%s\" is refused: %s", p, errors[i][1]);

		CHECK(name, strcmp(got, errors[i][1]) == 0);
		if (strcmp(got, errors[i][1]) != 0)
			printf("    got: %s\n", got);
		free(name);
		free(got);
		free(p);
	}
}

/* The match state and what matched() reads from it. */
static void test_match_state(void)
{
	struct compiled c;
	struct stp_regex_match m = { 0 };
	char *error, dst[MAXSTRINGLEN], subject[64];

	compile("([a-z]+)=([0-9]*)", &c, &error);
	strcpy(subject, "  key=42 ");
	CHECK("match state: a match", stp_regex_match(&m, &c.rt, subject, c.scratch) && m.ok &&
	      m.ngroups == 3);
	strcpy(subject, "overwritten");	/* the match keeps its own copy */
	CHECK("match state: groups from the match's copy",
	      strcmp(stp_regex_group(&m, 0, dst), "key=42") == 0 &&
	      strcmp(stp_regex_group(&m, 1, dst), "key") == 0 &&
	      strcmp(stp_regex_group(&m, 2, dst), "42") == 0);
	CHECK("match state: a failed match", !stp_regex_match(&m, &c.rt, "nothing", c.scratch) &&
	      !m.ok && m.ngroups == 3);
	release(&c);
	compile("(x)|(y)", &c, &error);
	stp_regex_match(&m, &c.rt, "y", c.scratch);
	CHECK("match state: a group that took no part is \"\"",
	      strcmp(stp_regex_group(&m, 1, dst), "") == 0 &&
	      strcmp(stp_regex_group(&m, 2, dst), "y") == 0);
	release(&c);
}

/* The scratch space pass 3 sizes is what the runtime lays out. */
static void test_scratch(void)
{
	static const char *const patterns[] = { "abc", "(a)", "((a|b)*c){2,5}(d)?", "(((x)))y" };
	bool same = true;

	for (size_t i = 0; i < sizeof(patterns) / sizeof(patterns[0]); i++) {
		struct compiled c;
		char *error;

		compile(patterns[i], &c, &error);
		same &= (size_t)stp_regex_scratch_words(&c.rt) == regex_scratch_words(c.re);
		release(&c);
	}
	CHECK("scratch words: translator and runtime agree", same);
}

/* ---- against glibc: the whole match of random expressions on random strings ---- */

static unsigned int seed = 12345;

static unsigned int rnd(unsigned int n)
{
	seed = seed * 1103515245u + 12345u;
	return (seed >> 16) % n;
}

/* glibc gets anchors inside closures wrong ("aabab" =~ "(^([ab]){0,2}){1,3}" is [0,5)
 * there), so CLOSED keeps them out of closures */
static void random_expression(struct strbuf *sb, int depth, bool closed)
{
	int k = depth > 3 ? rnd(3) : rnd(closed ? 8 : 9);

	switch (k) {
	case 0: sb_putc(sb, "abc"[rnd(3)]); break;
	case 1: sb_puts(sb, rnd(2) ? "[ab]" : "[^a]"); break;
	case 2: sb_putc(sb, rnd(4) ? "ab"[rnd(2)] : '.'); break;
	case 3: case 4:
		random_expression(sb, depth + 1, closed);
		random_expression(sb, depth + 1, closed);
		break;
	case 5:
		sb_putc(sb, '(');
		random_expression(sb, depth + 1, closed);
		sb_putc(sb, '|');
		random_expression(sb, depth + 1, closed);
		sb_putc(sb, ')');
		break;
	case 6: case 7:
		sb_putc(sb, '(');
		random_expression(sb, depth + 1, true);
		sb_putc(sb, ')');
		sb_puts(sb, (const char *[]){ "*", "+", "?", "{2}", "{1,3}", "{0,2}", "{2,}" }[rnd(7)]);
		break;
	default:
		sb_puts(sb, rnd(2) ? "^" : "$");
		break;
	}
}

static void test_against_glibc(void)
{
	int compared = 0, differ = 0;

	for (int i = 0; i < 3000; i++) {
		struct strbuf sb = { 0 };
		struct compiled c;
		regex_t g;
		regmatch_t gm[1];
		char *error, subject[16];
		int pos[2 * 64], n = rnd(12);
		bool ours, theirs;

		random_expression(&sb, 0, false);
		for (int k = 0; k < n; k++)
			subject[k] = "abc"[rnd(3)];
		subject[n] = '\0';
		if (regcomp(&g, sb.data, REG_EXTENDED) != 0) {
			sb_free(&sb);
			continue;
		}
		if (!compile(sb.data, &c, &error)) {
			printf("    ours refuses %s: %s\n", sb.data, error);
			differ++;
			free(error);
			regfree(&g);
			sb_free(&sb);
			continue;
		}
		ours = c.rt.ngroups <= 64 && stp_regex_exec(&c.rt, subject, n, pos, c.scratch);
		theirs = regexec(&g, subject, 1, gm, 0) == 0;
		compared++;
		if (ours != theirs || (ours && (pos[0] != gm[0].rm_so || pos[1] != gm[0].rm_eo))) {
			if (differ++ < 10)
				printf("    \"%s\" =~ \"%s\": ours %d [%d,%d), glibc %d [%d,%d)\n",
				       subject, sb.data, ours, ours ? pos[0] : -1, ours ? pos[1] : -1,
				       theirs, theirs ? (int)gm[0].rm_so : -1,
				       theirs ? (int)gm[0].rm_eo : -1);
		}
		release(&c);
		regfree(&g);
		sb_free(&sb);
	}
	CHECK("3000 random expressions: the leftmost-longest match is glibc's",
	      differ == 0 && compared > 2000);
}

/*
 * ---- against a backtracker on the program: every match and its groups ----
 * Tries the paths in order of preference, each (instruction, position) once: the first
 * path to reach MATCH at END is the one the Pike VM keeps (RE2's "bit state").  With
 * every start and end tried in turn, it is also the leftmost-longest match, found
 * without the DFAs.
 */
struct backtracker {
	const struct regex *re;
	const char *s;
	int n, end;
	bool visited[64][16];
	int caps[2 * 64];
};

static bool backtrack(struct backtracker *bt, int pc, int p)
{
	const struct rx_inst *in = &bt->re->prog.inst[pc];
	int old;

	if (bt->visited[pc][p])
		return false;
	bt->visited[pc][p] = true;
	switch (in->op) {
	case OP_SET:
		return p < bt->end && set_has(&bt->re->sets[in->x], (unsigned char)bt->s[p]) &&
		       backtrack(bt, pc + 1, p + 1);
	case OP_MATCH:
		return p == bt->end;
	case OP_JMP:
		return backtrack(bt, in->x, p);
	case OP_SPLIT:
		return backtrack(bt, in->x, p) || backtrack(bt, in->y, p);
	case OP_SAVE:
		old = bt->caps[in->x];
		bt->caps[in->x] = p;
		if (backtrack(bt, pc + 1, p))
			return true;
		bt->caps[in->x] = old;
		return false;
	case OP_BOL:
		return p == 0 && backtrack(bt, pc + 1, p);
	case OP_EOL:
		return p == bt->n && backtrack(bt, pc + 1, p);
	}
	return false;
}

static void test_against_backtracking(void)
{
	int compared = 0, matched = 0, differ = 0;

	seed = 777;
	for (int i = 0; i < 4000; i++) {
		struct strbuf sb = { 0 };
		struct compiled c;
		struct backtracker bt = { 0 };
		char *error, subject[16], *ours, *theirs;
		int pos[2 * 64], n = rnd(10);
		bool ok, found = false;

		random_expression(&sb, 0, false);
		for (int k = 0; k < n; k++)
			subject[k] = "abc"[rnd(3)];
		subject[n] = '\0';
		if (!compile(sb.data, &c, &error)) {
			free(error);
			sb_free(&sb);
			continue;
		}
		if (c.re->prog.n > 64 || c.rt.ngroups > 64) {
			release(&c);
			sb_free(&sb);
			continue;
		}
		ok = stp_regex_exec(&c.rt, subject, n, pos, c.scratch);
		ours = describe(&c, subject, n, ok, pos);
		bt.re = c.re;
		bt.s = subject;
		bt.n = n;
		for (int start = 0; start <= n && !found; start++) {
			for (bt.end = n; bt.end >= start && !found; bt.end--) {
				memset(bt.visited, 0, sizeof(bt.visited));
				for (int k = 0; k < 2 * 64; k++)
					bt.caps[k] = -1;
				if (backtrack(&bt, 0, start)) {
					found = true;
					bt.caps[0] = start;
					bt.caps[1] = bt.end;
				}
			}
		}
		theirs = describe(&c, subject, n, found, bt.caps);
		compared++;
		matched += found;
		if (strcmp(ours, theirs) != 0 && differ++ < 10)
			printf("    \"%s\" =~ \"%s\": ours %s, backtracking %s\n", subject, sb.data,
			       ours, theirs);
		free(ours);
		free(theirs);
		release(&c);
		sb_free(&sb);
	}
	CHECK("4000 random expressions: matches and groups are the backtracker's",
	      differ == 0 && compared > 3000 && matched > 1000);
}

/* Any pattern: compiled or refused, never a crash; what compiles runs within its scratch
 * space (ASan watches). */
static void test_garbage(void)
{
	static const char alphabet[] = "()[]{}|*+?^$.\\-,:=.019ab";
	int compiled = 0;

	seed = 31337;
	for (int i = 0; i < 20000; i++) {
		char pattern[24], subject[16];
		int len = rnd(sizeof(pattern)), n = rnd(sizeof(subject)), pos[2 * 64];
		struct compiled c;
		char *error;

		for (int k = 0; k < len; k++)
			pattern[k] = alphabet[rnd(sizeof(alphabet) - 1)];
		pattern[len] = '\0';
		for (int k = 0; k < n; k++)
			subject[k] = "ab0.[-"[rnd(6)];
		subject[n] = '\0';
		if (!compile(pattern, &c, &error)) {
			free(error);
			continue;
		}
		compiled++;
		if (c.rt.ngroups <= 64)
			stp_regex_exec(&c.rt, subject, n, pos, c.scratch);
		release(&c);
	}
	CHECK("20000 patterns of random syntax: compiled or refused, and run", compiled > 100);
}

/* ---- pathological expressions stay linear ---- */

static double seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void test_pathological(void)
{
	static const char *const patterns[] = {
		"(a*)*b", "(a|aa)*c", "(a+a+)+b", "((a*)*|b)*c", "(x+x+)+y", "(a|a?)+$b",
		"(a*)*(b*)*(c*)*d", "(.*)(.*)(.*)(.*)(.*)z",
	};
	enum { N = 100000 };
	char *s = malloc(N + 1);
	double worst = 0;
	bool right = true;

	memset(s, 'a', N);
	s[N] = '\0';
	for (size_t i = 0; i < sizeof(patterns) / sizeof(patterns[0]); i++) {
		struct compiled c;
		char *error;
		int pos[2 * 8];
		double t0, t;

		if (!compile(patterns[i], &c, &error)) {
			printf("    %s: %s\n", patterns[i], error);
			right = false;
			continue;
		}
		t0 = seconds();
		right &= !stp_regex_exec(&c.rt, s, N, pos, c.scratch);
		s[N - 1] = 'z';	/* a match at the very end: the group pass runs on it all */
		stp_regex_exec(&c.rt, s, N, pos, c.scratch);
		s[N - 1] = 'a';
		t = seconds() - t0;
		if (t > worst)
			worst = t;
		release(&c);
	}
	free(s);
	CHECK("pathological expressions on 100000 bytes: no match, each in under 2 s",
	      right && worst < 2.0);
}

/* The tables as C: what pass 3 writes. */
static void test_emit(void)
{
	struct compiled c;
	struct strbuf out = { 0 };
	char *error;

	compile("(a|b)c", &c, &error);
	regex_emit(&out, c.re, "stp_regex_7");
	CHECK("emitted tables name the expression and its parts",
	      strstr(out.data, "static const struct stp_regex stp_regex_7 = {") &&
	      strstr(out.data, "static const u16 stp_regex_7_fwd_next[") &&
	      strstr(out.data, "static const u16 stp_regex_7_rev_next[") &&
	      strstr(out.data, "static const struct stp_regex_inst stp_regex_7_prog[") &&
	      strstr(out.data, ".ngroups = 2,"));
	sb_free(&out);
	release(&c);
	compile("abc", &c, &error);
	regex_emit(&out, c.re, "stp_regex_0");
	CHECK("an expression without groups has no program", !strstr(out.data, "_prog"));
	sb_free(&out);
	release(&c);
}

int main(void)
{
	(void)stp_soft_error;	/* the shim's; the matcher raises no errors */
	test_cases();
	test_errors();
	test_match_state();
	test_scratch();
	test_against_glibc();
	test_against_backtracking();
	test_garbage();
	test_pathological();
	test_emit();
	printf("unit finished\n");
	return failures != 0;
}
