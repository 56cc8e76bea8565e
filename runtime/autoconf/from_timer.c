/* SPDX-License-Identifier: GPL-2.0-or-later */
/* from_timer(): a timer callback's way back to its container, until 6.16. */
#include <linux/timer.h>

#ifndef from_timer
#error "no from_timer()"
#endif
