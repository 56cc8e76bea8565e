/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pde_data(): 5.17's name for PDE_DATA(), the data given to proc_create_data(). */
#include <linux/proc_fs.h>

void *stp_autoconf_probe(const struct inode *inode);
void *stp_autoconf_probe(const struct inode *inode)
{
	return pde_data(inode);
}
