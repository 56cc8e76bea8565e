/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * arith.c - script arithmetic on 64-bit longs that must not trap the kernel.
 * Overflow wraps (kbuild compiles with -fno-strict-overflow); the operations that would
 * fault the CPU are soft errors or defined results instead.
 */

static void stp_division_by_zero(struct context *c, const char *where)
{
	if (c->last_error)
		return;
	c->last_stmt = where;
	stp_soft_error(c, "division by 0");
}

static s64 stp_divide(struct context *c, s64 a, s64 b, const char *where)
{
	if (unlikely(b == 0)) {
		stp_division_by_zero(c, where);
		return 0;
	}
	if (unlikely(b == -1))
		return (s64)(0 - (u64)a);	/* S64_MIN / -1 would trap */
	return div64_s64(a, b);
}

static s64 stp_modulo(struct context *c, s64 a, s64 b, const char *where)
{
	s64 quotient;

	if (unlikely(b == 0)) {
		stp_division_by_zero(c, where);
		return 0;
	}
	if (unlikely(b == -1))
		return 0;
	quotient = div64_s64(a, b);
	return a - quotient * b;
}

/* Shift counts outside 0..63 would be undefined in C. */
static s64 stp_shift_left(s64 a, s64 n)
{
	return (n < 0 || n > 63) ? 0 : (s64)((u64)a << n);
}

static s64 stp_shift_right(s64 a, s64 n)
{
	if (n < 0)
		return 0;
	return n > 63 ? (a < 0 ? -1 : 0) : a >> n;
}
