/* SPDX-License-Identifier: GPL-2.0-or-later */
/* struct proc_ops: procfs files' operations since 5.6 (struct file_operations before). */
#include <linux/proc_fs.h>

static const struct proc_ops stp_autoconf_ops __maybe_unused = {
	.proc_read = NULL,
	.proc_lseek = NULL,
};
