/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hrtimer_init(): the form before hrtimer_setup(); the callback is set afterwards. */
#include <linux/hrtimer.h>

void stp_autoconf_probe(struct hrtimer *t);
void stp_autoconf_probe(struct hrtimer *t)
{
	hrtimer_init(t, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
}
