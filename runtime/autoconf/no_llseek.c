/* SPDX-License-Identifier: GPL-2.0-or-later */
/* no_llseek() for files that cannot seek; gone in 6.12 (a NULL .llseek says it there). */
#include <linux/fs.h>

loff_t (*stp_autoconf_probe)(struct file *, loff_t, int) = no_llseek;
