/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uprobe_register() returns the uprobe, uprobe_unregister_nosync() + _sync() undo it (6.12). */
#include <linux/uprobes.h>

void stp_autoconf_probe(struct inode *inode, struct uprobe_consumer *uc);
void stp_autoconf_probe(struct inode *inode, struct uprobe_consumer *uc)
{
	struct uprobe *u = uprobe_register(inode, 0, 0, uc);

	if (!IS_ERR(u))
		uprobe_unregister_nosync(u, uc);
	uprobe_unregister_sync();
}
