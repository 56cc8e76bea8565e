/* SPDX-License-Identifier: GPL-2.0-or-later */
/* iter_is_ubuf(): an iov_iter of one user buffer, ITER_UBUF (6.0). */
#include <linux/uio.h>

bool stp_autoconf_probe(const struct iov_iter *i);
bool stp_autoconf_probe(const struct iov_iter *i)
{
	return iter_is_ubuf(i);
}
