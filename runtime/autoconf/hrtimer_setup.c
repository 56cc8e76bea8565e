/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hrtimer_setup(): init and callback in one call (6.13); hrtimer_init() went in 6.16. */
#include <linux/hrtimer.h>

void stp_autoconf_probe(struct hrtimer *t, enum hrtimer_restart (*fn)(struct hrtimer *));
void stp_autoconf_probe(struct hrtimer *t, enum hrtimer_restart (*fn)(struct hrtimer *))
{
	hrtimer_setup(t, fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
}
