/* SPDX-License-Identifier: GPL-2.0-or-later */
/* timer_shutdown_sync(): a timer that cannot be re-armed once stopped (6.2, 6.1.y). */
#include <linux/timer.h>

int stp_autoconf_probe(struct timer_list *t);
int stp_autoconf_probe(struct timer_list *t)
{
	return timer_shutdown_sync(t);
}
