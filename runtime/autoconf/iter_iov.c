/* SPDX-License-Identifier: GPL-2.0-or-later */
/* iter_iov(): an iov_iter's current iovec, its member renamed __iov (6.4; .iov before). */
#include <linux/uio.h>

const struct iovec *stp_autoconf_probe(const struct iov_iter *i);
const struct iovec *stp_autoconf_probe(const struct iov_iter *i)
{
	return iter_iov(i);
}
