/* SPDX-License-Identifier: GPL-2.0-or-later */
/* get_kretprobe_retaddr(): an instance's return address (6.0); ri->ret_addr before. */
#include <linux/kprobes.h>

unsigned long stp_autoconf_probe(struct kretprobe_instance *ri);
unsigned long stp_autoconf_probe(struct kretprobe_instance *ri)
{
	return get_kretprobe_retaddr(ri);
}
