/* SPDX-License-Identifier: GPL-2.0-or-later */
/* struct module's core_layout (before 6.4): the size of its memory that stays after init,
 * and of the code at its start. */
#include <linux/module.h>

unsigned int stp_autoconf_probe(const struct module *m);
unsigned int stp_autoconf_probe(const struct module *m)
{
	return m->core_layout.size - m->core_layout.text_size;
}
