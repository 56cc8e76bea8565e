/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bdev_partno(): the partition number in the low bits of __bd_flags (6.10; bd_partno before). */
#include <linux/blkdev.h>

u8 stp_autoconf_probe(const struct block_device *bdev);
u8 stp_autoconf_probe(const struct block_device *bdev)
{
	return bdev_partno(bdev);
}
