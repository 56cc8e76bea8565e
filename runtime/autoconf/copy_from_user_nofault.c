/* SPDX-License-Identifier: GPL-2.0-or-later */
/* copy_from_user_nofault(): 5.8's name for probe_user_read(). */
#include <linux/uaccess.h>

long stp_autoconf_probe(void *dst, const void __user *src, size_t size);
long stp_autoconf_probe(void *dst, const void __user *src, size_t size)
{
	return copy_from_user_nofault(dst, src, size);
}
