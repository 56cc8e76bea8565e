/* SPDX-License-Identifier: GPL-2.0-or-later */
/* get_random_u32_below(): 6.2's (and 6.1.y's) replacement for prandom_u32_max(). */
#include <linux/random.h>

u32 stp_autoconf_probe(u32 n);
u32 stp_autoconf_probe(u32 n)
{
	return get_random_u32_below(n);
}
