/* SPDX-License-Identifier: GPL-2.0-or-later */
/* strncpy_from_kernel_nofault(): 5.8's name for strncpy_from_unsafe(). */
#include <linux/uaccess.h>

long stp_autoconf_probe(char *dst, const void *src, long n);
long stp_autoconf_probe(char *dst, const void *src, long n)
{
	return strncpy_from_kernel_nofault(dst, src, n);
}
