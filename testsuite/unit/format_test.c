/*
 * format_test.c - unit tests of runtime/format.c (stap's printf language) in user space.
 * Expected strings come from C's printf where stap's printf matches C (decimal, octal and
 * hex with a flag, width and precision; %s; %c), and from stap's documentation and stap
 * 4.8's output in the guest where it differs (%p, %b, %m, %M, %#c; a 0 with precision 0,
 * '0' with a precision, '#' with octal, a 0 after a flag, negative '*' values, printf's
 * 8192 bytes).  Prints PASS/FAIL lines for testsuite/unit.sh.
 */
#define UNIT_FORMAT
#include "shim.h"

#include <stdlib.h>

#include "format.c"

#include "check.h"

#define L(x) ((union stp_format_arg){ .l = (x) })
#define S(x) ((union stp_format_arg){ .s = (x) })
#define NARGS(a) ((int)(sizeof(a) / sizeof((a)[0])))

static char out[1024];
static size_t outlen;

/* stp_format into OUT with the arguments given; true when it wrote exactly WANT. */
#define FMT_IS(want, f, ...)                                                         \
	({                                                                           \
		union stp_format_arg a_[] = { __VA_ARGS__ };                         \
		outlen = stp_format(out, sizeof(out), f, a_, NARGS(a_));             \
		show(want, sizeof(want) - 1);                                        \
	})

/* Compares OUT with WANT (LEN bytes, NULs allowed) and says what differed. */
static bool show(const char *want, size_t len)
{
	if (outlen == len && memcmp(out, want, len) == 0 && out[outlen] == '\0')
		return true;
	printf("    got %zu bytes \"%.*s\", want %zu bytes \"%.*s\"\n", outlen, (int)outlen,
	       out, len, (int)len, want);
	return false;
}

/* stap's "%<spec>d" for one long, against C's "%<spec>lld". */
static int compare_long(const char *spec, char conv, s64 v)
{
	char sfmt[32], cfmt[32], want[256];
	union stp_format_arg a = L(v);
	size_t n;

	if (v == 0 && strchr(spec, '#') && (conv == 'x' || conv == 'X'))
		return 0;	/* stap writes 0x0 where C writes 0 (test_stap_numbers) */
	if (strchr(spec, '#') && conv == 'o')
		return 0;	/* and 00 where C writes 0, 0001 for %#.3o of 1 */
	if (v == 0 && strstr(spec, ".0"))
		return 0;	/* and a 0 where C writes nothing */
	snprintf(sfmt, sizeof(sfmt), "[%%%s%c]", spec, conv);
	snprintf(cfmt, sizeof(cfmt), "[%%%sll%c]", spec, conv);
	if (conv == 'd' || conv == 'i')
		snprintf(want, sizeof(want), cfmt, (long long)v);
	else
		snprintf(want, sizeof(want), cfmt, (unsigned long long)v);
	n = stp_format(out, sizeof(out), sfmt, &a, 1);
	if (n == strlen(want) && strcmp(out, want) == 0)
		return 0;
	printf("    %s of %lld: got \"%s\", C gives \"%s\"\n", sfmt, (long long)v, out, want);
	return 1;
}

/* one flag at most (pass 1 refuses more); no 0 after a flag, no '0' with a precision */
static const char *const specs[] = {
	"", "-", "+", " ", "#", "0", "5", "-5", "+5", " 5", "05", "#5", "-8", ".0", ".1",
	".3", ".25", "8.3", "-8.3", "+.3", " .0", "#.0", "#.3", "-10.4", "1", "30", "030",
	"-30", "#30", "+30", ".5",
};
static const s64 values[] = {
	0, 1, -1, 7, 8, 9, 10, 42, -42, 255, 256, 4095, 0x1234abcd, -0x1234abcd,
	INT64_MAX, INT64_MIN, INT64_MIN + 1, 1000000007, -999999999999LL, 0x7fffffff,
	0x80000000LL, 0xffffffffLL, 0x100000000LL,
};

static void test_numbers_like_c(void)
{
	static const char convs[] = "diuoxX";
	const char *c;
	size_t i, j;

	for (c = convs; *c; c++) {
		int bad = 0;
		char name[64];

		for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
			for (j = 0; j < sizeof(values) / sizeof(values[0]); j++)
				bad += compare_long(specs[i], *c, values[j]);
		snprintf(name, sizeof(name), "%%%c with every flag/width/precision as C", *c);
		CHECK(name, bad == 0);
	}
}

static void test_numbers(void)
{
	CHECK("INT64_MIN in decimal", FMT_IS("-9223372036854775808", "%d", L(INT64_MIN)));
	CHECK("INT64_MIN with %i and a sign flag",
	      FMT_IS("-9223372036854775808", "%+i", L(INT64_MIN)));
	CHECK("negative %u is the 64-bit unsigned value",
	      FMT_IS("18446744073709551615", "%u", L(-1)));
	CHECK("negative %x / %X / %o are 64-bit",
	      FMT_IS("ffffffffffffffff FFFFFFFFFFFFFFFF 1777777777777777777777", "%x %X %o",
		     L(-1), L(-1), L(-1)));
	CHECK("man stap: %#o %#x %#X", FMT_IS("01 0x2 0X3\n", "%#o %#x %#X\n", L(1), L(2), L(3)));
	CHECK("stap: %#o of zero is 00", FMT_IS("00 00\n", "%#o %#1o\n", L(0), L(0)));
	CHECK("%#x of 0 is 0x0 (as Debian's stap 4.8 prints it)", FMT_IS("0x0", "%#x", L(0)));
	CHECK("langref examples of d i o u x X",
	      FMT_IS("392 392 610 7235 7fa 7FA", "%d %i %o %u %x %X", L(392), L(392), L(392),
		     L(7235), L(2042), L(2042)));
	CHECK("zero padding goes after the sign", FMT_IS("-0042", "%05d", L(-42)));
	CHECK("length modifier l is accepted and changes nothing",
	      FMT_IS("-5 18446744073709551611 fffffffffffffffb", "%ld %lu %lx", L(-5), L(-5),
		     L(-5)));
}

/* Where stap 4.8 is not C: each as it printed in the guest. */
static void test_stap_numbers(void)
{
	CHECK("a 0 with precision 0 is written",
	      FMT_IS("[0|    0|0    |00000|+0| 0|0x0|0X0]", "[%.0d|%5.0d|%-5.0d|%05.0d|%+.0d|% .0d|"
		     "%#.0x|%#.0X]", L(0), L(0), L(0), L(0), L(0), L(0), L(0), L(0)));
	CHECK("'0' pads to the width with a precision too",
	      FMT_IS("[00001|-0001|00001|000007]", "[%05.2d|%05.2d|%05.3x|%0*.*d]", L(1), L(-1),
		     L(1), L(6), L(2), L(7)));
	CHECK("'#' puts its 0 before an octal number's precision zeros",
	      FMT_IS("[0001|00|   00|      00|  010]", "[%#.3o|%#.0o|%#5.0o|%#8o|%#5o]", L(1),
		     L(0), L(0), L(0), L(8)));
	CHECK("a 0 after a flag begins the width",
	      FMT_IS("[   +1|    0xff|    3|  010|     -7|1    ]",
		     "[%+05d|%#08x|% 05d|%#05o|%#07d|%-05d]", L(1), L(255), L(3), L(8), L(-7),
		     L(1)));
	CHECK("a second flag is not a flag", FMT_IS("%-+5d", "%-+5d", L(1)));
}

static void test_star(void)
{
	CHECK("* width", FMT_IS("[   42]", "[%*d]", L(5), L(42)));
	CHECK("* width with -", FMT_IS("[42   ]", "[%-*d]", L(5), L(42)));
	CHECK("a negative * width counts as none",
	      FMT_IS("[42|42|ab|5]", "[%*d|%-*d|%*s|%0*d]", L(-5), L(42), L(-5), L(42), L(-5),
		     S("ab"), L(-6), L(5)));
	CHECK("* precision", FMT_IS("[007]", "[%.*d]", L(3), L(7)));
	CHECK("a negative * precision counts as 0",
	      FMT_IS("[0|42||      ]", "[%.*d|%.*d|%.*s|%*.*s]", L(-1), L(0), L(-3), L(42),
		     L(-1), S("abc"), L(6), L(-2), S("abcd")));
	CHECK("* width and * precision", FMT_IS("[     007]", "[%*.*d]", L(8), L(3), L(7)));
	CHECK("* precision on %s", FMT_IS("[ab]", "[%.*s]", L(2), S("abcdef")));
	CHECK("* then more conversions", FMT_IS("  x|9", "%*s|%d", L(3), S("x"), L(9)));
}

static void test_pointer(void)
{
	/* as stap(1)'s example and Debian's stap 4.8 print them: no zero padding */
	CHECK("%p is 0x and the hex digits", FMT_IS("0xbc614e", "%p", L(12345678)));
	CHECK("%p of 0", FMT_IS("0x0", "%p", L(0)));
	CHECK("%p of a kernel address",
	      FMT_IS("0xffffffff81000000", "%p", L(0xffffffff81000000LL)));
	CHECK("%p with a wider width pads with spaces",
	      FMT_IS("      0xff", "%10p", L(255)));
	CHECK("%p with a narrow width", FMT_IS("0x1234abcd", "%4p", L(0x1234abcd)));
	CHECK("%-p pads with spaces on the right",
	      FMT_IS("[0x1234abcd  ]", "[%-12p]", L(0x1234abcd)));
	CHECK("%lp", FMT_IS("0x10", "%lp", L(16)));
}

static void test_strings(void)
{
	static const char *const sspecs[] = {
		"", "-", "10", "-10", ".0", ".3", "10.3", "-10.3", "2", ".20", "-1",
	};
	static const char *const strs[] = { "", "a", "hello", "hello, world" };
	size_t i, j;
	int bad = 0;

	for (i = 0; i < sizeof(sspecs) / sizeof(sspecs[0]); i++) {
		for (j = 0; j < sizeof(strs) / sizeof(strs[0]); j++) {
			char f[16], want[64];
			union stp_format_arg a = S(strs[j]);

			snprintf(f, sizeof(f), "<%%%ss>", sspecs[i]);
			snprintf(want, sizeof(want), f, strs[j]);
			outlen = stp_format(out, sizeof(out), f, &a, 1);
			if (!show(want, strlen(want)))
				bad++;
		}
	}
	CHECK("%s with width, precision and - as C", bad == 0);
	CHECK("%-10s pads right", FMT_IS("ab        |", "%-10s|", S("ab")));
	CHECK("%s precision truncates", FMT_IS("hel", "%.3s", S("hello")));
	CHECK("%s of NULL prints nothing", FMT_IS("[]", "[%s]", S(NULL)));
	CHECK("%ls", FMT_IS("x", "%ls", S("x")));
}

static void test_chars(void)
{
	CHECK("man stap example line",
	      FMT_IS("a is alice; 1234abcd or 1234ABCD or 0x1234abcd; -1 or "
		     "18446744073709551615\n",
		     "%c is %s; %x or %X or %p; %d or %u\n", L(97), S("alice"), L(0x1234abcd),
		     L(0x1234abcd), L(0x1234abcd), L(-1), L(-1)));
	CHECK("%c with width", FMT_IS("[    x][x    ]", "[%5c][%-5c]", L('x'), L('x')));
	CHECK("%c of 0 writes a NUL byte, counted", FMT_IS("a\0b", "a%cb", L(0)));
	CHECK("%c takes the low byte", FMT_IS("A", "%c", L(0x141)));
	CHECK("man stap: %#c escapes", FMT_IS("\\000 \\t *\n", "%#c %#c %#c\n", L(0), L(9), L(42)));
	CHECK("%#c C escapes (not of \", as stap)",
	      FMT_IS("\\a\\b\\f\\n\\r\\v\\\\\\'\"", "%#c%#c%#c%#c%#c%#c%#c%#c%#c", L(7), L(8),
		     L(12), L(10), L(13), L(11), L('\\'), L('\''), L('"')));
	CHECK("%#c octal for other bytes", FMT_IS("\\310\\177\\001", "%#c%#c%#c", L(200), L(127),
						     L(1)));
	CHECK("%#c with width", FMT_IS("[  \\n]", "[%#4c]", L('\n')));
}

static void test_binary(void)
{
	CHECK("langref: %1b Hello World",
	      FMT_IS("Hello World\n", "%1b%1b%1blo %1b%1brld\n", L(72), L(101), L(108), L(87),
		     L(111)));
	CHECK("langref: %b%b is 8 bytes each, little-endian",
	      FMT_IS("\xad\xdb\xde\xc0\0\0\0\0\x78\x56\x34\x12\0\0\0\0", "%b%b", L(0xc0dedbad),
		     L(0x12345678)));
	CHECK("%1b %2b %4b %8b widths",
	      FMT_IS("\x01|\x01\x02|\x01\x02\x03\x04|\x01\x02\x03\x04\x05\x06\x07\x08",
		     "%1b|%2b|%4b|%8b", L(0x0807060504030201LL), L(0x0807060504030201LL),
		     L(0x0807060504030201LL), L(0x0807060504030201LL)));
	CHECK("%3b (not a valid width) writes 8 bytes",
	      FMT_IS("\xff\xff\xff\xff\xff\xff\xff\xff", "%3b", L(-1)));
	CHECK("%-4b ignores the flag", FMT_IS("AB\0\0", "%-4b", L(0x4241)));
}

static void test_memory(void)
{
	static const char mem[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
				  "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
	s64 addr = (s64)(uintptr_t)mem;
	struct context c = { 0 };
	char want[512];
	size_t i;

	CHECK("%m reads 1 byte by default", FMT_IS("[A]", "[%m]", L(addr)));
	CHECK("%.4m reads 4 bytes", FMT_IS("[ABCD]", "[%.4m]", L(addr)));
	CHECK("%10.4m: 4 bytes in a 10-wide field", FMT_IS("[      ABCD]", "[%10.4m]", L(addr)));
	CHECK("%-10.4m", FMT_IS("[ABCD      ]", "[%-10.4m]", L(addr)));
	CHECK("%.0m reads nothing", FMT_IS("[]", "[%.0m]", L(0)));
	CHECK("%M hex-dumps 1 byte by default", FMT_IS("[41]", "[%M]", L(addr)));
	CHECK("%10.4M: 8 hex digits in a 10-wide field",
	      FMT_IS("[  41424344]", "[%10.4M]", L(addr)));
	CHECK("%-10.4M", FMT_IS("[41424344  ]", "[%-10.4M]", L(addr)));
	CHECK("%.*M hex-dumps a given number of bytes", FMT_IS("4142", "%.*M", L(2), L(addr)));
	CHECK("%M of bytes above 0x7f is lowercase hex",
	      FMT_IS("ff80", "%.2M", L((s64)(uintptr_t)"\xff\x80")));

	/* longer than one chunk */
	for (i = 0; i < 100; i++)
		snprintf(want + 2 * i, 3, "%02x", (unsigned char)mem[i]);
	outlen = stp_format(out, sizeof(out), "%.100M", (union stp_format_arg[]){ L(addr) }, 1);
	CHECK("%.100M spans several reads", show(want, 200));
	outlen = stp_format(out, sizeof(out), "%.100m", (union stp_format_arg[]){ L(addr) }, 1);
	CHECK("%.100m spans several reads", show(mem, 100));

	stp_unit_context = &c;
	CHECK("%m at a bad address writes nothing and the rest goes on",
	      FMT_IS("[]|7", "[%5.4m]|%d", L(0), L(7)));
	CHECK("... and is a soft error of the running handler",
	      c.last_error && strcmp(c.last_error, "read fault [man error::fault] at 0x0") == 0);
	c = (struct context){ 0 };
	CHECK("%M at a bad address", FMT_IS("x", "%.2Mx", L(16)) && c.last_error &&
	      strcmp(c.last_error,
		     "read fault [man error::fault] at 0x10") == 0);
	c = (struct context){ 0 };
	stp_unit_fault_at = (uintptr_t)mem + 40;
	outlen = stp_format(out, sizeof(out), "%.60m|", (union stp_format_arg[]){ L(addr) }, 1);
	CHECK("a fault after the first read stops the conversion there",
	      show("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef|", 33) && c.last_error &&
	      strstr(c.last_error, "read fault [man error::fault] at 0x"));
	stp_unit_fault_at = 0;
	c = (struct context){ 0 };
	stp_unit_user_reads = 0;
	CHECK("%#m reads user memory", FMT_IS("AB", "%#.2m", L(addr)) && stp_unit_user_reads == 1);
	CHECK("%#M at a bad address is a user read fault",
	      FMT_IS("", "%#M", L(8)) && c.last_error &&
	      strcmp(c.last_error,
		     "user read fault [man error::fault] at 0x8") == 0);
	stp_unit_context = NULL;
	CHECK("a bad address with no running handler", FMT_IS("-", "%m-", L(0)));
}

static void test_percent_and_oddities(void)
{
	CHECK("%%", FMT_IS("100%", "100%%"));
	CHECK("%% between conversions", FMT_IS("1%2", "%d%%%d", L(1), L(2)));
	CHECK("a lone % at the end", FMT_IS("abc%", "abc%"));
	CHECK("a lone % with flags at the end", FMT_IS("abc%-5", "abc%-5"));
	CHECK("an unknown conversion is written as it stands", FMT_IS("%y|%5q", "%y|%5q"));
	CHECK("missing arguments give 0 and \"\"",
	      stp_format(out, sizeof(out), "%d|%s|%x", NULL, 0) == 4 && !strcmp(out, "0||0"));
	CHECK("empty format", FMT_IS("", ""));
	CHECK("text only", FMT_IS("plain text\n", "plain text\n"));
}

static void test_truncation(void)
{
	char small[8];
	union stp_format_arg a[] = { S("hello world"), L(123456) };
	union stp_format_arg b[] = { L(0x4142434445464748LL) };
	static char big[STP_FORMAT_MAX_FIELD + 100];

	memset(small, 'Z', sizeof(small));
	CHECK("truncated to size, NUL-terminated",
	      stp_format(small, 5, "%s %d", a, 2) == 4 && !strcmp(small, "hell") &&
	      small[5] == 'Z');
	CHECK("size 1 gives an empty string", stp_format(small, 1, "%s", a, 1) == 0 && !small[0]);
	CHECK("truncation inside a number", stp_format(small, 4, "%d", a + 1, 1) == 3 &&
	      !strcmp(small, "123"));
	CHECK("a width past the room is the room (stap's), then truncated",
	      stp_format(small, 6, "%20d", a + 1, 1) == 5 && !strcmp(small, "12345") &&
	      stp_format(small, 8, "%s%7d", a, 2) == 7 && !strcmp(small, "hello w") &&
	      stp_format(small, 8, "%.1s%20d", a, 2) == 7 && !strcmp(small, "h 12345"));
	CHECK("sprintf of MAXSTRINGLEN as stap 4.8's: the digits kept, one cut for the NUL",
	      stp_format(big, 512, "%s%600d", (union stp_format_arg[]){ S("abc"), L(1234567) },
			 2) == 511 && !memcmp(big + 500, "     123456", 12) &&
	      stp_format(big, 512, "%508d|%5d", (union stp_format_arg[]){ L(1), L(123456) },
			 2) == 511 && !memcmp(big + 500, "       1|12", 12) &&
	      stp_format(big, 512, "%600d", (union stp_format_arg[]){ L(5) }, 1) == 511 &&
	      big[510] == ' ');
	CHECK("truncation inside %b", stp_format(small, 4, "%b", b, 1) == 3 &&
	      !memcmp(small, "HGF", 4));
	CHECK("exact fit", stp_format(small, 8, "%.7s", a, 1) == 7 && !strcmp(small, "hello w"));
	CHECK("huge widths are clamped",
	      stp_format(big, sizeof(big), "%999999999d|", a + 1, 1) == STP_FORMAT_MAX_FIELD + 1);
	CHECK("huge * widths are clamped",
	      stp_format(big, sizeof(big), "%*d|", (union stp_format_arg[]){ L(INT64_MAX), L(1) },
			 2) == STP_FORMAT_MAX_FIELD + 1 &&
	      stp_format(big, sizeof(big), "%*d|", (union stp_format_arg[]){ L(INT64_MIN), L(1) },
			 2) == 2 && big[0] == '1');
}

static void test_printf_args(void)
{
	static char want[4096];
	union stp_format_arg a[] = { S("start"), L(-77), S("end"), L(0x0a0b0c0d),
				     L(0xa0b0c0d) };
	const char *f = "%s|%300d|%-200s|%4b|%#x\n";
	size_t n = stp_format(want, sizeof(want), f, a, NARGS(a));
	struct context c = { 0 };


	stp_unit_print_len = 0;
	stp_printf_args(f, a, NARGS(a));
	CHECK("printf writes past MAXSTRINGLEN and the staging buffer",
	      n == 5 + 1 + 300 + 1 + 200 + 1 + 4 + 1 + 9 + 1 && stp_unit_print_len == n &&
	      !memcmp(stp_unit_print_buf, want, n));
	CHECK("printf keeps %b's NUL bytes",
	      !memcmp(stp_unit_print_buf + 508, "\x0d\x0c\x0b\x0a|0xa0b0c0d\n", 15));
	stp_unit_context = &c;
	stp_unit_print_len = 0;
	stp_printf_args("before %m after\n", (union stp_format_arg[]){ L(16) }, 1);
	CHECK("printf with a %m that faults prints nothing of itself, as stap's",
	      stp_unit_print_len == 0 && c.last_error);
	stp_unit_context = NULL;
	stp_unit_print_len = 0;
	stp_printf_args("", NULL, 0);
	CHECK("printf of nothing prints nothing", stp_unit_print_len == 0);
	stp_printf_args("%5d%%\n", (union stp_format_arg[]){ L(42) }, 1);
	CHECK("printf of a short line", stp_unit_print_len == 7 &&
	      !memcmp(stp_unit_print_buf, "   42%\n", 7));
	stp_unit_print_len = 0;
	stp_printf_args("k[%5000d|%5000d|]\n", (union stp_format_arg[]){ L(1), L(2) }, 2);
	stp_printf_args("l[%3d]\n", (union stp_format_arg[]){ L(3) }, 1);
	CHECK("one printf writes 8192 bytes at most, as stap's (the next one whole)",
	      stp_unit_print_len == 8192 + 7 && stp_unit_print_buf[5001] == '1' &&
	      stp_unit_print_buf[5002] == '|' && stp_unit_print_buf[8190] == ' ' &&
	      stp_unit_print_buf[8191] == '2' &&
	      !memcmp(stp_unit_print_buf + 8192, "l[  3]\n", 7));
	stp_unit_print_len = 0;
	stp_printf_args("p[%8180d%+20d]\n", (union stp_format_arg[]){ L(1), L(123456) }, 2);
	CHECK("... a width past the room left is the room, as stap's",
	      stp_unit_print_len == 8192 && !memcmp(stp_unit_print_buf + 8182, "   +123456", 10));
}

int main(void)
{
	test_numbers_like_c();
	test_numbers();
	test_stap_numbers();
	test_star();
	test_pointer();
	test_strings();
	test_chars();
	test_binary();
	test_memory();
	test_percent_and_oddities();
	test_truncation();
	test_printf_args();
	if (failures)
		printf("%d unit checks failed\n", failures);
	puts("unit finished");
	return 0;
}
