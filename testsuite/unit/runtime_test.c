/*
 * runtime_test.c - unit tests of runtime/strings.c and runtime/arith.c in user space.
 * Prints PASS/FAIL lines for testsuite/unit.sh.
 */
#include "shim.h"

#include "strings.c"
#include "arith.c"

#include "check.h"

static void test_strings(void)
{
	char a[MAXSTRINGLEN], b[MAXSTRINGLEN];

	stp_string_copy(a, "hello");
	CHECK("string copy", strcmp(a, "hello") == 0);
	stp_string_copy(a, "0123456789abcdefXYZ");
	CHECK("string copy truncates to MAXSTRINGLEN-1",
	      strlen(a) == MAXSTRINGLEN - 1 && strcmp(a, "0123456789abcde") == 0);
	stp_string_copy(a, "abc");
	stp_string_append(a, "def");
	CHECK("string append", strcmp(a, "abcdef") == 0);
	stp_string_append(a, "0123456789");
	CHECK("string append truncates", strcmp(a, "abcdef012345678") == 0);
	stp_string_copy(a, "xy");
	stp_string_append(a, a);
	CHECK("string append of itself", strcmp(a, "xyxy") == 0);
	stp_string_copy(a, "abcdef");
	stp_string_copy(a, a + 2);
	CHECK("string copy from an overlapping tail", strcmp(a, "cdef") == 0);
	CHECK("string concat", strcmp(stp_string_concat(b, "foo", "bar"), "foobar") == 0);
	stp_string_copy(a, "n=");
	CHECK("string append long",
	      strcmp(stp_string_append_long(a, -42), "n=-42") == 0 &&
	      strcmp(stp_string_append_long(stp_string_copy(b, ""), INT64_MIN),
		     "-92233720368547") == 0);
	CHECK("string compare", stp_string_compare("a", "b") < 0 &&
				stp_string_compare("b", "b") == 0 &&
				stp_string_compare("c", "b") > 0);
}

static void test_arith(void)
{
	struct context c = { 0 };

	CHECK("divide", stp_divide(&c, 7, 2, "here") == 3 && !c.last_error);
	CHECK("divide negative truncates toward zero", stp_divide(&c, -7, 2, "here") == -3);
	CHECK("S64_MIN / -1 wraps instead of trapping",
	      stp_divide(&c, INT64_MIN, -1, "here") == INT64_MIN && !c.last_error);
	CHECK("S64_MIN % -1 is 0", stp_modulo(&c, INT64_MIN, -1, "here") == 0);
	CHECK("modulo keeps the dividend's sign", stp_modulo(&c, -7, 3, "here") == -1);
	CHECK("division by zero is a soft error naming the place",
	      stp_divide(&c, 1, 0, "operator '/' at x:1:2") == 0 && c.last_error &&
	      strcmp(c.last_error, "division by 0") == 0 &&
	      strcmp(c.last_stmt, "operator '/' at x:1:2") == 0);
	c = (struct context){ 0 };
	CHECK("modulo by zero is a soft error",
	      stp_modulo(&c, 1, 0, "here") == 0 && c.last_error);
	CHECK("the first soft error is kept",
	      (stp_divide(&c, 1, 0, "elsewhere"), strcmp(c.last_stmt, "here") == 0));
	CHECK("shift left", stp_shift_left(1, 62) == (s64)1 << 62);
	CHECK("shift counts use their low 6 bits, as x86 does",
	      stp_shift_left(1, 64) == 1 && stp_shift_left(1, -1) == (s64)((u64)1 << 63) &&
	      stp_shift_left(120, -2) == 0 && stp_shift_right(120, 65) == 60);
	CHECK("shift right is arithmetic",
	      stp_shift_right(-8, 1) == -4 && stp_shift_right(-8, 63) == -1 &&
	      stp_shift_right(-4096, -2) == -1);
	CHECK("shift right logical (>>>) brings in zeros",
	      stp_shift_right_logical(-16, 60) == 15 && stp_shift_right_logical(16, 2) == 4 &&
	      stp_shift_right_logical(-16, 64) == -16 && stp_shift_right_logical(-16, -1) == 1);
}

/* The decimal of V with DIGITS digits, rounded half up on the exact value, from glibc's
 * exact expansion (an independent oracle for stp_fp_decimal). */
static void exact_half_up(char *out, size_t size, double v, int digits)
{
	static char exact[2000];
	int len, point, i;

	len = snprintf(exact, sizeof(exact), "%.1100f", v);
	point = strchr(exact, '.') - exact;
	if (exact[point + digits + 1] >= '5') {
		for (i = point + digits; i >= 0; i--) {
			if (exact[i] == '.')
				continue;
			if (exact[i] == '-' || (exact[i] != '9' && (exact[i]++, 1)))
				break;
			exact[i] = '0';
		}
		if (i < 0 || exact[i] == '-') {	/* all nines: one more digit */
			memmove(exact + i + 2, exact + i + 1, len - i);
			exact[i + 1] = '1';
			point++;
		}
	}
	exact[point + digits + 1] = '\0';
	snprintf(out, size, "%s", exact);
}

static u64 bits_of(double v)
{
	u64 x;

	memcpy(&x, &v, sizeof(x));
	return x;
}

static void test_fp_decimal(void)
{
	static const double values[] = { 0.0, -0.0, 1.0, 3.14159, -2.5, 0.125, 0.96, 9.96,
		-99.996, 1e-5, 123456789.987654321, 4503599627370495.5, 9007199254740993.0,
		1e300, -1.7976931348623157e308, 4.9e-324, 2.2250738585072014e-308, 0.1, 1e22 };
	char got[700], want[700];
	int bad = 0, i, d;
	unsigned long long seed = 1;

	for (i = 0; i < (int)(sizeof(values) / sizeof(values[0])); i++)
		for (d = 1; d <= 25; d++) {
			stp_fp_decimal(got, sizeof(got), bits_of(values[i]), d);
			exact_half_up(want, sizeof(want), values[i], d);
			if (strcmp(got, want) != 0 && bad++ < 5)
				printf("    %.17g, %d digits: %s, not %s\n", values[i], d, got, want);
		}
	for (i = 0; i < 20000; i++) {	/* random bit patterns, every exponent */
		u64 x;
		double v;

		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		x = seed;
		memcpy(&v, &x, sizeof(v));
		if (v != v || v - v != 0)	/* NaN, infinity */
			continue;
		d = 1 + (int)(seed >> 59);
		stp_fp_decimal(got, sizeof(got), x, d);
		exact_half_up(want, sizeof(want), v, d);
		if (strcmp(got, want) != 0 && bad++ < 5)
			printf("    %a, %d digits: %s, not %s\n", v, d, got, want);
	}
	CHECK("fp decimal: exact, rounded half up (fixed and random doubles)", bad == 0);
	stp_fp_decimal(got, sizeof(got), bits_of(2.5), 0);
	CHECK("fp decimal: at least one digit", strcmp(got, "2.5") == 0);
	stp_fp_decimal(got, sizeof(got), 0x7ff0000000000000ULL, 2);
	stp_fp_decimal(want, sizeof(want), 0xfff8000000000000ULL, 2);
	CHECK("fp decimal: infinity and NaN", strcmp(got, "inf") == 0 && strcmp(want, "nan") == 0);
	stp_fp_decimal(got, 12, bits_of(99.996), 20);
	CHECK("fp decimal: fewer digits to fit", strcmp(got, "99.9960000") == 0);
	stp_fp_decimal(got, 7, bits_of(-99.96), 9);
	CHECK("fp decimal: a carry into the integer part, in a small buffer",
	      strcmp(got, "-100.0") == 0);
	stp_fp_decimal(got, 6, bits_of(123456.5), 2);
	CHECK("fp decimal: an integer part too long is cut", strcmp(got, "12345") == 0);
}

int main(void)
{
	test_strings();
	test_arith();
	test_fp_decimal();
	puts("unit finished");
	return failures ? 1 : 0;
}
