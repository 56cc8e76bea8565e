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
	CHECK("shift counts out of range give 0",
	      stp_shift_left(1, 64) == 0 && stp_shift_left(1, -1) == 0 &&
	      stp_shift_right(5, -1) == 0);
	CHECK("shift right is arithmetic",
	      stp_shift_right(-8, 1) == -4 && stp_shift_right(-8, 100) == -1 &&
	      stp_shift_right(8, 100) == 0);
}

int main(void)
{
	test_strings();
	test_arith();
	puts("unit finished");
	return failures ? 1 : 0;
}
