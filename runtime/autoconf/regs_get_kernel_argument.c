/* SPDX-License-Identifier: GPL-2.0-or-later */
/* regs_get_kernel_argument(): the Nth argument of a probed function (4.20). */
#include <linux/ptrace.h>

unsigned long stp_autoconf_probe(struct pt_regs *regs);
unsigned long stp_autoconf_probe(struct pt_regs *regs)
{
	return regs_get_kernel_argument(regs, 0);
}
