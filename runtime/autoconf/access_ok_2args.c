/* SPDX-License-Identifier: GPL-2.0-or-later */
/* access_ok(addr, size): 5.0 dropped the first argument (VERIFY_READ/VERIFY_WRITE). */
#include <linux/uaccess.h>

int stp_autoconf_probe(const void __user *p, size_t size);
int stp_autoconf_probe(const void __user *p, size_t size)
{
	return access_ok(p, size);
}
