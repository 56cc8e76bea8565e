/* SPDX-License-Identifier: GPL-2.0-or-later */
/* del_timer_sync(): the old name of timer_delete_sync(), removed in 6.15. */
#include <linux/timer.h>

int stp_autoconf_probe(struct timer_list *t);
int stp_autoconf_probe(struct timer_list *t)
{
	return del_timer_sync(t);
}
