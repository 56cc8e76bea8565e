/* SPDX-License-Identifier: GPL-2.0-or-later */
/* get_kretprobe(): the kretprobe of an instance (5.11); ri->rp before. */
#include <linux/kprobes.h>

struct kretprobe *stp_autoconf_probe(struct kretprobe_instance *ri);
struct kretprobe *stp_autoconf_probe(struct kretprobe_instance *ri)
{
	return get_kretprobe(ri);
}
