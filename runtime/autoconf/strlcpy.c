/* SPDX-License-Identifier: GPL-2.0-or-later */
/* strlcpy(): gone in 6.8 (strscpy() replaces it); embedded C of scripts still calls it. */
#include <linux/string.h>

size_t stp_autoconf_probe(char *dst, const char *src, size_t size);
size_t stp_autoconf_probe(char *dst, const char *src, size_t size)
{
	return strlcpy(dst, src, size);
}
