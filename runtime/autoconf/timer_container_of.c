/* SPDX-License-Identifier: GPL-2.0-or-later */
/* timer_container_of(): 6.16's name for from_timer(). */
#include <linux/timer.h>

#ifndef timer_container_of
#error "no timer_container_of()"
#endif
