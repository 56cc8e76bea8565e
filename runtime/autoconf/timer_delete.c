/* SPDX-License-Identifier: GPL-2.0-or-later */
/* timer_delete(): 6.2 (6.1.y backport); del_timer() is the older name. */
#include <linux/timer.h>

int stp_autoconf_probe(struct timer_list *t);
int stp_autoconf_probe(struct timer_list *t)
{
	return timer_delete(t);
}
