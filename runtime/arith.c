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

/*
 * Shifts use the count's low 6 bits, as the x86 instructions that stap 4.8's modules
 * run do (C leaves other counts undefined): 1 << 64 is 1, 1 << -1 is 1 << 63.
 */
static s64 stp_shift_left(s64 a, s64 n)
{
	return (s64)((u64)a << (n & 63));
}

static s64 stp_shift_right(s64 a, s64 n)
{
	return a >> (n & 63);
}

/* a >>> n: the bits of a moved right, zeros coming in */
static s64 stp_shift_right_logical(s64 a, s64 n)
{
	return (s64)((u64)a >> (n & 63));
}

/*
 * The double with bits X in decimal with DIGITS digits after the point (at least 1), as
 * fp_to_string() gives it: "-12.50".  Exact: the integer part and the fraction are read
 * from the bits as big numbers, and the last digit is rounded half up on the exact
 * value (the carry runs into the integer part: 9.96 with one digit is "10.0").  Infinity
 * and NaN are "inf", "-inf", "nan".  Written into OUT of SIZE bytes, with fewer digits
 * when they do not fit; returns the length.  Integer arithmetic only.
 */
static __maybe_unused size_t stp_fp_decimal(char *out, size_t size, u64 x, s64 digits)
{
	bool negative = x >> 63;
	int exponent = (x >> 52) & 0x7ff, shift, words = 0, n, i, d, len, next = 0;
	u64 mantissa = x & ((1ULL << 52) - 1), frac[18] = { 0 }, whole;
	u32 big[36] = { 0 };	/* the integer part, base 10^9, lowest first (2^1024 fits) */
	char text[360];		/* sign and integer part, highest digit first */
	char *f;

	if (exponent == 0x7ff) {
		snprintf(out, size, "%s", mantissa ? "nan" : negative ? "-inf" : "inf");
		return strlen(out);
	}
	if (exponent)
		mantissa |= 1ULL << 52;
	shift = (exponent ? exponent : 1) - 1075;	/* x is mantissa * 2^shift */
	whole = mantissa;
	if (shift < 0) {
		int fbits = -shift, lead;	/* the fraction: mantissa's low fbits bits */
		u64 bits = fbits < 64 ? mantissa & ((1ULL << fbits) - 1) : mantissa;

		whole = fbits < 64 ? mantissa >> fbits : 0;
		/* left-aligned in WORDS 64-bit words: the fraction is frac / 2^(64 * words) */
		words = (fbits + 63) / 64;
		lead = 64 * words - fbits;
		frac[0] = bits << lead;
		frac[1] = lead ? bits >> (64 - lead) : 0;
		shift = 0;
	}
	big[0] = whole % 1000000000;
	big[1] = whole / 1000000000 % 1000000000;
	big[2] = whole / 1000000000 / 1000000000;
	n = 3;
	for (; shift > 0; shift--) {			/* big *= 2 */
		u32 carry = 0;

		for (i = 0; i < n; i++) {
			u32 v = big[i] * 2 + carry;

			carry = v >= 1000000000;
			big[i] = carry ? v - 1000000000 : v;
		}
		if (carry && n < 36)
			big[n++] = 1;
	}
	while (n > 1 && big[n - 1] == 0)
		n--;
	len = snprintf(text, sizeof(text), "%s%u", negative ? "-" : "", big[n - 1]);
	for (i = n - 2; i >= 0; i--)
		len += snprintf(text + len, sizeof(text) - len, "%09u", big[i]);

	/* OUT: room for the integer part (one more digit for a carry), ".", the digits */
	if ((size_t)len + 4 > size) {		/* not even the integer part fits */
		snprintf(out, size, "%s", text);
		return strlen(out);
	}
	if (digits < 1)
		digits = 1;
	if (digits > (s64)(size - len - 3))
		digits = size - len - 3;
	f = out + len + 1;
	for (d = 0; d <= digits; d++) {			/* DIGITS digits and the next one */
		u64 carry = 0;

		for (i = 0; i < words; i++) {
			unsigned __int128 p = (unsigned __int128)frac[i] * 10 + carry;

			frac[i] = (u64)p;
			carry = (u64)(p >> 64);
		}
		if (d < digits)
			f[d] = '0' + carry;
		else
			next = carry;
	}
	f[digits] = '\0';
	if (next >= 5) {				/* round up, carrying leftwards */
		for (d = digits - 1; d >= 0 && f[d] == '9'; d--)
			f[d] = '0';
		if (d >= 0) {
			f[d]++;
		} else {				/* into the integer part */
			for (i = len - 1; i >= 0 && text[i] == '9'; i--)
				text[i] = '0';
			if (i >= 0 && text[i] != '-') {
				text[i]++;
			} else {			/* 99.96 -> 100.0 */
				memmove(text + i + 2, text + i + 1, len - i - 1);
				text[i + 1] = '1';
				len++;
				memmove(f + 1, f, digits + 1);
				f++;
			}
		}
	}
	memcpy(out, text, len);
	out[len] = '.';
	return f + digits - out;
}
