/* SPDX-License-Identifier: GPL-2.0-or-later */
/* no_llseek for files that cannot seek (a NULL since 6.0); gone in 6.12, where NULL says it. */
#include <linux/fs.h>

loff_t (*stp_autoconf_probe)(struct file *, loff_t, int) = no_llseek;
