/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * strings.c - script strings: char arrays of MAXSTRINGLEN, always NUL-terminated,
 * silently truncated when a value is longer (as SystemTap does).
 */

/* dst = src; src may overlap dst. */
static char *stp_string_copy(char *dst, const char *src)
{
	size_t n = strnlen(src, MAXSTRINGLEN - 1);

	memmove(dst, src, n);
	dst[n] = '\0';
	return dst;
}

/* dst .= src; src may overlap dst. */
static char *stp_string_append(char *dst, const char *src)
{
	size_t used = strnlen(dst, MAXSTRINGLEN - 1);
	size_t n = min(strnlen(src, MAXSTRINGLEN - 1), MAXSTRINGLEN - 1 - used);

	memmove(dst + used, src, n);
	dst[used + n] = '\0';
	return dst;
}

/* tmp = a . b; tmp is a temporary that neither a nor b points into. */
static char *stp_string_concat(char *tmp, const char *a, const char *b)
{
	stp_string_copy(tmp, a);
	return stp_string_append(tmp, b);
}

/* dst .= the decimal digits of v */
static char *stp_string_append_long(char *dst, s64 v)
{
	char digits[24];
	char *p = digits + sizeof(digits);
	u64 magnitude = v < 0 ? 0 - (u64)v : (u64)v;

	*--p = '\0';
	do {
		*--p = '0' + magnitude % 10;
		magnitude /= 10;
	} while (magnitude);
	if (v < 0)
		*--p = '-';
	return stp_string_append(dst, p);
}

static int stp_string_compare(const char *a, const char *b)
{
	return strncmp(a, b, MAXSTRINGLEN);
}
