/* SPDX-License-Identifier: GPL-2.0-or-later */
/* relay_open() takes a const struct rchan_callbacks (5.11). */
#include <linux/relay.h>

_Static_assert(__builtin_types_compatible_p(typeof(&relay_open),
	struct rchan *(*)(const char *, struct dentry *, size_t, size_t,
			  const struct rchan_callbacks *, void *)),
	"relay_open() takes a mutable rchan_callbacks");
